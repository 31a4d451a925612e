/*
 * Operators of upstream's portable set this runtime registers only to
 * refuse them by name, with Error::NotSupported (listed, with the reason, in
 * test/kernels/op_not_supported.txt): training-only backward ops, copies
 * between host and device memory (this runtime has only CPU memory), and
 * view_as_real_copy (there is no complex dtype to view). A program that
 * uses one fails at that instruction with a log naming the operator, rather
 * than at load time with a missing operator.
 */
#include <optional>
#include <tuple>

#include <executorch/runtime/kernels/detail/kernel_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(convolution_backward_out_name, "aten::convolution_backward.out");
ET_DEFINE_OPERATOR_NAME(max_pool2d_backward_name,
                        "aten::max_pool2d_with_indices_backward.grad_input");
ET_DEFINE_OPERATOR_NAME(h2d_copy_out_name, "et_copy::_h2d_copy.out");
ET_DEFINE_OPERATOR_NAME(d2h_copy_out_name, "et_copy::_d2h_copy.out");
ET_DEFINE_OPERATOR_NAME(view_as_real_copy_out_name, "aten::view_as_real_copy.out");

void refuse(KernelRuntimeContext& ctx, const char* op, const char* why) {
  ET_LOG(Error, "%s: not supported: %s", op, why);
  ctx.fail(Error::NotSupported);
}

constexpr const char* kTraining = "a training (backward) operator; this runtime runs inference";
constexpr const char* kDevice = "this runtime has no device memory to copy to or from";

std::tuple<Tensor&, Tensor&, Tensor&> convolution_backward_out(
    KernelRuntimeContext& ctx, const Tensor&, const Tensor&, const Tensor&,
    std::optional<ArrayRef<int64_t>>, ArrayRef<int64_t>, ArrayRef<int64_t>, ArrayRef<int64_t>, bool,
    ArrayRef<int64_t>, int64_t, ArrayRef<bool>, Tensor& out0, Tensor& out1, Tensor& out2) {
  refuse(ctx, log_name(convolution_backward_out_name), kTraining);
  return {out0, out1, out2};
}

Tensor& max_pool2d_backward(KernelRuntimeContext& ctx, const Tensor&, const Tensor&,
                            ArrayRef<int64_t>, ArrayRef<int64_t>, ArrayRef<int64_t>,
                            ArrayRef<int64_t>, bool, const Tensor&, Tensor& grad_input) {
  refuse(ctx, log_name(max_pool2d_backward_name), kTraining);
  return grad_input;
}

Tensor& h2d_copy_out(KernelRuntimeContext& ctx, const Tensor&, Tensor& out) {
  refuse(ctx, log_name(h2d_copy_out_name), kDevice);
  return out;
}

Tensor& d2h_copy_out(KernelRuntimeContext& ctx, const Tensor&, Tensor& out) {
  refuse(ctx, log_name(d2h_copy_out_name), kDevice);
  return out;
}

Tensor& view_as_real_copy_out(KernelRuntimeContext& ctx, const Tensor&, Tensor& out) {
  refuse(ctx, log_name(view_as_real_copy_out_name),
         "it needs a complex input and this runtime has no complex dtypes");
  return out;
}

ETK_REGISTER_KERNEL(convolution_backward_out_name, convolution_backward_out);
ETK_REGISTER_KERNEL(max_pool2d_backward_name, max_pool2d_backward);
ETK_REGISTER_KERNEL(h2d_copy_out_name, h2d_copy_out);
ETK_REGISTER_KERNEL(d2h_copy_out_name, d2h_copy_out);
ETK_REGISTER_KERNEL(view_as_real_copy_out_name, view_as_real_copy_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
