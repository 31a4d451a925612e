/*
 * Activations and clamping: relu, hardtanh, clamp (Scalar and Tensor
 * bounds), gelu (approximate "none" and "tanh"), silu, leaky_relu.
 */
#include <cmath>

#include <executorch/runtime/kernels/detail/helpers.h>
#include <executorch/runtime/kernels/detail/vec_unary.h>
#include <executorch/runtime/kernels/detail/vec_math.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(relu_out_name, "aten::relu.out");
ET_DEFINE_OPERATOR_NAME(hardtanh_out_name, "aten::hardtanh.out");
ET_DEFINE_OPERATOR_NAME(clamp_out_name, "aten::clamp.out");
ET_DEFINE_OPERATOR_NAME(clamp_tensor_out_name, "aten::clamp.Tensor_out");
ET_DEFINE_OPERATOR_NAME(gelu_out_name, "aten::gelu.out");
ET_DEFINE_OPERATOR_NAME(silu_out_name, "aten::silu.out");
ET_DEFINE_OPERATOR_NAME(leaky_relu_out_name, "aten::leaky_relu.out");

using std::optional;
using std::string_view;

// NaN-propagating max/min against a bound.
template <class T>
inline T lower_bound(T x, T lo) {
  return x < lo ? lo : x;
}
template <class T>
inline T upper_bound(T x, T hi) {
  return x > hi ? hi : x;
}

Tensor& relu_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  const char* op = log_name(relu_out_name);
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBF16) ||
      !check_same_dtype(ctx, op, "self", in, "out", out) || !resize_out_like(ctx, op, out, in)) {
    return out;
  }
  dispatch_dtype<dtypes::kFloat | dtype_bit(ScalarType::Long)>(
      ctx, op, compute_type(in.scalar_type()), [&](auto tag) {
        using CT = typename decltype(tag)::type;
        apply_unary<CT>(ctx, op, in, out, [](CT x) -> CT { return lower_bound(x, CT(0)); });
      });
  return out;
}

Tensor& hardtanh_out(KernelRuntimeContext& ctx, const Tensor& in, const Scalar& min_val,
                     const Scalar& max_val, Tensor& out) {
  const char* op = log_name(hardtanh_out_name);
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBF16) ||
      !check_same_dtype(ctx, op, "self", in, "out", out) || !resize_out_like(ctx, op, out, in)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, scalar_fits(min_val, in.scalar_type()), InvalidArgument, out,
                      "%s: argument 'min_val' is not representable in %s", op,
                      dtype_name(in.scalar_type()));
  ET_KERNEL_CHECK_MSG(ctx, scalar_fits(max_val, in.scalar_type()), InvalidArgument, out,
                      "%s: argument 'max_val' is not representable in %s", op,
                      dtype_name(in.scalar_type()));
  dispatch_dtype<dtypes::kFloat | dtype_bit(ScalarType::Long)>(
      ctx, op, compute_type(in.scalar_type()), [&](auto tag) {
        using CT = typename decltype(tag)::type;
        const CT lo = scalar_to<CT>(min_val);
        const CT hi = scalar_to<CT>(max_val);
        apply_unary<CT>(ctx, op, in, out,
                        [lo, hi](CT x) -> CT { return upper_bound(lower_bound(x, lo), hi); });
      });
  return out;
}

Tensor& clamp_out(KernelRuntimeContext& ctx, const Tensor& in, const optional<Scalar>& min,
                  const optional<Scalar>& max, Tensor& out) {
  const char* op = log_name(clamp_out_name);
  ET_KERNEL_CHECK_MSG(ctx, min.has_value() || max.has_value(), InvalidArgument, out,
                      "%s: at least one of 'min' and 'max' must be given", op);
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBF16) ||
      !check_dtype_in(ctx, op, "out", out, dtypes::kRealHBF16)) {
    return out;
  }
  ScalarType common = in.scalar_type();
  if (min.has_value()) {
    common = promote_with_scalar(common, *min);
  }
  if (max.has_value()) {
    common = promote_with_scalar(common, *max);
  }
  if (!check_can_cast(ctx, op, common, "out", out) || !resize_out_like(ctx, op, out, in)) {
    return out;
  }
  dispatch_dtype<dtypes::kFloat | dtype_bit(ScalarType::Long)>(
      ctx, op, compute_type(common), [&](auto tag) {
        using CT = typename decltype(tag)::type;
        if (min.has_value() && max.has_value()) {
          const CT lo = scalar_to<CT>(*min);
          const CT hi = scalar_to<CT>(*max);
          apply_unary<CT>(ctx, op, in, out,
                          [lo, hi](CT x) -> CT { return upper_bound(lower_bound(x, lo), hi); });
        } else if (min.has_value()) {
          const CT lo = scalar_to<CT>(*min);
          apply_unary<CT>(ctx, op, in, out, [lo](CT x) -> CT { return lower_bound(x, lo); });
        } else {
          const CT hi = scalar_to<CT>(*max);
          apply_unary<CT>(ctx, op, in, out, [hi](CT x) -> CT { return upper_bound(x, hi); });
        }
      });
  return out;
}

