/*
 * More binary elementwise ops, Tensor and Scalar overloads where upstream
 * has them: maximum, minimum (NaN propagates), remainder (Python modulo, the
 * sign of the divisor), fmod (C modulo, the sign of the dividend), atan2
 * (floating out), bitwise and/or/xor (integers and bool) and the bitwise
 * shifts (integers). Broadcasting, type promotion with the out dtype
 * authoritative, any dim order.
 */
#include <cmath>

#include <executorch/runtime/kernels/detail/helpers.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(maximum_out_name, "aten::maximum.out");
ET_DEFINE_OPERATOR_NAME(minimum_out_name, "aten::minimum.out");
ET_DEFINE_OPERATOR_NAME(remainder_tensor_out_name, "aten::remainder.Tensor_out");
ET_DEFINE_OPERATOR_NAME(remainder_scalar_out_name, "aten::remainder.Scalar_out");
ET_DEFINE_OPERATOR_NAME(fmod_tensor_out_name, "aten::fmod.Tensor_out");
ET_DEFINE_OPERATOR_NAME(fmod_scalar_out_name, "aten::fmod.Scalar_out");
ET_DEFINE_OPERATOR_NAME(atan2_out_name, "aten::atan2.out");
ET_DEFINE_OPERATOR_NAME(bitwise_and_tensor_out_name, "aten::bitwise_and.Tensor_out");
ET_DEFINE_OPERATOR_NAME(bitwise_and_scalar_out_name, "aten::bitwise_and.Scalar_out");
ET_DEFINE_OPERATOR_NAME(bitwise_or_tensor_out_name, "aten::bitwise_or.Tensor_out");
ET_DEFINE_OPERATOR_NAME(bitwise_or_scalar_out_name, "aten::bitwise_or.Scalar_out");
ET_DEFINE_OPERATOR_NAME(bitwise_xor_tensor_out_name, "aten::bitwise_xor.Tensor_out");
ET_DEFINE_OPERATOR_NAME(bitwise_xor_scalar_out_name, "aten::bitwise_xor.Scalar_out");
ET_DEFINE_OPERATOR_NAME(left_shift_tensor_out_name, "aten::bitwise_left_shift.Tensor_out");
ET_DEFINE_OPERATOR_NAME(left_shift_scalar_out_name, "aten::bitwise_left_shift.Tensor_Scalar_out");
ET_DEFINE_OPERATOR_NAME(right_shift_tensor_out_name, "aten::bitwise_right_shift.Tensor_out");
ET_DEFINE_OPERATOR_NAME(right_shift_scalar_out_name, "aten::bitwise_right_shift.Tensor_Scalar_out");

constexpr DtypeSet kCompute = dtypes::kFloat | dtype_bit(ScalarType::Long) | dtypes::kBool;

/*
 * The other operand of a binary op: a tensor, or a Scalar seen as a 0-dim
 * tensor of its own dtype (Long, Double or Bool), which broadcasts to self.
 * Type promotion then treats the Scalar as PyTorch does (it does not widen
 * self within its category).
 */
struct Other {
  const Tensor* tensor = nullptr;
  const Scalar* scalar = nullptr;
};

/*
 * Prologue shared by every op here: dtypes in `allowed`, the common dtype
 * (castable to out), out resized to the broadcast shape.
 */
bool prepare(KernelRuntimeContext& ctx, const char* op, const Tensor& a, const Other& b,
             const Tensor& out, DtypeSet allowed, ScalarType* common) {
  if (b.tensor != nullptr) {
    return prepare_binary(ctx, op, a, *b.tensor, out, allowed, common);
  }
  if (!check_dtype_in(ctx, op, "self", a, allowed) ||
      !check_dtype_in(ctx, op, "out", out, allowed)) {
    return false;
  }
  *common = promote_with_scalar(a.scalar_type(), *b.scalar);
  return check_can_cast(ctx, op, *common, "out", out) && resize_out_like(ctx, op, out, a);
}

/* Runs fn(x, y) over self and the other operand, computing in CT. */
template <class CT, class F>
void run(KernelRuntimeContext& ctx, const char* op, const Tensor& a, const Other& b,
         const Tensor& out, ScalarType common, F fn) {
  if (b.tensor != nullptr) {
    apply_binary_common<CT>(ctx, op, a, *b.tensor, out, common, fn);
  } else {
    const CT v = scalar_to<CT>(*b.scalar);
    apply_unary_common<CT>(ctx, op, a, out, common, [fn, v](CT x) mutable { return fn(x, v); });
  }
}

// ---- maximum / minimum ------------------------------------------------------

