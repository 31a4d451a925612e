/*
 * Logical and bitwise ops: logical_not/and/or/xor (any input dtype, nonzero
 * is true; out any dtype), bitwise_and/or/xor (integer and bool inputs).
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

template <class F>
Tensor& bitwise_tensor(const char* op, KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b,
                       Tensor& out, F fn) {
  ScalarType common;
  if (!prepare_binary(ctx, op, a, b, out, dtypes::kIntB, &common)) {
    return out;
  }
  dispatch_dtype<dtype_bit(ScalarType::Long) | dtypes::kBool>(
      ctx, op, compute_type(common), [&](auto tag) {
        using CT = typename decltype(tag)::type;
        apply_binary<CT>(ctx, op, a, b, out, [fn](CT x, CT y) -> CT { return fn(x, y); });
      });
  return out;
}

template <class F>
Tensor& bitwise_scalar(const char* op, KernelRuntimeContext& ctx, const Tensor& a, const Scalar& b,
                       Tensor& out, F fn) {
  if (!check_dtype_in(ctx, op, "self", a, dtypes::kIntB) ||
      !check_dtype_in(ctx, op, "out", out, dtypes::kIntB)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, !b.isFloatingPoint(), InvalidArgument, out,
                      "%s: argument 'other' must be an integer or bool", op);
  const ScalarType common = promote_with_scalar(a.scalar_type(), b);
  if (!check_can_cast(ctx, op, common, "out", out) || !resize_out_like(ctx, op, out, a)) {
    return out;
  }
  dispatch_dtype<dtype_bit(ScalarType::Long) | dtypes::kBool>(
      ctx, op, compute_type(common), [&](auto tag) {
        using CT = typename decltype(tag)::type;
        const CT v = scalar_to<CT>(b);
        apply_unary<CT>(ctx, op, a, out, [fn, v](CT x) -> CT { return fn(x, v); });
      });
  return out;
}

#define ETK_BITWISE_OPS(name, expr)                                                       \
  ET_DEFINE_OPERATOR_NAME(name##_tensor_out_name, "aten::" #name ".Tensor_out");          \
  ET_DEFINE_OPERATOR_NAME(name##_scalar_out_name, "aten::" #name ".Scalar_out");          \
  Tensor& name##_tensor_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b,  \
                            Tensor& out) {                                                \
    return bitwise_tensor(log_name(name##_tensor_out_name), ctx, a, b, out,               \
                          [](auto x, auto y) { return static_cast<decltype(x)>(expr); }); \
  }                                                                                       \
  Tensor& name##_scalar_out(KernelRuntimeContext& ctx, const Tensor& a, const Scalar& b,  \
                            Tensor& out) {                                                \
    return bitwise_scalar(log_name(name##_scalar_out_name), ctx, a, b, out,               \
                          [](auto x, auto y) { return static_cast<decltype(x)>(expr); }); \
  }                                                                                       \
  ETK_REGISTER_KERNEL(name##_tensor_out_name, name##_tensor_out);                         \
  ETK_REGISTER_KERNEL(name##_scalar_out_name, name##_scalar_out);

ETK_BITWISE_OPS(bitwise_and, x& y)
ETK_BITWISE_OPS(bitwise_or, x | y)
ETK_BITWISE_OPS(bitwise_xor, x ^ y)

#undef ETK_BITWISE_OPS

ETK_REGISTER_KERNEL(logical_not_out_name, logical_not_out);
ETK_REGISTER_KERNEL(logical_and_out_name, logical_and_out);
ETK_REGISTER_KERNEL(logical_or_out_name, logical_or_out);
ETK_REGISTER_KERNEL(logical_xor_out_name, logical_xor_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
