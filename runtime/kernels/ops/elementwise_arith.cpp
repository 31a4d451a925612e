/*
 * add, sub, mul, div (Tensor and Scalar overloads, alpha, rounding modes),
 * floor_divide and rsub.Scalar: broadcasting, type promotion with the out dtype
 * authoritative, any dim order.
 */
#include <cmath>

#include <executorch/runtime/kernels/detail/helpers.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(add_out_name, "aten::add.out");
ET_DEFINE_OPERATOR_NAME(add_scalar_out_name, "aten::add.Scalar_out");
ET_DEFINE_OPERATOR_NAME(sub_out_name, "aten::sub.out");
ET_DEFINE_OPERATOR_NAME(sub_scalar_out_name, "aten::sub.Scalar_out");
ET_DEFINE_OPERATOR_NAME(rsub_scalar_out_name, "aten::rsub.Scalar_out");
ET_DEFINE_OPERATOR_NAME(mul_out_name, "aten::mul.out");
ET_DEFINE_OPERATOR_NAME(mul_scalar_out_name, "aten::mul.Scalar_out");
ET_DEFINE_OPERATOR_NAME(div_out_name, "aten::div.out");
ET_DEFINE_OPERATOR_NAME(div_out_mode_name, "aten::div.out_mode");
ET_DEFINE_OPERATOR_NAME(div_scalar_out_name, "aten::div.Scalar_out");
ET_DEFINE_OPERATOR_NAME(div_scalar_mode_out_name, "aten::div.Scalar_mode_out");
ET_DEFINE_OPERATOR_NAME(floor_divide_out_name, "aten::floor_divide.out");

using std::optional;
using std::string_view;

// The alpha Scalar must be representable in the computation dtype.
bool check_alpha(KernelRuntimeContext& ctx, const char* op, const Scalar& alpha,
                 ScalarType common) {
  using ::executorch::runtime::isIntegralType;
  ET_KERNEL_CHECK_MSG(
      ctx, !alpha.isFloatingPoint() || !isIntegralType(common, /*includeBool=*/true),
      InvalidArgument, false, "%s: argument 'alpha' is a float but the inputs are %s", op,
      dtype_name(common));
  ET_KERNEL_CHECK_MSG(ctx, !alpha.isBoolean() || common == ScalarType::Bool, InvalidArgument, false,
                      "%s: a bool 'alpha' needs bool inputs, got %s", op, dtype_name(common));
  return true;
}

bool check_not_bool_sub(KernelRuntimeContext& ctx, const char* op, ScalarType common) {
  ET_KERNEL_CHECK_MSG(ctx, common != ScalarType::Bool, InvalidArgument, false,
                      "%s: subtraction with bool inputs is not supported (argument 'self'/'other')",
                      op);
  return true;
}

constexpr DtypeSet kArith = dtypes::kRealHBBF16;
constexpr DtypeSet kComputeAll = dtypes::kFloat | dtype_bit(ScalarType::Long) | dtypes::kBool;

// a + alpha * b (sign = -1 for sub).
template <int kSign>
Tensor& add_sub_tensor(const char* op, KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b,
                       const Scalar& alpha, Tensor& out) {
  ScalarType common;
  if (!prepare_binary(ctx, op, a, b, out, kArith, &common) ||
      !check_alpha(ctx, op, alpha, common)) {
    return out;
  }
  if (kSign < 0 && !check_not_bool_sub(ctx, op, common)) {
    return out;
  }
  dispatch_dtype<kComputeAll>(ctx, op, compute_type(common), [&](auto tag) {
    using CT = typename decltype(tag)::type;
    if constexpr (std::is_same<CT, bool>::value) {
      const bool al = scalar_to<bool>(alpha);
      apply_binary<CT>(ctx, op, a, b, out, [al](bool x, bool y) { return x || (al && y); });
    } else {
      const CT al = wrap_mul(static_cast<CT>(kSign), scalar_to<CT>(alpha));
      if (al == CT(kSign)) {
        apply_binary_common<CT>(ctx, op, a, b, out, common, [](CT x, CT y) -> CT {
          return kSign > 0 ? wrap_add(x, y) : wrap_sub(x, y);
        });
      } else {
        apply_binary_common<CT>(ctx, op, a, b, out, common,
                                [al](CT x, CT y) -> CT { return wrap_add(x, wrap_mul(al, y)); });
      }
    }
  });
  return out;
}

Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, const Scalar& alpha,
                Tensor& out) {
  return add_sub_tensor<1>(log_name(add_out_name), ctx, a, b, alpha, out);
}

