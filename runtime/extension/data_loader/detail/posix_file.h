/*
 * POSIX file helpers shared by the file and mmap loaders (private header).
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/error.h>

namespace executorch {
namespace extension {
namespace detail {

/// Opens `path` read-only; the file must be a regular file. On success sets
/// *fd, *size and *name_copy (strdup'ed; free() it).
executorch::runtime::Error open_regular_file(
    const char* path, int* fd, size_t* size, char** name_copy);

/// True iff [offset, offset + size) lies inside a file of `file_size` bytes.
inline bool range_in_file(size_t offset, size_t size, size_t file_size) {
  return offset <= file_size && size <= file_size - offset;
}

/// The checks every load of the file and mmap loaders starts with: the loader was not moved
/// from (fd >= 0; InvalidState, naming `loader`) and the range lies inside the file
/// (InvalidArgument, naming the file).
executorch::runtime::Error check_load_range(
    const char* loader,
    int fd,
    const char* name,
    size_t file_size,
    size_t offset,
    size_t size);

/// Reads exactly `size` bytes at `offset` into `dst` (positional reads in
/// chunks <= INT32_MAX, retrying on EINTR). AccessFailed on error or EOF.
executorch::runtime::Error read_fully(
    int fd, const char* name, size_t offset, size_t size, void* dst);

}  // namespace detail
}  // namespace extension
}  // namespace executorch
