/*
 * Helpers shared by the heap-backed memory allocators.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {
namespace utils {

/**
 * The number of bytes to request from malloc() so that a block of `size`
 * bytes aligned to `alignment` fits inside: malloc() already guarantees
 * alignof(std::max_align_t), so only larger alignments need slack.
 *
 * @retval Error::InvalidArgument the padded size overflows.
 */
inline runtime::Result<size_t> get_aligned_size(size_t size, size_t alignment) {
  constexpr size_t kMallocAlignment = alignof(std::max_align_t);
  if (alignment <= kMallocAlignment) {
    return size;
  }
  const size_t slack = alignment - 1;
  if (size > SIZE_MAX - slack) {
    ET_LOG(
        Error,
        "Aligned allocation size overflows: %zu bytes at alignment %zu",
        size,
        alignment);
    return runtime::Error::InvalidArgument;
  }
  return size + slack;
}

}  // namespace utils
}  // namespace extension
}  // namespace executorch
