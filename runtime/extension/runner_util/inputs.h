/*
 * Input preparation for runner programs: allocate a buffer per tensor input
 * of a Method, fill it (with ones, or with caller-provided bytes) and set it
 * as the input. BufferCleanup owns the allocations.
 */
#pragma once

#include <cstddef>
#include <cstdlib>
#include <utility>
#include <vector>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace extension {

using ::executorch::runtime::Method;
using ::executorch::runtime::TensorInfo;

/**
 * Owns a malloc()ed array of malloc()ed buffers and frees all of them (then
 * the array) when destroyed. Move-only.
 */
class BufferCleanup final {
 public:
  /// Takes ownership of `buffers.data()` and of every element.
  explicit BufferCleanup(executorch::runtime::Span<void*> buffers)
      : buffers_(buffers) {}

  BufferCleanup(BufferCleanup&& other) noexcept : buffers_(other.buffers_) {
    other.buffers_ = executorch::runtime::Span<void*>();
  }

  ~BufferCleanup() {
    for (void* buffer : buffers_) {
      std::free(buffer);
    }
    std::free(buffers_.data());
  }

 private:
  BufferCleanup(const BufferCleanup&) = delete;
  BufferCleanup& operator=(const BufferCleanup&) = delete;
  BufferCleanup& operator=(BufferCleanup&&) noexcept = delete;

  executorch::runtime::Span<void*> buffers_;
};

/// Limits for prepare_input_tensors(), guarding against malformed programs.
struct PrepareInputTensorsOptions {
  /// Refuse to allocate more than this many bytes in total.
  size_t max_total_allocation_size = 1024 * 1024 * 1024;
  /// Refuse methods with more inputs than this.
  size_t max_inputs = 1024;
};

/**
 * Sets every input of `method`. Tensor inputs get freshly allocated buffers,
 * filled with ones when `input_buffers` is empty, otherwise with the bytes
 * of the matching entry (whose size must equal the tensor's nbytes). With
 * `input_buffers`, Int/Double/Bool inputs are read from their entries as
 * int64_t/double/bool; without, non-tensor inputs are left alone. None
 * inputs are set to None.
 *
 * @returns The owner of the allocated buffers; keep it alive while the
 *     method runs. Or an error: InvalidArgument (wrong count or sizes),
 *     InvalidProgram (over the limits), MemoryAllocationFailed, or the
 *     method's own error from set_input().
 */
ET_API executorch::runtime::Result<BufferCleanup> prepare_input_tensors(
    Method& method,
    PrepareInputTensorsOptions options = {},
    const std::vector<std::pair<char*, size_t>>& input_buffers = {});

namespace internal {
/**
 * Wraps `data_ptr` in a tensor shaped like `tensor_meta`, optionally fills
 * it with ones, and sets it as input `input_index` of `method`.
 */
ET_API executorch::runtime::Error fill_and_set_input(
    Method& method,
    TensorInfo& tensor_meta,
    size_t input_index,
    void* data_ptr,
    bool fill_tensor = true);
}  // namespace internal

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::BufferCleanup;
using ::executorch::extension::prepare_input_tensors;
}  // namespace util
}  // namespace executor
}  // namespace torch
