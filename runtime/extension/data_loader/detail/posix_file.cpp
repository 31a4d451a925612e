#include <executorch/extension/data_loader/detail/posix_file.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {
namespace detail {

using executorch::runtime::Error;

Error check_load_range(
    const char* loader,
    int fd,
    const char* name,
    size_t file_size,
    size_t offset,
    size_t size) {
  ET_CHECK_OR_RETURN_ERROR(fd >= 0, InvalidState, "%s used after move", loader);
  ET_CHECK_OR_RETURN_ERROR(
      range_in_file(offset, size, file_size),
      InvalidArgument,
      "range [%zu, +%zu) outside '%s' (%zu bytes)",
      offset,
      size,
      name,
      file_size);
  return Error::Ok;
}

Error open_regular_file(
    const char* path, int* fd_out, size_t* size_out, char** name_out) {
  if (path == nullptr) {
    ET_LOG(Error, "file name is null");
    return Error::InvalidArgument;
  }
  int fd;
  do {
    fd = ::open(path, O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    ET_LOG(Error, "cannot open '%s': %s", path, std::strerror(errno));
    return Error::AccessFailed;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    ET_LOG(Error, "cannot stat '%s': %s", path, std::strerror(errno));
    ::close(fd);
    return Error::AccessFailed;
  }
  if (!S_ISREG(st.st_mode)) {
    ET_LOG(Error, "'%s' is not a regular file", path);
    ::close(fd);
    return Error::AccessFailed;
  }
  if (st.st_size < 0 ||
      static_cast<unsigned long long>(st.st_size) > SIZE_MAX) {
    ET_LOG(Error, "'%s': size does not fit in size_t", path);
    ::close(fd);
    return Error::AccessFailed;
  }
  char* name = ::strdup(path);
  if (name == nullptr) {
    ::close(fd);
    return Error::MemoryAllocationFailed;
  }
  *fd_out = fd;
  *size_out = static_cast<size_t>(st.st_size);
  *name_out = name;
  return Error::Ok;
}

Error read_fully(
    int fd, const char* name, size_t offset, size_t size, void* dst) {
  auto* out = static_cast<uint8_t*>(dst);
  size_t done = 0;
  while (done < size) {
    size_t chunk = size - done;
    if (chunk > static_cast<size_t>(INT32_MAX)) {
      chunk = static_cast<size_t>(INT32_MAX);
    }
    const ssize_t n =
        ::pread(fd, out + done, chunk, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      ET_LOG(
          Error,
          "reading %zu bytes at %zu of '%s' failed: %s",
          size,
          offset,
          name == nullptr ? "(file)" : name,
          std::strerror(errno));
      return Error::AccessFailed;
    }
    if (n == 0) {
      ET_LOG(
          Error,
          "unexpected end of '%s' at offset %zu (wanted %zu bytes at %zu)",
          name == nullptr ? "(file)" : name,
          offset + done,
          size,
          offset);
      return Error::AccessFailed;
    }
    done += static_cast<size_t>(n);
  }
  return Error::Ok;
}

}  // namespace detail
}  // namespace extension
}  // namespace executorch
