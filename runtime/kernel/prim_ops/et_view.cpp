/*
 * executorch_prim::et_view.default: a zero-copy reshape emitted by the
 * exporter for view ops.
 */
#include <executorch/runtime/kernel/prim_ops/detail/prim_ops.h>

#include <cstdint>

#include <executorch/runtime/core/exec_aten/util/tensor_dimension_limit.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {
namespace prim_ops {

using executorch::aten::SizesType;
using executorch::aten::Tensor;

void et_view(KernelRuntimeContext& context, Span<EValue*> args) {
  if (args.size() != 3) {
    ET_LOG(Error, "et_view: expected 3 arguments, got %zu", args.size());
    context.fail(Error::InvalidProgram);
    return;
  }
  if (!args[0]->isTensor() || !args[1]->isIntList() || !args[2]->isTensor()) {
    ET_LOG(Error, "et_view: expected (Tensor, int[], Tensor)");
    context.fail(Error::InvalidType);
    return;
  }
  Tensor self = args[0]->toTensor();
  Tensor out = args[2]->toTensor();
  Result<executorch::aten::ArrayRef<int64_t>> size_r = args[1]->tryToIntList();
  if (!size_r.ok()) {
    ET_LOG(Error, "et_view: the size list holds a non-int value");
    context.fail(Error::InvalidType);
    return;
  }
  executorch::aten::ArrayRef<int64_t> size = size_r.get();

  if (self.scalar_type() != out.scalar_type()) {
    ET_LOG(Error, "et_view: self and out dtypes differ");
    context.fail(Error::InvalidArgument);
    return;
  }
  const size_t rank = static_cast<size_t>(out.dim());
  if (size.size() != rank || rank > kTensorDimensionLimit) {
    ET_LOG(
        Error,
        "et_view: %zu sizes given for an output of rank %zu",
        size.size(),
        rank);
    context.fail(Error::InvalidArgument);
    return;
  }
  SizesType new_sizes[kTensorDimensionLimit];
  int64_t known = 1;
  size_t infer_dim = rank;
  bool has_zero = false;
  for (size_t i = 0; i < rank; ++i) {
    const int64_t s = size[i];
    if (s == -1) {
      if (infer_dim != rank) {
        ET_LOG(Error, "et_view: more than one -1 in the view shape");
        context.fail(Error::InvalidArgument);
        return;
      }
      infer_dim = i;
      new_sizes[i] = 0;
      continue;
    }
    if (s < 0 || s > INT32_MAX || __builtin_mul_overflow(known, s, &known)) {
      ET_LOG(
          Error, "et_view: invalid view size %lld", static_cast<long long>(s));
      context.fail(Error::InvalidArgument);
      return;
    }
    has_zero = has_zero || s == 0;
    new_sizes[i] = static_cast<SizesType>(s);
  }
  if (infer_dim != rank) {
    if (has_zero || known == 0) {
      ET_LOG(Error, "et_view: cannot infer a -1 size next to a zero size");
      context.fail(Error::InvalidArgument);
      return;
    }
    const int64_t inferred = static_cast<int64_t>(self.numel()) / known;
    if (inferred > INT32_MAX) {
      context.fail(Error::InvalidArgument);
      return;
    }
    new_sizes[infer_dim] = static_cast<SizesType>(inferred);
  }
  Error err = resize_tensor(out, {new_sizes, rank});
  if (err != Error::Ok) {
    ET_LOG(Error, "et_view: the output cannot take the view shape");
    context.fail(Error::Internal);
    return;
  }
  if (self.numel() != out.numel()) {
    ET_LOG(
        Error,
        "et_view: self has %zd elements, the view %zd",
        static_cast<ssize_t>(self.numel()),
        static_cast<ssize_t>(out.numel()));
    context.fail(Error::InvalidArgument);
    return;
  }
  out.unsafeGetTensorImpl()->set_data(self.mutable_data_ptr());
}

}  // namespace prim_ops
}  // namespace runtime
}  // namespace executorch
