/*
 * parallel_for: the loop-splitting interface the CPU kernels use (upstream ExecuTorch's
 * runtime/kernel/thread_parallel_interface.h, same names and signature). It always has the
 * process thread pool behind it (executorch/extension/threadpool/threadpool.h).
 *
 *   parallel_for(begin, end, grain_size, [&](int64_t b, int64_t e) { ...items [b, e)... });
 *
 * [begin, end) is cut into at most get_thread_count() contiguous chunks of at least grain_size
 * items (the last may be shorter); a range of fewer than 2 * grain_size items, a 1-thread pool,
 * a call from inside a running chunk (nesting) or a busy pool runs f(begin, end) inline on the
 * caller. So which chunks exist depends on the thread count: f must compute each item the same
 * way whatever range it is given (never split a floating-point sum across chunks), and chunks
 * run concurrently, so they must write disjoint memory.
 *
 * Returns false (with a log line) for a malformed range or grain, or if f threw in some chunk
 * (the exception does not propagate).
 */
#pragma once

#include <cstdint>

#include <executorch/runtime/core/function_ref.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace extension {

namespace internal {
// The grain PyTorch's TensorIterator uses, for callers that have no better measure.
constexpr int64_t GRAIN_SIZE = 32768;
}  // namespace internal

ET_API bool parallel_for(
    int64_t begin,
    int64_t end,
    int64_t grain_size,
    runtime::FunctionRef<void(int64_t, int64_t)> f);

// The index of the chunk the calling thread is running (0 outside parallel_for).
ET_API int64_t get_thread_num();
ET_API void set_thread_num(int64_t thread_num);

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
// Upstream's older namespace for the same functions.
using ::executorch::extension::get_thread_num;
using ::executorch::extension::parallel_for;
using ::executorch::extension::set_thread_num;
}  // namespace executor
}  // namespace torch
