/*
 * Rounding and classification: floor, ceil, trunc, round (half to even)
 * and sign keep self's dtype (integers pass through unchanged); bitwise_not
 * of integers and bool; isnan and isinf give a Bool out; logit with its
 * optional eps clamp gives a floating out.
 */
#include <cmath>
#include <optional>

#include <executorch/runtime/kernels/detail/helpers.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(floor_out_name, "aten::floor.out");
ET_DEFINE_OPERATOR_NAME(ceil_out_name, "aten::ceil.out");
ET_DEFINE_OPERATOR_NAME(trunc_out_name, "aten::trunc.out");
ET_DEFINE_OPERATOR_NAME(round_out_name, "aten::round.out");
ET_DEFINE_OPERATOR_NAME(sign_out_name, "aten::sign.out");
ET_DEFINE_OPERATOR_NAME(bitwise_not_out_name, "aten::bitwise_not.out");
ET_DEFINE_OPERATOR_NAME(isnan_out_name, "aten::isnan.out");
ET_DEFINE_OPERATOR_NAME(isinf_out_name, "aten::isinf.out");
ET_DEFINE_OPERATOR_NAME(logit_out_name, "aten::logit.out");

/*
 * out = fn(self) in self's dtype (out must have it too), computing in
 * self's compute type; fn maps CT to CT.
 */
template <DtypeSet kAllowed, class F>
Tensor& same_dtype(const char* op, KernelRuntimeContext& ctx, const Tensor& in, Tensor& out, F fn) {
  if (!check_dtype_in(ctx, op, "self", in, kAllowed) ||
      !check_same_dtype(ctx, op, "self", in, "out", out) || !resize_out_like(ctx, op, out, in)) {
    return out;
  }
  dispatch_dtype<dtypes::kFloat | dtype_bit(ScalarType::Long) | dtypes::kBool>(
      ctx, op, compute_type(in.scalar_type()), [&](auto tag) {
        using CT = typename decltype(tag)::type;
        apply_unary<CT>(ctx, op, in, out, [fn](CT x) -> CT { return fn(x); });
      });
  return out;
}

// Rounding of floating values; integers are already whole.
#define ETK_ROUNDING(name, fn)                                                                  \
  Tensor& name##_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {                \
    return same_dtype<dtypes::kRealHBF16>(log_name(name##_out_name), ctx, in, out, [](auto x) { \
      using T = decltype(x);                                                                    \
      if constexpr (std::is_floating_point<T>()) {                                              \
        return T(fn(x));                                                                        \
      } else {                                                                                  \
        return x;                                                                               \
      }                                                                                         \
    });                                                                                         \
  }                                                                                             \
  ETK_REGISTER_KERNEL(name##_out_name, name##_out);

ETK_ROUNDING(floor, std::floor)
ETK_ROUNDING(ceil, std::ceil)
ETK_ROUNDING(trunc, std::trunc)
// nearbyint in the default rounding mode rounds halves to even, as PyTorch does.
ETK_ROUNDING(round, std::nearbyint)
#undef ETK_ROUNDING

// sign: -1, 0 or 1 (NaN gives 0, as in PyTorch; bool is its own sign).
Tensor& sign_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  return same_dtype<dtypes::kRealHBBF16>(log_name(sign_out_name), ctx, in, out, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_same<T, bool>::value) {
      return x;
    } else {
      return T((T(0) < x) - (x < T(0)));
    }
  });
}

Tensor& bitwise_not_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  return same_dtype<dtypes::kIntB>(log_name(bitwise_not_out_name), ctx, in, out, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_same<T, bool>::value) {
      return !x;
    } else if constexpr (std::is_integral<T>::value) {
      return T(~x);
    } else {
      return x;  // not instantiated for floating dtypes (kIntB)
    }
  });
}

// isnan / isinf: out is Bool; integers and bool are never NaN or infinite.
template <class F>
Tensor& classify(const char* op, KernelRuntimeContext& ctx, const Tensor& in, Tensor& out, F fn) {
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBBF16) ||
      !check_dtype(ctx, op, "out", out, ScalarType::Bool) || !resize_out_like(ctx, op, out, in)) {
    return out;
  }
  const ScalarType ct =
      in.scalar_type() == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
  dispatch_dtype<dtypes::kFloat>(ctx, op, ct, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    apply_unary<CT>(ctx, op, in, out, [fn](CT x) -> bool { return fn(x); });
  });
  return out;
}

Tensor& isnan_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  return classify(log_name(isnan_out_name), ctx, in, out, [](auto x) { return std::isnan(x); });
}

Tensor& isinf_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  return classify(log_name(isinf_out_name), ctx, in, out, [](auto x) { return std::isinf(x); });
}

// logit(x) = log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given.
Tensor& logit_out(KernelRuntimeContext& ctx, const Tensor& in, std::optional<double> eps,
                  Tensor& out) {
  const char* op = log_name(logit_out_name);
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBBF16) ||
      !check_dtype_in(ctx, op, "out", out, dtypes::kFloatHBF16) ||
      !resize_out_like(ctx, op, out, in)) {
    return out;
  }
  const bool wide =
      in.scalar_type() == ScalarType::Double || out.scalar_type() == ScalarType::Double;
  dispatch_dtype<dtypes::kFloat>(
      ctx, op, wide ? ScalarType::Double : ScalarType::Float, [&](auto tag) {
        using CT = typename decltype(tag)::type;
        const bool clamp = eps.has_value() && *eps >= 0;  // PyTorch ignores a negative eps
        const CT lo = clamp ? static_cast<CT>(*eps) : CT(0);
        const CT hi = CT(1) - lo;
        apply_unary<CT>(ctx, op, in, out, [clamp, lo, hi](CT x) -> CT {
          if (clamp) {
            x = x < lo ? lo : (x > hi ? hi : x);
          }
          return std::log(x / (CT(1) - x));
        });
      });
  return out;
}

ETK_REGISTER_KERNEL(sign_out_name, sign_out);
ETK_REGISTER_KERNEL(bitwise_not_out_name, bitwise_not_out);
ETK_REGISTER_KERNEL(isnan_out_name, isnan_out);
ETK_REGISTER_KERNEL(isinf_out_name, isinf_out);
ETK_REGISTER_KERNEL(logit_out_name, logit_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
