#include <executorch/extension/data_loader/mmap_data_loader.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <sys/mman.h>
#include <unistd.h>

#include <executorch/extension/data_loader/detail/posix_file.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {

using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Result;

namespace {

// The FreeableBuffer context carries the page size, so the covering mapping
// can be recomputed from (data, size).
void unmap(void* context, void* data, size_t size) {
  const uintptr_t page = reinterpret_cast<uintptr_t>(context);
  const uintptr_t addr = reinterpret_cast<uintptr_t>(data);
  const uintptr_t start = addr & ~(page - 1);
  ::munmap(reinterpret_cast<void*>(start), (addr - start) + size);
}

}  // namespace

Result<MmapDataLoader> MmapDataLoader::from(
    const char* file_name, MlockConfig mlock_config) {
  const long page = ::sysconf(_SC_PAGESIZE);
  ET_CHECK_OR_RETURN_ERROR(
      page > 0 && (page & (page - 1)) == 0,
      NotSupported,
      "unusable page size %ld",
      page);
  switch (mlock_config) {
    case MlockConfig::NoMlock:
    case MlockConfig::UseMlock:
    case MlockConfig::UseMlockIgnoreErrors:
    case MlockConfig::UseMadvise:
      break;
    default:
      ET_LOG(Error, "unknown MlockConfig %d", static_cast<int>(mlock_config));
      return Error::InvalidArgument;
  }
  int fd = -1;
  size_t size = 0;
  char* name = nullptr;
  Error err = detail::open_regular_file(file_name, &fd, &size, &name);
  if (err != Error::Ok) {
    return err;
  }
  return MmapDataLoader(
      fd, size, name, static_cast<size_t>(page), mlock_config);
}

MmapDataLoader::~MmapDataLoader() {
  std::free(const_cast<char*>(file_name_));
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

Result<FreeableBuffer> MmapDataLoader::load(
    size_t offset,
    size_t size,
    ET_UNUSED const DataLoader::SegmentInfo& segment_info) const {
  ET_CHECK_OK_OR_RETURN_ERROR(detail::check_load_range(
      "MmapDataLoader", fd_, file_name_, file_size_, offset, size));
  if (size == 0) {
    return FreeableBuffer(nullptr, 0, /*free_fn=*/nullptr);
  }
  // Map the pages covering [offset, offset + size); the end is inside the
  // file (checked above), the start is rounded down to a page boundary.
  const size_t start = offset & ~(page_size_ - 1);
  const size_t length = (offset - start) + size;
  // Private and writable: pages are still shared with the page cache until
  // written. Load-time validation and the boxed kernel wrapper refuse every
  // write to a constant they can see; should one still happen (a kernel
  // registered as a raw function, which declares nothing about its outputs),
  // it changes a private copy instead of faulting on a read-only page or
  // reaching the file.
  void* map = ::mmap(
      nullptr,
      length,
      PROT_READ | PROT_WRITE,
      MAP_PRIVATE,
      fd_,
      static_cast<off_t>(start));
  if (map == MAP_FAILED) {
    ET_LOG(
        Error,
        "mmap of %zu bytes at %zu of '%s' failed: %s",
        length,
        start,
        file_name_,
        std::strerror(errno));
    return Error::AccessFailed;
  }
  if (mlock_config_ == MlockConfig::UseMlock ||
      mlock_config_ == MlockConfig::UseMlockIgnoreErrors) {
    if (::mlock(map, length) != 0) {
      if (mlock_config_ == MlockConfig::UseMlock) {
        ET_LOG(
            Error,
            "mlock of %zu bytes of '%s' failed: %s",
            length,
            file_name_,
            std::strerror(errno));
        ::munmap(map, length);
        return Error::NotSupported;
      }
      ET_LOG(
          Debug,
          "ignoring mlock failure on '%s': %s",
          file_name_,
          std::strerror(errno));
    }
  } else if (mlock_config_ == MlockConfig::UseMadvise) {
    (void)::madvise(map, length, MADV_WILLNEED);
  }
  return FreeableBuffer(
      static_cast<uint8_t*>(map) + (offset - start),
      size,
      unmap,
      reinterpret_cast<void*>(static_cast<uintptr_t>(page_size_)));
}

Result<size_t> MmapDataLoader::size() const {
  ET_CHECK_OR_RETURN_ERROR(
      fd_ >= 0, InvalidState, "MmapDataLoader used after move");
  return file_size_;
}

Error MmapDataLoader::load_into(
    size_t offset,
    size_t size,
    ET_UNUSED const SegmentInfo& segment_info,
    void* buffer) const {
  ET_CHECK_OR_RETURN_ERROR(
      buffer != nullptr || size == 0,
      InvalidArgument,
      "load_into: destination is null");
  ET_CHECK_OK_OR_RETURN_ERROR(detail::check_load_range(
      "MmapDataLoader", fd_, file_name_, file_size_, offset, size));
  if (size == 0) {
    return Error::Ok;
  }
  return detail::read_fully(fd_, file_name_, offset, size, buffer);
}

}  // namespace extension
}  // namespace executorch