Tensor& sub_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, const Scalar& alpha,
                Tensor& out) {
  return add_sub_tensor<-1>(log_name(sub_out_name), ctx, a, b, alpha, out);
}

// Tensor-Scalar prologue: dtypes, common dtype with the scalar, resize.
bool prepare_scalar(KernelRuntimeContext& ctx, const char* op, const Tensor& a, const Scalar& s,
                    const Tensor& out, DtypeSet allowed, ScalarType* common) {
  if (!check_dtype_in(ctx, op, "self", a, allowed) ||
      !check_dtype_in(ctx, op, "out", out, allowed)) {
    return false;
  }
  *common = promote_with_scalar(a.scalar_type(), s);
  return check_can_cast(ctx, op, *common, "out", out) && resize_out_like(ctx, op, out, a);
}

// self + alpha * other, or (reverse) other - alpha * self.
template <int kSign, bool kReverse>
Tensor& add_sub_scalar(const char* op, KernelRuntimeContext& ctx, const Tensor& a, const Scalar& b,
                       const Scalar& alpha, Tensor& out) {
  ScalarType common;
  if (!prepare_scalar(ctx, op, a, b, out, kArith, &common) ||
      !check_alpha(ctx, op, alpha, common)) {
    return out;
  }
  if (kSign < 0 && !check_not_bool_sub(ctx, op, common)) {
    return out;
  }
  dispatch_dtype<kComputeAll>(ctx, op, compute_type(common), [&](auto tag) {
    using CT = typename decltype(tag)::type;
    if constexpr (std::is_same<CT, bool>::value) {
      const bool v = scalar_to<bool>(alpha) && scalar_to<bool>(b);
      apply_unary<CT>(ctx, op, a, out, [v](bool x) { return x || v; });
    } else if constexpr (kReverse) {
      const CT al = scalar_to<CT>(alpha);
      const CT v = scalar_to<CT>(b);
      apply_unary_common<CT>(ctx, op, a, out, common,
                             [al, v](CT x) -> CT { return wrap_sub(v, wrap_mul(al, x)); });
    } else {
      const CT v =
          wrap_mul(wrap_mul(static_cast<CT>(kSign), scalar_to<CT>(alpha)), scalar_to<CT>(b));
      apply_unary_common<CT>(ctx, op, a, out, common, [v](CT x) -> CT { return wrap_add(x, v); });
    }
  });
  return out;
}

Tensor& add_scalar_out(KernelRuntimeContext& ctx, const Tensor& a, const Scalar& b,
                       const Scalar& alpha, Tensor& out) {
  return add_sub_scalar<1, false>(log_name(add_scalar_out_name), ctx, a, b, alpha, out);
}

Tensor& sub_scalar_out(KernelRuntimeContext& ctx, const Tensor& a, const Scalar& b,
                       const Scalar& alpha, Tensor& out) {
  return add_sub_scalar<-1, false>(log_name(sub_scalar_out_name), ctx, a, b, alpha, out);
}

Tensor& rsub_scalar_out(KernelRuntimeContext& ctx, const Tensor& a, const Scalar& b,
                        const Scalar& alpha, Tensor& out) {
  return add_sub_scalar<-1, true>(log_name(rsub_scalar_out_name), ctx, a, b, alpha, out);
}

Tensor& mul_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, Tensor& out) {
  const char* op = log_name(mul_out_name);
  ScalarType common;
  if (!prepare_binary(ctx, op, a, b, out, kArith, &common)) {
    return out;
  }
  dispatch_dtype<kComputeAll>(ctx, op, compute_type(common), [&](auto tag) {
    using CT = typename decltype(tag)::type;
    if constexpr (std::is_same<CT, bool>::value) {
      apply_binary<CT>(ctx, op, a, b, out, [](bool x, bool y) { return x && y; });
    } else {
      apply_binary_common<CT>(ctx, op, a, b, out, common,
                              [](CT x, CT y) -> CT { return wrap_mul(x, y); });
    }
  });
  return out;
}