template <bool kMax>
Tensor& max_min(const char* op, KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b,
                Tensor& out) {
  ScalarType common;
  if (!prepare(ctx, op, a, Other{&b, nullptr}, out, dtypes::kRealHBBF16, &common)) {
    return out;
  }
  dispatch_dtype<kCompute>(ctx, op, compute_type(common), [&](auto tag) {
    using CT = typename decltype(tag)::type;
    run<CT>(ctx, op, a, Other{&b, nullptr}, out, common, [](CT x, CT y) -> CT {
      if constexpr (std::is_floating_point<CT>::value) {
        if (std::isnan(x) || std::isnan(y)) {
          return std::isnan(x) ? x : y;
        }
      }
      return kMax ? (x < y ? y : x) : (y < x ? y : x);
    });
  });
  return out;
}

Tensor& maximum_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, Tensor& out) {
  return max_min<true>(log_name(maximum_out_name), ctx, a, b, out);
}

Tensor& minimum_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, Tensor& out) {
  return max_min<false>(log_name(minimum_out_name), ctx, a, b, out);
}

// ---- remainder / fmod ---------------------------------------------------------

/*
 * kPython: remainder (the result has the divisor's sign); otherwise fmod
 * (the dividend's). Integer division by zero fails, as in PyTorch; x % -1 is
 * 0 without dividing (INT64_MIN % -1 traps in hardware).
 */
template <bool kPython>
Tensor& modulo(const char* op, KernelRuntimeContext& ctx, const Tensor& a, const Other& b,
               Tensor& out) {
  ScalarType common;
  if (!prepare(ctx, op, a, b, out, dtypes::kRealHBBF16, &common)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, common != ScalarType::Bool, InvalidArgument, out,
                      "%s: arguments 'self' and 'other' are both bool", op);
  dispatch_dtype<dtypes::kFloat | dtype_bit(ScalarType::Long)>(
      ctx, op, compute_type(common), [&](auto tag) {
        using CT = typename decltype(tag)::type;
        if constexpr (std::is_floating_point<CT>::value) {
          run<CT>(ctx, op, a, b, out, common, [](CT x, CT y) -> CT {
            CT m = std::fmod(x, y);
            if (kPython && m != CT(0) && ((y < CT(0)) != (m < CT(0)))) {
              m += y;
            }
            return m;
          });
        } else {
          bool zero = false;
          run<CT>(ctx, op, a, b, out, common, [&zero](CT x, CT y) -> CT {
            if (y == 0) {
              zero = true;
              return 0;
            }
            if (y == -1) {
              return 0;
            }
            CT m = x % y;
            if (kPython && m != 0 && ((y < 0) != (m < 0))) {
              m += y;
            }
            return m;
          });
          if (zero) {
            ET_LOG(Error, "%s: integer division by zero (argument 'other')", op);
            ctx.fail(Error::InvalidArgument);
          }
        }
      });
  return out;
}

Tensor& remainder_tensor_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b,
                             Tensor& out) {
  return modulo<true>(log_name(remainder_tensor_out_name), ctx, a, Other{&b, nullptr}, out);
}

Tensor& remainder_scalar_out(KernelRuntimeContext& ctx, const Tensor& a, const Scalar& b,
                             Tensor& out) {
  return modulo<true>(log_name(remainder_scalar_out_name), ctx, a, Other{nullptr, &b}, out);
}

Tensor& fmod_tensor_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, Tensor& out) {
  return modulo<false>(log_name(fmod_tensor_out_name), ctx, a, Other{&b, nullptr}, out);
}

Tensor& fmod_scalar_out(KernelRuntimeContext& ctx, const Tensor& a, const Scalar& b, Tensor& out) {
  return modulo<false>(log_name(fmod_scalar_out_name), ctx, a, Other{nullptr, &b}, out);
}

// ---- atan2 --------------------------------------------------------------------

Tensor& atan2_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, Tensor& out) {
  const char* op = log_name(atan2_out_name);
  if (!check_dtype_in(ctx, op, "self", a, dtypes::kRealHBBF16) ||
      !check_dtype_in(ctx, op, "other", b, dtypes::kRealHBBF16) ||
      !check_dtype_in(ctx, op, "out", out, dtypes::kFloatHBF16) ||
      !resize_out_to_broadcast(ctx, op, out, {&a, &b}, {"self", "other"})) {
    return out;
  }
  const bool wide = a.scalar_type() == ScalarType::Double ||
                    b.scalar_type() == ScalarType::Double ||
                    out.scalar_type() == ScalarType::Double;
  dispatch_dtype<dtypes::kFloat>(
      ctx, op, wide ? ScalarType::Double : ScalarType::Float, [&](auto tag) {
        using CT = typename decltype(tag)::type;
        apply_binary<CT>(ctx, op, a, b, out, [](CT y, CT x) -> CT { return std::atan2(y, x); });
      });
  return out;
}

// ---- bitwise ------------------------------------------------------------------

enum class Bitwise { kAnd, kOr, kXor };

