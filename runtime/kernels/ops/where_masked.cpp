/*
 * where.self_out (three-way broadcast; condition Bool or Byte) and
 * masked_fill.Scalar_out.
 */
#include <executorch/runtime/kernels/detail/helpers.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(where_out_name, "aten::where.self_out");
ET_DEFINE_OPERATOR_NAME(masked_fill_scalar_out_name, "aten::masked_fill.Scalar_out");

constexpr DtypeSet kCond = dtypes::kBool | dtypes::kByte;
constexpr DtypeSet kWhereCompute = dtypes::kFloat | dtype_bit(ScalarType::Long) | dtypes::kBool;

Tensor& where_out(KernelRuntimeContext& ctx, const Tensor& cond, const Tensor& a, const Tensor& b,
                  Tensor& out) {
  const char* op = log_name(where_out_name);
  ScalarType common;
  if (!check_dtype_in(ctx, op, "condition", cond, kCond) ||
      !check_dtype_in(ctx, op, "self", a, dtypes::kRealHBBF16) ||
      !check_dtype_in(ctx, op, "other", b, dtypes::kRealHBBF16) ||
      !check_dtype_in(ctx, op, "out", out, dtypes::kRealHBBF16)) {
    return out;
  }
  common = ::executorch::runtime::promoteTypes(a.scalar_type(), b.scalar_type());
  if (!check_can_cast(ctx, op, common, "out", out) ||
      !resize_out_to_broadcast(ctx, op, out, {&cond, &a, &b}, {"condition", "self", "other"})) {
    return out;
  }
  // Same dtype everywhere: select raw values without conversion.
  if (a.scalar_type() == out.scalar_type() && b.scalar_type() == out.scalar_type() &&
      cond.scalar_type() == ScalarType::Bool) {
    if (out.element_size() == 1) {
      apply_ternary<bool, uint8_t, uint8_t>(ctx, op, cond, a, b, out,
                                            [](bool c, uint8_t x, uint8_t y) { return c ? x : y; });
      return out;
    }
  }
  if (out.scalar_type() == ScalarType::Float && a.scalar_type() == ScalarType::Float &&
      b.scalar_type() == ScalarType::Float && cond.scalar_type() == ScalarType::Bool) {
    apply_ternary<bool, float, float>(ctx, op, cond, a, b, out,
                                      [](bool c, float x, float y) { return c ? x : y; });
    return out;
  }
  dispatch_dtype<kWhereCompute>(ctx, op, compute_type(common), [&](auto tag) {
    using CT = typename decltype(tag)::type;
    apply_ternary<bool, CT, CT>(ctx, op, cond, a, b, out,
                                [](bool c, CT x, CT y) -> CT { return c ? x : y; });
  });
  return out;
}

Tensor& masked_fill_scalar_out(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& mask,
                               const Scalar& value, Tensor& out) {
  const char* op = log_name(masked_fill_scalar_out_name);
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBBF16) ||
      !check_dtype(ctx, op, "mask", mask, ScalarType::Bool) ||
      !check_same_dtype(ctx, op, "self", in, "out", out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, broadcastable_to(mask.sizes(), in.sizes()), InvalidArgument, out,
                      "%s: argument 'mask' does not broadcast to 'self'", op);
  if (!resize_out_like(ctx, op, out, in)) {
    return out;
  }
  dispatch_dtype<kWhereCompute>(ctx, op, compute_type(in.scalar_type()), [&](auto tag) {
    using CT = typename decltype(tag)::type;
    const CT v = scalar_to<CT>(value);
    apply_binary<CT>(ctx, op, in, mask, out, [v](CT x, CT m) -> CT { return m ? v : x; });
  });
  return out;
}

ETK_REGISTER_KERNEL(where_out_name, where_out);
ETK_REGISTER_KERNEL(masked_fill_scalar_out_name, masked_fill_scalar_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
