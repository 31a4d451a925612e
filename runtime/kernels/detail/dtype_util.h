/*
 * Element conversion between tensor dtypes and a small set of compute types,
 * so an elementwise kernel is instantiated once per compute type rather than
 * once per (input, input, output) dtype combination.
 *
 * Compute types: float (for Float, Half and BFloat16), double, int64_t (all
 * integer dtypes) and bool. Loads and stores go through per-dtype function
 * pointers; the elementwise helpers bypass them on the fast path where every
 * operand already has the compute dtype.
 */
#pragma once

#include <cstdint>
#include <type_traits>

#include <executorch/runtime/kernels/detail/kernel_util.h>

namespace executorch {
namespace kernels {
namespace detail {

template <class T>
struct type_tag {
  using type = T;
};

/* The compute dtype for values of dtype `t`. */
constexpr ScalarType compute_type(ScalarType t) {
  switch (t) {
    case ScalarType::Half:
    case ScalarType::BFloat16:
    case ScalarType::Float:
      return ScalarType::Float;
    case ScalarType::Double:
      return ScalarType::Double;
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long:
      return ScalarType::Long;
    case ScalarType::Bool:
      return ScalarType::Bool;
    default:
      return ScalarType::Undefined;
  }
}

template <class CT>
constexpr ScalarType scalar_type_of() {
  return ::executorch::runtime::CppTypeToScalarType<CT>::value;
}

/*
 * Floating point to integer, defined for every input. C++ leaves a value
 * outside the target's range (or NaN) undefined, and tensor values come from
 * the file. This is what x86 computes, and so what PyTorch gives there:
 * truncation toward zero when the value fits in the conversion's 32 bits (64
 * for 64-bit targets), otherwise the "integer indefinite" value (the
 * minimum); narrower targets keep the low bits of the 32-bit result.
 */
template <class To, class F>
inline To float_to_int(F v) {
  if constexpr (sizeof(To) == 8) {
    const bool fits =
        v >= static_cast<F>(-9223372036854775808.0) && v < static_cast<F>(9223372036854775808.0);
    return static_cast<To>(fits ? static_cast<int64_t>(v) : INT64_MIN);
  } else {
    const bool fits = v >= static_cast<F>(-2147483648.0) && v < static_cast<F>(2147483648.0);
    return static_cast<To>(fits ? static_cast<int32_t>(v) : INT32_MIN);
  }
}

/* Value conversion with PyTorch semantics for bool (nonzero -> true). */
template <class To, class From>
inline To cast_value(From v) {
  if constexpr (std::is_same<To, bool>::value &&
                (std::is_same<From, Half>::value || std::is_same<From, BFloat16>::value)) {
    return static_cast<float>(v) != 0.0f;
  } else if constexpr (std::is_same<To, bool>::value) {
    return static_cast<bool>(v);
  } else if constexpr ((std::is_same<From, Half>::value || std::is_same<From, BFloat16>::value) &&
                       std::is_integral<To>::value) {
    return float_to_int<To>(static_cast<float>(v));
  } else if constexpr (std::is_same<From, Half>::value || std::is_same<From, BFloat16>::value) {
    return static_cast<To>(static_cast<float>(v));
  } else if constexpr (std::is_floating_point<From>::value && std::is_integral<To>::value) {
    return float_to_int<To>(v);
  } else if constexpr (std::is_same<To, Half>::value || std::is_same<To, BFloat16>::value) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

template <class CT>
using LoadFn = CT (*)(const void*);
template <class CT>
using StoreFn = void (*)(CT, void*);

namespace internal {
template <class CT, class T>
CT load_as(const void* p) {
  if constexpr (std::is_same<T, bool>::value) {
    // A Bool tensor's bytes may be planned memory another dtype wrote (the
    // planner shares memory between tensors), and a bool object may hold only
    // 0 or 1: read the byte, any non-zero value is true.
    return cast_value<CT>(*static_cast<const uint8_t*>(p) != 0);
  } else {
    return cast_value<CT>(*static_cast<const T*>(p));
  }
}
template <class CT, class T>
void store_as(CT v, void* p) {
  *static_cast<T*>(p) = cast_value<T>(v);
}
}  // namespace internal

#define ETK_FORALL_ELEMENTWISE_DTYPES(_) \
  _(uint8_t, Byte)                       \
  _(int8_t, Char)                        \
  _(int16_t, Short)                      \
  _(int32_t, Int)                        \
  _(int64_t, Long)                       \
  _(Half, Half)                          \
  _(float, Float)                        \
  _(double, Double)                      \
  _(bool, Bool)                          \
  _(BFloat16, BFloat16)

/* Loader from dtype `t` into CT, or nullptr for an unsupported dtype. */
template <class CT>
LoadFn<CT> load_fn(ScalarType t) {
  switch (t) {
#define ETK_LOAD_CASE(ctype, name) \
  case ScalarType::name:           \
    return &internal::load_as<CT, ctype>;
    ETK_FORALL_ELEMENTWISE_DTYPES(ETK_LOAD_CASE)
#undef ETK_LOAD_CASE
    default:
      return nullptr;
  }
}

/* Storer from CT into dtype `t`, or nullptr for an unsupported dtype. */
template <class CT>
StoreFn<CT> store_fn(ScalarType t) {
  switch (t) {
#define ETK_STORE_CASE(ctype, name) \
  case ScalarType::name:            \
    return &internal::store_as<CT, ctype>;
    ETK_FORALL_ELEMENTWISE_DTYPES(ETK_STORE_CASE)
#undef ETK_STORE_CASE
    default:
      return nullptr;
  }
}

/*
 * The one dtype dispatch of the kernel library: calls f(type_tag<T>{}) with
 * the C++ type T of dtype `t` if `t` is in the compile-time set Allowed (no
 * code is instantiated for dtypes an op rejects); otherwise logs
 * "<op>: unsupported dtype <t>" and fails ctx. Returns whether f ran.
 *
 * Dispatch on a storage dtype to work on typed pointers, or on
 * compute_type(dtype) to instantiate one loop per compute type:
 *
 *   dispatch_dtype<dtypes::kFloat>(ctx, op, compute_type(common), [&](auto tag) {
 *     using CT = typename decltype(tag)::type;
 *     ...
 *   });
 */
template <DtypeSet Allowed, class F>
bool dispatch_dtype(KernelRuntimeContext& ctx, const char* op, ScalarType t, F&& f) {
  switch (t) {
#define ETK_DISPATCH_CASE(ctype, name)                            \
  case ScalarType::name:                                          \
    if constexpr ((Allowed & dtype_bit(ScalarType::name)) != 0) { \
      f(type_tag<ctype>{});                                       \
      return true;                                                \
    }                                                             \
    break;
    ETK_FORALL_ELEMENTWISE_DTYPES(ETK_DISPATCH_CASE)
#undef ETK_DISPATCH_CASE
    default:
      break;
  }
  ET_LOG(Error, "%s: unsupported dtype %s", op, dtype_name(t));
  ctx.fail(Error::InvalidArgument);
  return false;
}

// ---------------------------------------------------------------------------
// Scalars

/*
 * The common dtype of a tensor of dtype `t` and a Scalar (the Scalar does
 * not widen within its category): float Scalar with an integral or bool
 * tensor -> Float; int Scalar with a bool tensor -> Long; otherwise t.
 */
inline ScalarType promote_with_scalar(ScalarType t, const Scalar& s) {
  const bool t_int = ::executorch::runtime::isIntegralType(t, /*includeBool=*/false);
  if (s.isFloatingPoint()) {
    return (t_int || t == ScalarType::Bool) ? ScalarType::Float : t;
  }
  if (s.isIntegral(false)) {
    return t == ScalarType::Bool ? ScalarType::Long : t;
  }
  return t;
}

/* The Scalar's value as CT. */
template <class CT>
inline CT scalar_to(const Scalar& s) {
  if (s.isFloatingPoint()) {
    return cast_value<CT>(s.to<double>());
  }
  if (s.isBoolean()) {
    return cast_value<CT>(s.to<bool>());
  }
  return cast_value<CT>(s.to<int64_t>());
}

/*
 * Whether the Scalar's value can be represented in dtype `t` without
 * changing category (a float Scalar for an integral dtype, or a non-bool for
 * Bool, is rejected), and integers fit the range.
 */
inline bool scalar_fits(const Scalar& s, ScalarType t) {
  using ::executorch::runtime::isIntegralType;
  if (t == ScalarType::Bool) {
    return s.isBoolean();
  }
  if (isIntegralType(t, false)) {
    if (s.isFloatingPoint()) {
      return false;
    }
    const int64_t v = s.to<int64_t>();
    switch (t) {
      case ScalarType::Byte:
        return v >= 0 && v <= 255;
      case ScalarType::Char:
        return v >= -128 && v <= 127;
      case ScalarType::Short:
        return v >= -32768 && v <= 32767;
      case ScalarType::Int:
        return v >= INT32_MIN && v <= INT32_MAX;
      default:
        return true;
    }
  }
  return true;
}

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
