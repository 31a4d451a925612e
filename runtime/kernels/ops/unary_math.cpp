/*
 * Unary math: the floating ufuncs (exp, log, sqrt, rsqrt, sin, cos, tanh,
 * sigmoid, reciprocal, the inverse and hyperbolic trig functions, ...;
 * integer or bool inputs give a floating out), and the dtype-preserving neg
 * and abs.
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
ET_DEFINE_OPERATOR_NAME(neg_out_name, "aten::neg.out");
ET_DEFINE_OPERATOR_NAME(abs_out_name, "aten::abs.out");

/*
 * A floating ufunc: self of any real/bool/half dtype, out floating (the out
 * dtype decides the precision); computes in double only when self or out is
 * Double.
 */
template <class F>
Tensor& float_ufunc(const char* op, KernelRuntimeContext& ctx, const Tensor& in, Tensor& out, F fn,
                    VecUnaryFn vec = nullptr) {
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBBF16) ||
      !check_dtype_in(ctx, op, "out", out, dtypes::kFloatHBF16) ||
      !resize_out_like(ctx, op, out, in)) {
    return out;
  }
  // Float in, Float out, same layout: the compute core's vector routine.
  if (run_float_vector(in, out, vec)) {
    return out;
  }
  const bool wide =
      in.scalar_type() == ScalarType::Double || out.scalar_type() == ScalarType::Double;
  const ScalarType ct = wide ? ScalarType::Double : ScalarType::Float;
  dispatch_dtype<dtypes::kFloat>(ctx, op, ct, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    apply_unary<CT>(ctx, op, in, out, [fn](CT x) { return fn(x); });
  });
  return out;
}

#define ETK_FLOAT_UFUNC(name, expr)                                              \
  ET_DEFINE_OPERATOR_NAME(name##_out_name, "aten::" #name ".out");               \
  Tensor& name##_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) { \
    return float_ufunc(log_name(name##_out_name), ctx, in, out, [](auto x) {     \
      using T = decltype(x);                                                     \
      (void)sizeof(T);                                                           \
      return expr;                                                               \
    });                                                                          \
  }                                                                              \
  ETK_REGISTER_KERNEL(name##_out_name, name##_out);

// exp and sigmoid use the vectorizable float exp for float compute.
template <class T>
inline T exp_any(T x) {
  if constexpr (std::is_same<T, float>::value) {
    return exp_f32(x);
  } else {
    return std::exp(x);
  }
}

ETK_FLOAT_UFUNC(expm1, std::expm1(x))
ETK_FLOAT_UFUNC(log, std::log(x))
ETK_FLOAT_UFUNC(log2, std::log2(x))
ETK_FLOAT_UFUNC(log10, std::log10(x))
ETK_FLOAT_UFUNC(log1p, std::log1p(x))
ETK_FLOAT_UFUNC(sqrt, std::sqrt(x))
ETK_FLOAT_UFUNC(rsqrt, T(1) / std::sqrt(x))
ETK_FLOAT_UFUNC(reciprocal, T(1) / x)
ETK_FLOAT_UFUNC(sin, std::sin(x))
ETK_FLOAT_UFUNC(cos, std::cos(x))
ETK_FLOAT_UFUNC(tan, std::tan(x))
ETK_FLOAT_UFUNC(erf, std::erf(x))
ETK_FLOAT_UFUNC(asin, std::asin(x))
ETK_FLOAT_UFUNC(acos, std::acos(x))
ETK_FLOAT_UFUNC(atan, std::atan(x))
ETK_FLOAT_UFUNC(sinh, std::sinh(x))
ETK_FLOAT_UFUNC(cosh, std::cosh(x))
ETK_FLOAT_UFUNC(asinh, std::asinh(x))
ETK_FLOAT_UFUNC(acosh, std::acosh(x))
ETK_FLOAT_UFUNC(atanh, std::atanh(x))

#undef ETK_FLOAT_UFUNC

// Ufuncs with a float32 vector routine (compute/vmath.h states their accuracy).
#define ETK_FLOAT_UFUNC_VEC(name, expr)                                          \
  ET_DEFINE_OPERATOR_NAME(name##_out_name, "aten::" #name ".out");               \
  Tensor& name##_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) { \
    return float_ufunc(                                                          \
        log_name(name##_out_name), ctx, in, out,                                 \
        [](auto x) {                                                             \
          using T = decltype(x);                                                 \
          (void)sizeof(T);                                                       \
          return expr;                                                           \
        },                                                                       \
        ::executorch::kernels::compute::vmath().name);                           \
  }                                                                              \
  ETK_REGISTER_KERNEL(name##_out_name, name##_out);

ETK_FLOAT_UFUNC_VEC(exp, exp_any(x))
ETK_FLOAT_UFUNC_VEC(tanh, std::tanh(x))
ETK_FLOAT_UFUNC_VEC(sigmoid, T(1) / (T(1) + exp_any(-x)))

#undef ETK_FLOAT_UFUNC_VEC

// Dtype-preserving: out has self's dtype; bool is rejected.
template <class F>
Tensor& same_dtype_unary(const char* op, KernelRuntimeContext& ctx, const Tensor& in, Tensor& out,
                         F fn) {
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBF16) ||
      !check_same_dtype(ctx, op, "self", in, "out", out) || !resize_out_like(ctx, op, out, in)) {
    return out;
  }
  dispatch_dtype<dtypes::kFloat | dtype_bit(ScalarType::Long)>(
      ctx, op, compute_type(in.scalar_type()), [&](auto tag) {
        using CT = typename decltype(tag)::type;
        apply_unary<CT>(ctx, op, in, out, [fn](CT x) -> CT { return fn(x); });
      });
  return out;
}

Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  return same_dtype_unary(log_name(neg_out_name), ctx, in, out, [](auto x) { return wrap_neg(x); });
}

Tensor& abs_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  return same_dtype_unary(log_name(abs_out_name), ctx, in, out,
                          [](auto x) { return x < 0 ? wrap_neg(x) : x; });
}

ETK_REGISTER_KERNEL(neg_out_name, neg_out);
ETK_REGISTER_KERNEL(abs_out_name, abs_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