Tensor& mul_scalar_out(KernelRuntimeContext& ctx, const Tensor& a, const Scalar& b, Tensor& out) {
  const char* op = log_name(mul_scalar_out_name);
  ScalarType common;
  if (!prepare_scalar(ctx, op, a, b, out, kArith, &common)) {
    return out;
  }
  dispatch_dtype<kComputeAll>(ctx, op, compute_type(common), [&](auto tag) {
    using CT = typename decltype(tag)::type;
    const CT v = scalar_to<CT>(b);
    if constexpr (std::is_same<CT, bool>::value) {
      apply_unary<CT>(ctx, op, a, out, [v](bool x) { return x && v; });
    } else {
      apply_unary_common<CT>(ctx, op, a, out, common, [v](CT x) -> CT { return wrap_mul(x, v); });
    }
  });
  return out;
}

// ---- division ----------------------------------------------------------

enum class Rounding { kTrue, kTrunc, kFloor };

bool parse_mode(KernelRuntimeContext& ctx, const char* op, const optional<string_view>& mode,
                Rounding* r) {
  if (!mode.has_value()) {
    *r = Rounding::kTrue;
    return true;
  }
  ET_KERNEL_CHECK_MSG(ctx, *mode == "trunc" || *mode == "floor", InvalidArgument, false,
                      "%s: argument 'rounding_mode' must be None, 'trunc' or 'floor'", op);
  *r = *mode == "trunc" ? Rounding::kTrunc : Rounding::kFloor;
  return true;
}

// Python-style floor division of floats (matches PyTorch's formulation).
template <class T>
inline T floor_div_float(T a, T b) {
  if (b == T(0)) {
    return a / b;
  }
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) {
    div -= T(1);
  }
  if (div != T(0)) {
    T fl = std::floor(div);
    if (div - fl > T(0.5)) {
      fl += T(1);
    }
    return fl;
  }
  return std::copysign(T(0), a / b);
}

// a / -1 is -a, formed modulo 2^64: the hardware division traps (SIGFPE) on
// INT64_MIN / -1, which values in the program can ask for.
inline int64_t negate_wrapping(int64_t a) {
  return static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(a));
}

inline int64_t trunc_div_int(int64_t a, int64_t b) {
  return b == -1 ? negate_wrapping(a) : a / b;
}

inline int64_t floor_div_int(int64_t a, int64_t b) {
  if (b == -1) {
    return negate_wrapping(a);
  }
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// The dtype the division computes in: true division of integers is Float.
ScalarType div_compute(ScalarType common, Rounding r) {
  using ::executorch::runtime::isIntegralType;
  if (r == Rounding::kTrue && isIntegralType(common, true)) {
    return ScalarType::Float;
  }
  return compute_type(common);
}

template <class CT, class Apply>
void run_div(KernelRuntimeContext& ctx, const char* op, Rounding r, Apply&& apply) {
  if constexpr (std::is_floating_point<CT>::value) {
    switch (r) {
      case Rounding::kTrue:
        apply([](CT x, CT y) -> CT { return x / y; });
        break;
      case Rounding::kTrunc:
        apply([](CT x, CT y) -> CT { return std::trunc(x / y); });
        break;
      case Rounding::kFloor:
        apply([](CT x, CT y) -> CT { return floor_div_float(x, y); });
        break;
    }
  } else {
    // Integer division with a rounding mode; division by zero fails.
    bool zero = false;
    if (r == Rounding::kTrunc) {
      apply([&zero](CT x, CT y) -> CT {
        if (y == 0) {
          zero = true;
          return 0;
        }
        return trunc_div_int(x, y);
      });
    } else {
      apply([&zero](CT x, CT y) -> CT {
        if (y == 0) {
          zero = true;
          return 0;
        }
        return floor_div_int(x, y);
      });
    }
    if (zero) {
      ET_LOG(Error, "%s: integer division by zero (argument 'other')", op);
      ctx.fail(Error::InvalidArgument);
    }
  }
}

Tensor& div_impl(const char* op, KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b,
                 const optional<string_view>& mode, Tensor& out) {
  Rounding r;
  if (!parse_mode(ctx, op, mode, &r)) {
    return out;
  }
  ScalarType common;
  if (!prepare_binary(ctx, op, a, b, out, kArith, &common)) {
    return out;
  }
  const ScalarType ct = div_compute(common, r);
  if (r == Rounding::kTrue && !check_can_cast(ctx, op, ct, "out", out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, !(r != Rounding::kTrue && common == ScalarType::Bool), InvalidArgument,
                      out, "%s: rounding division of bool inputs is not supported", op);
  dispatch_dtype<dtypes::kFloat | dtype_bit(ScalarType::Long)>(ctx, op, ct, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    run_div<CT>(ctx, op, r,
                [&](auto fn) { apply_binary_common<CT>(ctx, op, a, b, out, common, fn); });
  });
  return out;
}

Tensor& div_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, Tensor& out) {
  return div_impl(log_name(div_out_name), ctx, a, b, std::nullopt, out);
}