Tensor& clamp_tensor_out(KernelRuntimeContext& ctx, const Tensor& in, const optional<Tensor>& min,
                         const optional<Tensor>& max, Tensor& out) {
  const char* op = log_name(clamp_tensor_out_name);
  ET_KERNEL_CHECK_MSG(ctx, min.has_value() || max.has_value(), InvalidArgument, out,
                      "%s: at least one of 'min' and 'max' must be given", op);
  const Tensor& lo_t = min.has_value() ? *min : in;
  const Tensor& hi_t = max.has_value() ? *max : in;
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBF16) ||
      !check_dtype_in(ctx, op, "min", lo_t, dtypes::kRealHBF16) ||
      !check_dtype_in(ctx, op, "max", hi_t, dtypes::kRealHBF16) ||
      !check_dtype_in(ctx, op, "out", out, dtypes::kRealHBF16)) {
    return out;
  }
  using ::executorch::runtime::promoteTypes;
  const ScalarType common =
      promoteTypes(promoteTypes(in.scalar_type(), lo_t.scalar_type()), hi_t.scalar_type());
  if (!check_can_cast(ctx, op, common, "out", out) ||
      !resize_out_to_broadcast(ctx, op, out, {&in, &lo_t, &hi_t}, {"self", "min", "max"})) {
    return out;
  }
  const bool has_lo = min.has_value();
  const bool has_hi = max.has_value();
  dispatch_dtype<dtypes::kFloat | dtype_bit(ScalarType::Long)>(
      ctx, op, compute_type(common), [&](auto tag) {
        using CT = typename decltype(tag)::type;
        apply_ternary<CT, CT, CT>(ctx, op, in, lo_t, hi_t, out,
                                  [has_lo, has_hi](CT x, CT lo, CT hi) -> CT {
                                    if (has_lo) {
                                      x = lower_bound(x, lo);
                                    }
                                    if (has_hi) {
                                      x = upper_bound(x, hi);
                                    }
                                    return x;
                                  });
      });
  return out;
}

template <class F>
Tensor& float_activation(const char* op, KernelRuntimeContext& ctx, const Tensor& in, Tensor& out,
                         F fn, VecUnaryFn vec = nullptr) {
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kFloatHBF16) ||
      !check_same_dtype(ctx, op, "self", in, "out", out) || !resize_out_like(ctx, op, out, in)) {
    return out;
  }
  // Float in and out with one layout: the compute core's vector routine.
  if (run_float_vector(in, out, vec)) {
    return out;
  }
  dispatch_dtype<dtypes::kFloat>(ctx, op, compute_type(in.scalar_type()), [&](auto tag) {
    using CT = typename decltype(tag)::type;
    apply_unary<CT>(ctx, op, in, out, [fn](CT x) { return fn(x); });
  });
  return out;
}

Tensor& gelu_out(KernelRuntimeContext& ctx, const Tensor& in, string_view approximate,
                 Tensor& out) {
  const char* op = log_name(gelu_out_name);
  if (approximate == "tanh") {
    return float_activation(
        op, ctx, in, out,
        [](auto x) {
          using T = decltype(x);
          const T kBeta = T(0.7978845608028654);  // sqrt(2 / pi)
          const T kKappa = T(0.044715);
          const T inner = kBeta * (x + kKappa * x * x * x);
          return T(0.5) * x * (T(1) + std::tanh(inner));
        },
        compute::vmath().gelu_tanh);
  }
  ET_KERNEL_CHECK_MSG(ctx, approximate == "none", InvalidArgument, out,
                      "%s: argument 'approximate' must be \"none\" or \"tanh\"", op);
  return float_activation(
      op, ctx, in, out,
      [](auto x) {
        using T = decltype(x);
        const T kAlpha = T(0.7071067811865476);  // 1 / sqrt(2)
        return T(0.5) * x * (T(1) + std::erf(x * kAlpha));
      },
      compute::vmath().gelu);
}

Tensor& silu_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  return float_activation(
      log_name(silu_out_name), ctx, in, out,
      [](auto x) {
        using T = decltype(x);
        if constexpr (std::is_same<T, float>::value) {
          return x / (1.0f + exp_f32(-x));
        } else {
          return x / (T(1) + std::exp(-x));
        }
      },
      compute::vmath().silu);
}

Tensor& leaky_relu_out(KernelRuntimeContext& ctx, const Tensor& in, const Scalar& slope,
                       Tensor& out) {
  const double s = slope.to<double>();
  return float_activation(log_name(leaky_relu_out_name), ctx, in, out, [s](auto x) {
    using T = decltype(x);
    return x > T(0) ? x : x * static_cast<T>(s);
  });
}

ETK_REGISTER_KERNEL(relu_out_name, relu_out);
ETK_REGISTER_KERNEL(hardtanh_out_name, hardtanh_out);
ETK_REGISTER_KERNEL(clamp_out_name, clamp_out);
ETK_REGISTER_KERNEL(clamp_tensor_out_name, clamp_tensor_out);
ETK_REGISTER_KERNEL(gelu_out_name, gelu_out);
ETK_REGISTER_KERNEL(silu_out_name, silu_out);
ETK_REGISTER_KERNEL(leaky_relu_out_name, leaky_relu_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
