/*
 * Load-time preparation of a Method (private header).
 *
 * After the chains are built and before the first execute(), a kernel
 * instruction that only moves or converts data of constant tensors (a weight
 * permuted, transposed, reshaped, expanded or cast) computes the same output
 * on every call. Preparation runs each such instruction once into a buffer the
 * Method owns, turns its output into a constant for later instructions, and
 * marks the instruction as done, so execute() skips it. The kernels are the
 * ones the method resolved, on the same inputs, so the outputs are
 * bit-identical to running them at every execute().
 *
 * Constants nobody transforms keep their zero-copy (mmap) storage; the extra
 * memory is exactly the folded outputs, counted in PreparedState::bytes.
 */
#pragma once

#include <cstddef>
#include <vector>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/detail/method_internal.h>

namespace executorch {
namespace runtime {
namespace internal {

/// What preparation made; owned by the Method, freed with it.
struct PreparedState {
  std::vector<void*> buffers;  // the folded outputs' storage (malloc)
  size_t bytes = 0;            // sum of their sizes
  size_t n_folded = 0;         // instructions evaluated at load
  ~PreparedState();
};

/// Folds the constant-only data movement instructions of `plan` (decoded in
/// `chains`). A kernel that fails during folding is left to run normally; only
/// allocation failure is an error.
Error prepare_constants(
    const executorch_flatbuffer::ExecutionPlan* plan,
    Chain* chains,
    size_t n_chains,
    EValue* values,
    size_t n_values,
    MemoryAllocator* temp_allocator,
    PreparedState* state);

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