template <Bitwise kOp>
Tensor& bitwise(const char* op, KernelRuntimeContext& ctx, const Tensor& a, const Other& b,
                Tensor& out) {
  ScalarType common;
  if (!prepare(ctx, op, a, b, out, dtypes::kIntB, &common)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, b.scalar == nullptr || !b.scalar->isFloatingPoint(), InvalidArgument,
                      out, "%s: argument 'other' must be an integer or bool", op);
  dispatch_dtype<dtypes::kBool | dtype_bit(ScalarType::Long)>(
      ctx, op, compute_type(common), [&](auto tag) {
        using CT = typename decltype(tag)::type;
        run<CT>(ctx, op, a, b, out, common, [](CT x, CT y) -> CT {
          switch (kOp) {
            case Bitwise::kAnd:
              return x & y;
            case Bitwise::kOr:
              return x | y;
            default:
              return x ^ y;
          }
        });
      });
  return out;
}

#define ETK_BITWISE(name, kind)                                                              \
  Tensor& name##_tensor_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b,     \
                            Tensor& out) {                                                   \
    return bitwise<kind>(log_name(name##_tensor_out_name), ctx, a, Other{&b, nullptr}, out); \
  }                                                                                          \
  Tensor& name##_scalar_out(KernelRuntimeContext& ctx, const Tensor& a, const Scalar& b,     \
                            Tensor& out) {                                                   \
    return bitwise<kind>(log_name(name##_scalar_out_name), ctx, a, Other{nullptr, &b}, out); \
  }                                                                                          \
  ETK_REGISTER_KERNEL(name##_tensor_out_name, name##_tensor_out);                            \
  ETK_REGISTER_KERNEL(name##_scalar_out_name, name##_scalar_out);

ETK_BITWISE(bitwise_and, Bitwise::kAnd)
ETK_BITWISE(bitwise_or, Bitwise::kOr)
ETK_BITWISE(bitwise_xor, Bitwise::kXor)
#undef ETK_BITWISE

/*
 * Shifts in the common dtype's own width T, as PyTorch computes them: a
 * left shift by a negative amount or by the width or more gives 0; a right
 * shift by that much gives the sign fill (0 for unsigned).
 */
template <bool kLeft>
Tensor& shift(const char* op, KernelRuntimeContext& ctx, const Tensor& a, const Other& b,
              Tensor& out) {
  ScalarType common;
  if (!prepare(ctx, op, a, b, out, dtypes::kInt, &common)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, b.scalar == nullptr || b.scalar->isIntegral(false), InvalidArgument, out,
                      "%s: argument 'other' must be an integer", op);
  dispatch_dtype<dtypes::kInt>(ctx, op, common, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using U = std::make_unsigned_t<T>;
    constexpr int64_t kBits = sizeof(T) * 8;
    run<T>(ctx, op, a, b, out, common, [](T x, T y) -> T {
      const int64_t n = static_cast<int64_t>(y);
      if (kLeft) {
        return (n < 0 || n >= kBits) ? T(0) : static_cast<T>(static_cast<U>(x) << n);
      }
      if (n < 0 || n >= kBits) {
        return x < 0 ? T(-1) : T(0);
      }
      return static_cast<T>(x >> n);
    });
  });
  return out;
}

Tensor& left_shift_tensor_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b,
                              Tensor& out) {
  return shift<true>(log_name(left_shift_tensor_out_name), ctx, a, Other{&b, nullptr}, out);
}

Tensor& left_shift_scalar_out(KernelRuntimeContext& ctx, const Tensor& a, const Scalar& b,
                              Tensor& out) {
  return shift<true>(log_name(left_shift_scalar_out_name), ctx, a, Other{nullptr, &b}, out);
}

Tensor& right_shift_tensor_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b,
                               Tensor& out) {
  return shift<false>(log_name(right_shift_tensor_out_name), ctx, a, Other{&b, nullptr}, out);
}

Tensor& right_shift_scalar_out(KernelRuntimeContext& ctx, const Tensor& a, const Scalar& b,
                               Tensor& out) {
  return shift<false>(log_name(right_shift_scalar_out_name), ctx, a, Other{nullptr, &b}, out);
}

ETK_REGISTER_KERNEL(maximum_out_name, maximum_out);
ETK_REGISTER_KERNEL(minimum_out_name, minimum_out);
ETK_REGISTER_KERNEL(remainder_tensor_out_name, remainder_tensor_out);
ETK_REGISTER_KERNEL(remainder_scalar_out_name, remainder_scalar_out);
ETK_REGISTER_KERNEL(fmod_tensor_out_name, fmod_tensor_out);
ETK_REGISTER_KERNEL(fmod_scalar_out_name, fmod_scalar_out);
ETK_REGISTER_KERNEL(atan2_out_name, atan2_out);
ETK_REGISTER_KERNEL(left_shift_tensor_out_name, left_shift_tensor_out);
ETK_REGISTER_KERNEL(left_shift_scalar_out_name, left_shift_scalar_out);
ETK_REGISTER_KERNEL(right_shift_tensor_out_name, right_shift_tensor_out);
ETK_REGISTER_KERNEL(right_shift_scalar_out_name, right_shift_scalar_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
