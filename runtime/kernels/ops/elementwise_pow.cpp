/*
 * pow.Tensor_Scalar_out: self ** exponent with PyTorch's promotion (an
 * integer tensor with an integer exponent stays integral) and the usual
 * exact fast cases (x*x for 2, sqrt for 0.5, ...).
 */
#include <cmath>

#include <executorch/runtime/kernels/detail/helpers.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(pow_tensor_scalar_out_name, "aten::pow.Tensor_Scalar_out");

int64_t int_pow(int64_t base, int64_t exp) {
  int64_t result = 1;
  while (exp > 0) {
    if (exp & 1) {
      result = wrap_mul(result, base);
    }
    base = wrap_mul(base, base);
    exp >>= 1;
  }
  return result;
}

Tensor& pow_tensor_scalar_out(KernelRuntimeContext& ctx, const Tensor& in, const Scalar& exponent,
                              Tensor& out) {
  const char* op = log_name(pow_tensor_scalar_out_name);
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBBF16) ||
      !check_dtype_in(ctx, op, "out", out, dtypes::kRealHBF16)) {
    return out;
  }
  ScalarType common = promote_with_scalar(in.scalar_type(), exponent);
  if (common == ScalarType::Bool) {
    common = ScalarType::Long;  // bool ** bool computes in integers
  }
  if (!check_can_cast(ctx, op, common, "out", out) || !resize_out_like(ctx, op, out, in)) {
    return out;
  }
  dispatch_dtype<dtypes::kFloat | dtype_bit(ScalarType::Long)>(
      ctx, op, compute_type(common), [&](auto tag) {
        using CT = typename decltype(tag)::type;
        if constexpr (std::is_same<CT, int64_t>::value) {
          const int64_t e = exponent.to<int64_t>();
          ET_KERNEL_CHECK_MSG(
              ctx, e >= 0, InvalidArgument, ,
              "%s: integers to negative integer powers are not allowed (argument 'exponent')", op);
          apply_unary<CT>(ctx, op, in, out, [e](CT x) -> CT { return int_pow(x, e); });
        } else {
          const CT e = scalar_to<CT>(exponent);
          if (e == CT(2)) {
            apply_unary<CT>(ctx, op, in, out, [](CT x) -> CT { return x * x; });
          } else if (e == CT(3)) {
            apply_unary<CT>(ctx, op, in, out, [](CT x) -> CT { return x * x * x; });
          } else if (e == CT(1)) {
            apply_unary<CT>(ctx, op, in, out, [](CT x) -> CT { return x; });
          } else if (e == CT(0.5)) {
            apply_unary<CT>(ctx, op, in, out, [](CT x) -> CT { return std::sqrt(x); });
          } else if (e == CT(-0.5)) {
            apply_unary<CT>(ctx, op, in, out, [](CT x) -> CT { return CT(1) / std::sqrt(x); });
          } else if (e == CT(-1)) {
            apply_unary<CT>(ctx, op, in, out, [](CT x) -> CT { return CT(1) / x; });
          } else if (e == CT(-2)) {
            apply_unary<CT>(ctx, op, in, out, [](CT x) -> CT { return CT(1) / (x * x); });
          } else {
            apply_unary<CT>(ctx, op, in, out, [e](CT x) -> CT { return std::pow(x, e); });
          }
        }
      });
  return out;
}

ETK_REGISTER_KERNEL(pow_tensor_scalar_out_name, pow_tensor_scalar_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
