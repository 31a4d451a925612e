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
 * Then every instruction with a constant tensor argument whose operator has a
 * registered ConstantPreparer (runtime/kernel/prepared_constants.h) gets to
 * add derived blobs (e.g. packed GEMM weights), which its kernel finds at
 * execute through KernelRuntimeContext::prepared_constants().
 *
 * Constants nobody transforms keep their zero-copy (mmap) storage; the extra
 * memory is exactly the folded outputs and the blobs, counted in
 * PreparedState::bytes.
 */
#pragma once

#include <cstddef>
#include <vector>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/detail/method_internal.h>
#include <executorch/runtime/kernel/prepared_constants.h>

namespace executorch {
namespace runtime {
namespace internal {

/// What preparation made; owned by the Method, freed with it.
class PreparedState final : public PreparedConstants {
 public:
  PreparedState() = default;
  PreparedState(const PreparedState&) = delete;
  PreparedState& operator=(const PreparedState&) = delete;
  ~PreparedState();

  const void* find(const void* key, uint32_t tag) const override;
  void* add(const void* key, uint32_t tag, size_t bytes) override;

  /// 64-byte aligned storage owned by this state, counted in bytes.
  void* allocate(size_t bytes);

  /// An argument array of n entries for a rewritten instruction, owned here.
  EValue** make_args(size_t n);

  /// A new contiguous constant tensor of `dtype` and `sizes` (at most
  /// kTensorDimensionLimit dims, non-negative) with uninitialized data owned
  /// here (*data), counted in bytes; null when out of memory or invalid.
  EValue* make_constant_tensor(
      executorch::aten::ScalarType dtype,
      Span<const int32_t> sizes,
      void** data);

  /// Frees a buffer from allocate() (and the blob or tensor that uses it)
  /// and takes it out of bytes; nothing when p is not one.
  void release(const void* p);

  size_t bytes = 0;            // everything allocated: folded outputs and blobs
  size_t n_folded = 0;         // instructions evaluated at load
  size_t n_fused = 0;          // instructions run inside the one before
  size_t n_folded_pairs = 0;   // instructions folded into the one before
  size_t n_channels_last = 0;  // values switched to channels-last
  /// The dim order of every value switched to channels-last (their
  /// TensorImpls point here).
  executorch::aten::DimOrderType channels_last[4] = {0, 2, 3, 1};

 private:
  struct Blob {
    const void* key;
    uint32_t tag;
    void* data;
  };
  struct Buffer {
    void* data;
    size_t bytes;
  };
  struct OwnedTensor;
  std::vector<Buffer> buffers_;  // malloc'd, freed by the destructor
  std::vector<Blob> blobs_;
  std::vector<std::vector<EValue*>> fused_args_;
  std::vector<OwnedTensor*> tensors_;  // new'd, deleted by the destructor
};

/// Folds the constant-only data movement instructions of `plan` (decoded in
/// `chains`). A kernel that fails during folding is left to run normally; only
/// allocation failure is an error. With `assign_layouts`, first switches
/// intermediate activations to channels-last where the operators' layout
/// rules allow it (layout_pass.h).
Error prepare_constants(
    const executorch_flatbuffer::ExecutionPlan* plan,
    Chain* chains,
    size_t n_chains,
    EValue* values,
    size_t n_values,
    MemoryAllocator* temp_allocator,
    bool assign_layouts,
    PreparedState* state);

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
