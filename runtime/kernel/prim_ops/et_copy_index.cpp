/*
 * executorch_prim::et_copy_index.tensor: appends-by-index into a stacked
 * tensor (emitted for list-of-tensor construction in loops).
 */
#include <executorch/runtime/kernel/prim_ops/detail/prim_ops.h>

#include <cstdint>
#include <cstring>

#include <executorch/runtime/core/exec_aten/util/tensor_dimension_limit.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {
namespace prim_ops {

using executorch::aten::SizesType;
using executorch::aten::Tensor;

void et_copy_index(KernelRuntimeContext& context, Span<EValue*> args) {
  if (args.size() != 3) {
    ET_LOG(Error, "et_copy_index: expected 3 arguments, got %zu", args.size());
    context.fail(Error::InvalidProgram);
    return;
  }
  if (!args[0]->isTensor() || !args[1]->isTensor() || !args[2]->isInt()) {
    ET_LOG(Error, "et_copy_index: expected (Tensor, Tensor, int)");
    context.fail(Error::InvalidType);
    return;
  }
  Tensor copy_to = args[0]->toTensor();
  Tensor copy_from = args[1]->toTensor();
  const int64_t index = args[2]->toInt();
  if (index < 0 || index >= INT32_MAX) {
    ET_LOG(
        Error,
        "et_copy_index: index %lld is out of range",
        static_cast<long long>(index));
    context.fail(Error::InvalidArgument);
    return;
  }
  if (copy_to.scalar_type() != copy_from.scalar_type()) {
    ET_LOG(Error, "et_copy_index: dtypes differ");
    context.fail(Error::InvalidArgument);
    return;
  }
  const size_t to_rank = static_cast<size_t>(copy_to.dim());
  const size_t from_rank = static_cast<size_t>(copy_from.dim());
  if (to_rank != from_rank + 1 || to_rank > kTensorDimensionLimit) {
    ET_LOG(
        Error,
        "et_copy_index: copy_to has rank %zu, copy_from %zu (must differ by 1)",
        to_rank,
        from_rank);
    context.fail(Error::InvalidArgument);
    return;
  }
  SizesType new_sizes[kTensorDimensionLimit];
  new_sizes[0] = static_cast<SizesType>(index + 1);
  for (size_t i = 0; i < from_rank; ++i) {
    if (copy_to.size(static_cast<ssize_t>(i + 1)) !=
        copy_from.size(static_cast<ssize_t>(i))) {
      ET_LOG(Error, "et_copy_index: trailing shapes differ at dim %zu", i);
      context.fail(Error::InvalidArgument);
      return;
    }
    new_sizes[i + 1] =
        static_cast<SizesType>(copy_from.size(static_cast<ssize_t>(i)));
  }
  if (resize_tensor(copy_to, {new_sizes, to_rank}) != Error::Ok) {
    ET_LOG(
        Error,
        "et_copy_index: copy_to cannot grow to %lld rows",
        static_cast<long long>(index + 1));
    context.fail(Error::InvalidState);
    return;
  }
  const size_t row_bytes = copy_from.nbytes();
  size_t offset = 0;
  if (__builtin_mul_overflow(static_cast<size_t>(index), row_bytes, &offset) ||
      offset > copy_to.nbytes() || row_bytes > copy_to.nbytes() - offset) {
    ET_LOG(
        Error,
        "et_copy_index: row %lld does not fit in copy_to",
        static_cast<long long>(index));
    context.fail(Error::InvalidArgument);
    return;
  }
  if (row_bytes == 0) {
    return;
  }
  if (copy_to.mutable_data_ptr() == nullptr ||
      copy_from.const_data_ptr() == nullptr) {
    ET_LOG(Error, "et_copy_index: a tensor has no data");
    context.fail(Error::InvalidState);
    return;
  }
  std::memcpy(
      static_cast<uint8_t*>(copy_to.mutable_data_ptr()) + offset,
      copy_from.const_data_ptr(),
      row_bytes);
}

}  // namespace prim_ops
}  // namespace runtime
}  // namespace executorch
