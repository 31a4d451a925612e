/*
 * pow.Tensor_Scalar_out, pow.Tensor_Tensor_out and pow.Scalar_out:
 * self ** exponent with PyTorch's promotion (integers stay integral) and the
 * usual exact fast cases for a Scalar exponent (x*x for 2, sqrt for 0.5, ...).
 */
#include <cmath>

#include <executorch/runtime/kernels/detail/helpers.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(pow_tensor_scalar_out_name, "aten::pow.Tensor_Scalar_out");
ET_DEFINE_OPERATOR_NAME(pow_tensor_tensor_out_name, "aten::pow.Tensor_Tensor_out");
ET_DEFINE_OPERATOR_NAME(pow_scalar_out_name, "aten::pow.Scalar_out");

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

/*
 * An integer power with any exponent, as PyTorch computes it for tensor
 * exponents: a negative one gives 1 for base 1, +-1 for base -1, else 0.
 */
int64_t int_pow_signed(int64_t base, int64_t exp) {
  if (exp >= 0) {
    return int_pow(base, exp);
  }
  if (base == 1) {
    return 1;
  }
  if (base == -1) {
    return (exp & 1) != 0 ? -1 : 1;
  }
  return 0;
}

// Runs x ** y in the compute type of `common` (bool computes in int64).
template <class Apply>
void run_pow(KernelRuntimeContext& ctx, const char* op, ScalarType common, Apply&& apply) {
  const ScalarType ct = common == ScalarType::Bool ? ScalarType::Long : compute_type(common);
  dispatch_dtype<dtypes::kFloat | dtype_bit(ScalarType::Long)>(ctx, op, ct, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    if constexpr (std::is_same<CT, int64_t>::value) {
      apply(tag, [](CT x, CT y) -> CT { return int_pow_signed(x, y); });
    } else {
      apply(tag, [](CT x, CT y) -> CT { return std::pow(x, y); });
    }
  });
}

Tensor& pow_tensor_tensor_out(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& exponent,
                              Tensor& out) {
  const char* op = log_name(pow_tensor_tensor_out_name);
  ScalarType common;
  if (!prepare_binary(ctx, op, in, exponent, out, dtypes::kRealHBBF16, &common)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() != ScalarType::Bool, InvalidArgument, out,
                      "%s: argument 'out' cannot be bool", op);
  run_pow(ctx, op, common, [&](auto tag, auto fn) {
    using CT = typename decltype(tag)::type;
    apply_binary_common<CT>(ctx, op, in, exponent, out, common, fn);
  });
  return out;
}

// pow.Scalar_out(self: Scalar, exponent: Tensor): the Scalar base to every exponent.
Tensor& pow_scalar_out(KernelRuntimeContext& ctx, const Scalar& base, const Tensor& exponent,
                       Tensor& out) {
  const char* op = log_name(pow_scalar_out_name);
  if (!check_dtype_in(ctx, op, "exponent", exponent, dtypes::kRealHBBF16) ||
      !check_dtype_in(ctx, op, "out", out, dtypes::kRealHBF16)) {
    return out;
  }
  const ScalarType common = promote_with_scalar(exponent.scalar_type(), base);
  if (!check_can_cast(ctx, op, common, "out", out) || !resize_out_like(ctx, op, out, exponent)) {
    return out;
  }
  run_pow(ctx, op, common, [&](auto tag, auto fn) {
    using CT = typename decltype(tag)::type;
    const CT b = scalar_to<CT>(base);
    apply_unary_common<CT>(ctx, op, exponent, out, common,
                           [fn, b](CT y) mutable -> CT { return fn(b, y); });
  });
  return out;
}

ETK_REGISTER_KERNEL(pow_tensor_scalar_out_name, pow_tensor_scalar_out);
ETK_REGISTER_KERNEL(pow_tensor_tensor_out_name, pow_tensor_tensor_out);
ETK_REGISTER_KERNEL(pow_scalar_out_name, pow_scalar_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
