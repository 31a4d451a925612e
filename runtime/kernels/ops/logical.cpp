/*
 * Logical ops: logical_not/and/or/xor (any input dtype, nonzero is true; out
 * any dtype). bitwise_and/or/xor live in elementwise_binary_more.cpp.
 */
#include <executorch/runtime/kernels/detail/helpers.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(logical_not_out_name, "aten::logical_not.out");
ET_DEFINE_OPERATOR_NAME(logical_and_out_name, "aten::logical_and.out");
ET_DEFINE_OPERATOR_NAME(logical_or_out_name, "aten::logical_or.out");
ET_DEFINE_OPERATOR_NAME(logical_xor_out_name, "aten::logical_xor.out");

Tensor& logical_not_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  const char* op = log_name(logical_not_out_name);
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBBF16) ||
      !check_dtype_in(ctx, op, "out", out, dtypes::kRealHBBF16) ||
      !resize_out_like(ctx, op, out, in)) {
    return out;
  }
  apply_unary<bool>(ctx, op, in, out, [](bool x) { return !x; });
  return out;
}

template <class F>
Tensor& logical_binary(const char* op, KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b,
                       Tensor& out, F fn) {
  if (!check_dtype_in(ctx, op, "self", a, dtypes::kRealHBBF16) ||
      !check_dtype_in(ctx, op, "other", b, dtypes::kRealHBBF16) ||
      !check_dtype_in(ctx, op, "out", out, dtypes::kRealHBBF16) ||
      !resize_out_to_broadcast(ctx, op, out, {&a, &b}, {"self", "other"})) {
    return out;
  }
  apply_binary<bool>(ctx, op, a, b, out, fn);
  return out;
}

Tensor& logical_and_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, Tensor& out) {
  return logical_binary(log_name(logical_and_out_name), ctx, a, b, out,
                        [](bool x, bool y) { return x && y; });
}
Tensor& logical_or_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, Tensor& out) {
  return logical_binary(log_name(logical_or_out_name), ctx, a, b, out,
                        [](bool x, bool y) { return x || y; });
}
Tensor& logical_xor_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, Tensor& out) {
  return logical_binary(log_name(logical_xor_out_name), ctx, a, b, out,
                        [](bool x, bool y) { return x != y; });
}

ETK_REGISTER_KERNEL(logical_not_out_name, logical_not_out);
ETK_REGISTER_KERNEL(logical_and_out_name, logical_and_out);
ETK_REGISTER_KERNEL(logical_or_out_name, logical_or_out);
ETK_REGISTER_KERNEL(logical_xor_out_name, logical_xor_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