Tensor& div_out_mode(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b,
                     optional<string_view> mode, Tensor& out) {
  return div_impl(log_name(div_out_mode_name), ctx, a, b, mode, out);
}

Tensor& div_scalar_impl(const char* op, KernelRuntimeContext& ctx, const Tensor& a, const Scalar& b,
                        const optional<string_view>& mode, Tensor& out) {
  Rounding r;
  if (!parse_mode(ctx, op, mode, &r)) {
    return out;
  }
  ScalarType common;
  if (!prepare_scalar(ctx, op, a, b, out, kArith, &common)) {
    return out;
  }
  const ScalarType ct = div_compute(common, r);
  if (r == Rounding::kTrue && !check_can_cast(ctx, op, ct, "out", out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, !(r != Rounding::kTrue && common == ScalarType::Bool), InvalidArgument,
                      out, "%s: rounding division of bool inputs is not supported", op);
  dispatch_dtype<dtypes::kFloat | dtype_bit(ScalarType::Long)>(ctx, op, ct, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    const CT v = scalar_to<CT>(b);
    if constexpr (std::is_floating_point<CT>::value) {
      if (r == Rounding::kTrue) {
        // Multiplying by the reciprocal would round differently; keep x / v.
        apply_unary_common<CT>(ctx, op, a, out, common, [v](CT x) -> CT { return x / v; });
        return;
      }
    }
    run_div<CT>(ctx, op, r, [&](auto fn) {
      apply_unary_common<CT>(ctx, op, a, out, common, [fn, v](CT x) -> CT { return fn(x, v); });
    });
  });
  return out;
}

Tensor& div_scalar_out(KernelRuntimeContext& ctx, const Tensor& a, const Scalar& b, Tensor& out) {
  return div_scalar_impl(log_name(div_scalar_out_name), ctx, a, b, std::nullopt, out);
}

Tensor& div_scalar_mode_out(KernelRuntimeContext& ctx, const Tensor& a, const Scalar& b,
                            optional<string_view> mode, Tensor& out) {
  return div_scalar_impl(log_name(div_scalar_mode_out_name), ctx, a, b, mode, out);
}

// floor_divide is div with rounding_mode="floor".
Tensor& floor_divide_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, Tensor& out) {
  return div_impl(log_name(floor_divide_out_name), ctx, a, b, string_view("floor"), out);
}

ETK_REGISTER_KERNEL(add_out_name, add_out);
ETK_REGISTER_KERNEL(add_scalar_out_name, add_scalar_out);
ETK_REGISTER_KERNEL(sub_out_name, sub_out);
ETK_REGISTER_KERNEL(sub_scalar_out_name, sub_scalar_out);
ETK_REGISTER_KERNEL(rsub_scalar_out_name, rsub_scalar_out);
ETK_REGISTER_KERNEL(mul_out_name, mul_out);
ETK_REGISTER_KERNEL(mul_scalar_out_name, mul_scalar_out);
ETK_REGISTER_KERNEL(div_out_name, div_out);
ETK_REGISTER_KERNEL(div_out_mode_name, div_out_mode);
ETK_REGISTER_KERNEL(div_scalar_out_name, div_scalar_out);
ETK_REGISTER_KERNEL(div_scalar_mode_out_name, div_scalar_mode_out);
ETK_REGISTER_KERNEL(floor_divide_out_name, floor_divide_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
