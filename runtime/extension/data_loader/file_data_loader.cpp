#include <executorch/extension/data_loader/file_data_loader.h>

#include <cstdlib>
#include <cstring>

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

void free_heap(ET_UNUSED void* context, void* data, ET_UNUSED size_t size) {
  std::free(data);
}

}  // namespace

Result<FileDataLoader> FileDataLoader::from(
    const char* file_name, size_t alignment) {
  ET_CHECK_OR_RETURN_ERROR(
      alignment != 0 && (alignment & (alignment - 1)) == 0,
      InvalidArgument,
      "alignment %zu is not a power of 2",
      alignment);
  int fd = -1;
  size_t size = 0;
  char* name = nullptr;
  Error err = detail::open_regular_file(file_name, &fd, &size, &name);
  if (err != Error::Ok) {
    return err;
  }
  return FileDataLoader(fd, size, alignment, name);
}

FileDataLoader::~FileDataLoader() {
  std::free(const_cast<char*>(file_name_));
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

Result<FreeableBuffer> FileDataLoader::load(
    size_t offset,
    size_t size,
    ET_UNUSED const DataLoader::SegmentInfo& segment_info) const {
  ET_CHECK_OK_OR_RETURN_ERROR(detail::check_load_range(
      "FileDataLoader", fd_, file_name_, file_size_, offset, size));
  if (size == 0) {
    return FreeableBuffer(nullptr, 0, /*free_fn=*/nullptr);
  }
  // posix_memalign needs at least pointer alignment.
  const size_t align = alignment_ < sizeof(void*) ? sizeof(void*) : alignment_;
  void* buf = nullptr;
  if (::posix_memalign(&buf, align, size) != 0 || buf == nullptr) {
    ET_LOG(Error, "cannot allocate %zu bytes for '%s'", size, file_name_);
    return Error::MemoryAllocationFailed;
  }
  Error err = detail::read_fully(fd_, file_name_, offset, size, buf);
  if (err != Error::Ok) {
    std::free(buf);
    return err;
  }
  return FreeableBuffer(buf, size, free_heap);
}

Result<size_t> FileDataLoader::size() const {
  ET_CHECK_OR_RETURN_ERROR(
      fd_ >= 0, InvalidState, "FileDataLoader used after move");
  return file_size_;
}

Error FileDataLoader::load_into(
    size_t offset,
    size_t size,
    ET_UNUSED const SegmentInfo& segment_info,
    void* buffer) const {
  ET_CHECK_OR_RETURN_ERROR(
      fd_ >= 0, InvalidState, "FileDataLoader used after move");
  ET_CHECK_OR_RETURN_ERROR(
      buffer != nullptr || size == 0,
      InvalidArgument,
      "load_into: destination is null");
  ET_CHECK_OK_OR_RETURN_ERROR(detail::check_load_range(
      "FileDataLoader", fd_, file_name_, file_size_, offset, size));
  if (size == 0) {
    return Error::Ok;
  }
  return detail::read_fully(fd_, file_name_, offset, size, buffer);
}

}  // namespace extension
}  // namespace executorch
