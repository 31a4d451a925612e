/*
 * Compile-time and run-time facts about ScalarType: the C++ type behind each
 * enumerator, element sizes, names, classification, type promotion and
 * casting rules (c10's rules), and the ET_SWITCH_* dtype dispatch macros
 * kernels use.
 *
 * Nothing here aborts on an unknown dtype: sizes come back as 0, names as
 * "UNKNOWN_SCALAR", promotion as ScalarType::Undefined.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {

// ---------------------------------------------------------------------------
// Type <-> enumerator mapping

/* CppTypeToScalarType<float>::value == ScalarType::Float, etc. */
template <typename T>
struct CppTypeToScalarType;

#define ET_INTERNAL_SPECIALIZE_CPP_TO_ST(_ctype, _name) \
  template <>                                           \
  struct CppTypeToScalarType<_ctype>                    \
      : std::integral_constant<                         \
            ::executorch::aten::ScalarType,             \
            ::executorch::aten::ScalarType::_name> {};
ET_FORALL_SCALAR_TYPES(ET_INTERNAL_SPECIALIZE_CPP_TO_ST)
#undef ET_INTERNAL_SPECIALIZE_CPP_TO_ST

/* ScalarTypeToCppType<ScalarType::Float>::type is float, etc. */
template <::executorch::aten::ScalarType N>
struct ScalarTypeToCppType;

#define ET_INTERNAL_SPECIALIZE_ST_TO_CPP(_ctype, _name)               \
  template <>                                                         \
  struct ScalarTypeToCppType<::executorch::aten::ScalarType::_name> { \
    using type = _ctype;                                              \
  };
ET_FORALL_SCALAR_TYPES(ET_INTERNAL_SPECIALIZE_ST_TO_CPP)
#undef ET_INTERNAL_SPECIALIZE_ST_TO_CPP

// ---------------------------------------------------------------------------
// Type lists, in the style of ET_FORALL_SCALAR_TYPES: each calls _(ctype, Name)

#define ET_FORALL_INT_TYPES(_) \
  _(uint8_t, Byte)             \
  _(int8_t, Char)              \
  _(int16_t, Short)            \
  _(int32_t, Int)              \
  _(int64_t, Long)

#define ET_FORALL_INT_TYPES_AND(SCALARTYPE, _)             \
  ET_FORALL_INT_TYPES(_)                                   \
  _(::executorch::runtime::ScalarTypeToCppType<            \
        ::executorch::aten::ScalarType::SCALARTYPE>::type, \
    SCALARTYPE)

#define ET_FORALL_FLOAT_TYPES(_) \
  _(float, Float)                \
  _(double, Double)

#define ET_FORALL_FLOAT_TYPES_AND(SCALARTYPE, _)           \
  ET_FORALL_FLOAT_TYPES(_)                                 \
  _(::executorch::runtime::ScalarTypeToCppType<            \
        ::executorch::aten::ScalarType::SCALARTYPE>::type, \
    SCALARTYPE)

#define ET_FORALL_FLOATH_TYPES(_) \
  ET_FORALL_FLOAT_TYPES(_)        \
  _(::executorch::aten::Half, Half)

#define ET_FORALL_FLOATHBF16_TYPES(_) \
  ET_FORALL_FLOATH_TYPES(_)           \
  _(::executorch::aten::BFloat16, BFloat16)

#define ET_FORALL_REAL_TYPES(_) \
  ET_FORALL_INT_TYPES(_)        \
  ET_FORALL_FLOAT_TYPES(_)

#define ET_FORALL_REAL_TYPES_AND(SCALARTYPE, _)            \
  ET_FORALL_REAL_TYPES(_)                                  \
  _(::executorch::runtime::ScalarTypeToCppType<            \
        ::executorch::aten::ScalarType::SCALARTYPE>::type, \
    SCALARTYPE)

#define ET_FORALL_REALH_TYPES(_) \
  ET_FORALL_REAL_TYPES(_)        \
  _(::executorch::aten::Half, Half)

#define ET_FORALL_REALHBF16_TYPES(_) \
  ET_FORALL_REALH_TYPES(_)           \
  _(::executorch::aten::BFloat16, BFloat16)

#define ET_FORALL_REALHBBF16_TYPES(_) \
  ET_FORALL_REALHBF16_TYPES(_)        \
  _(bool, Bool)

#define ET_FORALL_QINT_TYPES(_)             \
  _(::executorch::aten::qint8, QInt8)       \
  _(::executorch::aten::quint8, QUInt8)     \
  _(::executorch::aten::qint32, QInt32)     \
  _(::executorch::aten::quint4x2, QUInt4x2) \
  _(::executorch::aten::quint2x4, QUInt2x4)

#define ET_FORALL_COMPLEX_TYPES(_)                    \
  _(::executorch::aten::complex<float>, ComplexFloat) \
  _(::executorch::aten::complex<double>, ComplexDouble)

#define ET_FORALL_COMPLEXH_TYPES(_)                                     \
  _(::executorch::aten::complex<::executorch::aten::Half>, ComplexHalf) \
  ET_FORALL_COMPLEX_TYPES(_)

#define ET_FORALL_FLOAT8_TYPES(_)                         \
  _(::executorch::aten::Float8_e5m2, Float8_e5m2)         \
  _(::executorch::aten::Float8_e4m3fn, Float8_e4m3fn)     \
  _(::executorch::aten::Float8_e5m2fnuz, Float8_e5m2fnuz) \
  _(::executorch::aten::Float8_e4m3fnuz, Float8_e4m3fnuz)

// ---------------------------------------------------------------------------
// Run-time facts

/* True for every enumerator that names a concrete element type. */
constexpr bool isValid(::executorch::aten::ScalarType type) {
  return static_cast<int8_t>(type) >= 0 &&
         type < ::executorch::aten::ScalarType::Undefined;
}

/* Bytes per element; 0 for Undefined or an out-of-range value. */
constexpr size_t elementSize(::executorch::aten::ScalarType t) {
  switch (t) {
#define ET_INTERNAL_CASE_SIZE(_ctype, _name)  \
  case ::executorch::aten::ScalarType::_name: \
    return sizeof(_ctype);
    ET_FORALL_SCALAR_TYPES(ET_INTERNAL_CASE_SIZE)
#undef ET_INTERNAL_CASE_SIZE
    default:
      break;
  }
  return 0;
}

/* Enumerator name ("Float", "Long", ...), or "UNKNOWN_SCALAR". */
constexpr const char* toString(::executorch::aten::ScalarType t) {
  switch (t) {
#define ET_INTERNAL_CASE_NAME(_ctype, _name)  \
  case ::executorch::aten::ScalarType::_name: \
    return #_name;
    ET_FORALL_SCALAR_TYPES(ET_INTERNAL_CASE_NAME)
#undef ET_INTERNAL_CASE_NAME
    case ::executorch::aten::ScalarType::Undefined:
      return "Undefined";
    default:
      break;
  }
  return "UNKNOWN_SCALAR";
}

namespace internal {
using ST = ::executorch::aten::ScalarType;
}  // namespace internal

/* Byte..Long and, if includeBool, Bool. The wide unsigned types count too. */
constexpr bool isIntegralType(
    ::executorch::aten::ScalarType t, bool includeBool) {
  using internal::ST;
  return (includeBool && t == ST::Bool) || t == ST::Byte || t == ST::Char ||
         t == ST::Short || t == ST::Int || t == ST::Long || t == ST::UInt16 ||
         t == ST::UInt32 || t == ST::UInt64;
}

template <typename T, bool includeBool>
struct is_integral_type
    : std::integral_constant<
          bool,
          isIntegralType(CppTypeToScalarType<T>::value, includeBool)> {};

constexpr bool isFloatingType(::executorch::aten::ScalarType t) {
  using internal::ST;
  return t == ST::Double || t == ST::Float || t == ST::Half ||
         t == ST::BFloat16;
}

constexpr bool isFloat8Type(::executorch::aten::ScalarType t) {
  using internal::ST;
  return t == ST::Float8_e5m2 || t == ST::Float8_e4m3fn ||
         t == ST::Float8_e5m2fnuz || t == ST::Float8_e4m3fnuz;
}

constexpr bool isReducedFloatingType(::executorch::aten::ScalarType t) {
  using internal::ST;
  return t == ST::Half || t == ST::BFloat16 || isFloat8Type(t);
}

/* Byte..Long, Float, Double: no Half, BFloat16 or Bool. */
constexpr bool isRealType(::executorch::aten::ScalarType t) {
  using internal::ST;
  return t == ST::Byte || t == ST::Char || t == ST::Short || t == ST::Int ||
         t == ST::Long || t == ST::Float || t == ST::Double;
}
constexpr bool isRealHType(::executorch::aten::ScalarType t) {
  return isRealType(t) || t == internal::ST::Half;
}
constexpr bool isRealHBType(::executorch::aten::ScalarType t) {
  return isRealHType(t) || t == internal::ST::Bool;
}
constexpr bool isRealHBF16Type(::executorch::aten::ScalarType t) {
  return isRealHType(t) || t == internal::ST::BFloat16;
}
constexpr bool isRealHBBF16Type(::executorch::aten::ScalarType t) {
  return isRealHBType(t) || t == internal::ST::BFloat16;
}

constexpr bool isComplexType(::executorch::aten::ScalarType t) {
  using internal::ST;
  return t == ST::ComplexHalf || t == ST::ComplexFloat ||
         t == ST::ComplexDouble;
}

constexpr bool isQIntType(::executorch::aten::ScalarType t) {
  using internal::ST;
  return t == ST::QInt8 || t == ST::QUInt8 || t == ST::QInt32 ||
         t == ST::QUInt4x2 || t == ST::QUInt2x4;
}

constexpr bool isBitsType(::executorch::aten::ScalarType t) {
  using internal::ST;
  return t == ST::Bits1x8 || t == ST::Bits2x4 || t == ST::Bits4x2 ||
         t == ST::Bits8 || t == ST::Bits16;
}

/* UInt16/32/64: storage-only unsigned types with no promotion rules. */
constexpr bool isBarebonesUnsignedType(::executorch::aten::ScalarType t) {
  using internal::ST;
  return t == ST::UInt16 || t == ST::UInt32 || t == ST::UInt64;
}

constexpr bool isSignedType(::executorch::aten::ScalarType t) {
  using internal::ST;
  switch (t) {
    case ST::Char:
    case ST::Short:
    case ST::Int:
    case ST::Long:
    case ST::Half:
    case ST::Float:
    case ST::Double:
    case ST::BFloat16:
    case ST::ComplexHalf:
    case ST::ComplexFloat:
    case ST::ComplexDouble:
    case ST::QInt8:
    case ST::QInt32:
    case ST::Float8_e5m2:
    case ST::Float8_e4m3fn:
    case ST::Float8_e5m2fnuz:
    case ST::Float8_e4m3fnuz:
      return true;
    default:
      return false;
  }
}

/* Integer storage type -> its quantized counterpart (else unchanged). */
constexpr ::executorch::aten::ScalarType toQIntType(
    ::executorch::aten::ScalarType t) {
  using internal::ST;
  switch (t) {
    case ST::Byte:
      return ST::QUInt8;
    case ST::Char:
      return ST::QInt8;
    case ST::Int:
      return ST::QInt32;
    default:
      return t;
  }
}

/* Quantized type -> the integer type that stores it (else unchanged). */
constexpr ::executorch::aten::ScalarType toUnderlying(
    ::executorch::aten::ScalarType t) {
  using internal::ST;
  switch (t) {
    case ST::QUInt8:
    case ST::QUInt4x2:
    case ST::QUInt2x4:
      return ST::Byte;
    case ST::QInt8:
      return ST::Char;
    case ST::QInt32:
      return ST::Int;
    default:
      return t;
  }
}

/* Real type -> matching complex type; Undefined if there is none. */
constexpr ::executorch::aten::ScalarType toComplexType(
    ::executorch::aten::ScalarType t) {
  using internal::ST;
  switch (t) {
    case ST::Half:
    case ST::ComplexHalf:
      return ST::ComplexHalf;
    case ST::Float:
    case ST::ComplexFloat:
      return ST::ComplexFloat;
    case ST::Double:
    case ST::ComplexDouble:
      return ST::ComplexDouble;
    default:
      return ST::Undefined;
  }
}

/* Complex type -> its component type (else unchanged). */
constexpr ::executorch::aten::ScalarType toRealValueType(
    ::executorch::aten::ScalarType t) {
  using internal::ST;
  switch (t) {
    case ST::ComplexHalf:
      return ST::Half;
    case ST::ComplexFloat:
      return ST::Float;
    case ST::ComplexDouble:
      return ST::Double;
    default:
      return t;
  }
}

/*
 * Whether a value of `from` may be written to `to` by an operator that
 * casts implicitly: never complex to non-complex, floating to integral, or
 * non-bool to bool.
 */
constexpr bool canCast(
    const ::executorch::aten::ScalarType from,
    const ::executorch::aten::ScalarType to) {
  if (isComplexType(from) && !isComplexType(to)) {
    return false;
  }
  if (isFloatingType(from) && isIntegralType(to, false)) {
    return false;
  }
  if (from != internal::ST::Bool && to == internal::ST::Bool) {
    return false;
  }
  return true;
}

namespace internal {

// Promotion over the 12 "classic" types, in this index order.
constexpr ST kPromoteOrder[12] = {
    ST::Byte,
    ST::Char,
    ST::Short,
    ST::Int,
    ST::Long,
    ST::Half,
    ST::Float,
    ST::Double,
    ST::ComplexHalf,
    ST::ComplexFloat,
    ST::ComplexDouble,
    ST::Bool};

constexpr int promote_index(ST t) {
  for (int i = 0; i < 12; ++i) {
    if (kPromoteOrder[i] == t) {
      return i;
    }
  }
  return -1;
}

// The standard PyTorch promotion lattice (rows and columns as above).
constexpr ST kPromoteTable[12][12] = {
    /* Byte  */ {
        ST::Byte,
        ST::Short,
        ST::Short,
        ST::Int,
        ST::Long,
        ST::Half,
        ST::Float,
        ST::Double,
        ST::ComplexHalf,
        ST::ComplexFloat,
        ST::ComplexDouble,
        ST::Byte},
    /* Char  */
    {ST::Short,
     ST::Char,
     ST::Short,
     ST::Int,
     ST::Long,
     ST::Half,
     ST::Float,
     ST::Double,
     ST::ComplexHalf,
     ST::ComplexFloat,
     ST::ComplexDouble,
     ST::Char},
    /* Short */
    {ST::Short,
     ST::Short,
     ST::Short,
     ST::Int,
     ST::Long,
     ST::Half,
     ST::Float,
     ST::Double,
     ST::ComplexHalf,
     ST::ComplexFloat,
     ST::ComplexDouble,
     ST::Short},
    /* Int   */
    {ST::Int,
     ST::Int,
     ST::Int,
     ST::Int,
     ST::Long,
     ST::Half,
     ST::Float,
     ST::Double,
     ST::ComplexHalf,
     ST::ComplexFloat,
     ST::ComplexDouble,
     ST::Int},
    /* Long  */
    {ST::Long,
     ST::Long,
     ST::Long,
     ST::Long,
     ST::Long,
     ST::Half,
     ST::Float,
     ST::Double,
     ST::ComplexHalf,
     ST::ComplexFloat,
     ST::ComplexDouble,
     ST::Long},
    /* Half  */
    {ST::Half,
     ST::Half,
     ST::Half,
     ST::Half,
     ST::Half,
     ST::Half,
     ST::Float,
     ST::Double,
     ST::ComplexHalf,
     ST::ComplexFloat,
     ST::ComplexDouble,
     ST::Half},
    /* Float */
    {ST::Float,
     ST::Float,
     ST::Float,
     ST::Float,
     ST::Float,
     ST::Float,
     ST::Float,
     ST::Double,
     ST::ComplexFloat,
     ST::ComplexFloat,
     ST::ComplexDouble,
     ST::Float},
    /* Double */
    {ST::Double,
     ST::Double,
     ST::Double,
     ST::Double,
     ST::Double,
     ST::Double,
     ST::Double,
     ST::Double,
     ST::ComplexDouble,
     ST::ComplexDouble,
     ST::ComplexDouble,
     ST::Double},
    /* CHalf */
    {ST::ComplexHalf,
     ST::ComplexHalf,
     ST::ComplexHalf,
     ST::ComplexHalf,
     ST::ComplexHalf,
     ST::ComplexHalf,
     ST::ComplexFloat,
     ST::ComplexDouble,
     ST::ComplexHalf,
     ST::ComplexFloat,
     ST::ComplexDouble,
     ST::ComplexHalf},
    /* CFloat */
    {ST::ComplexFloat,
     ST::ComplexFloat,
     ST::ComplexFloat,
     ST::ComplexFloat,
     ST::ComplexFloat,
     ST::ComplexFloat,
     ST::ComplexFloat,
     ST::ComplexDouble,
     ST::ComplexFloat,
     ST::ComplexFloat,
     ST::ComplexDouble,
     ST::ComplexFloat},
    /* CDouble */
    {ST::ComplexDouble,
     ST::ComplexDouble,
     ST::ComplexDouble,
     ST::ComplexDouble,
     ST::ComplexDouble,
     ST::ComplexDouble,
     ST::ComplexDouble,
     ST::ComplexDouble,
     ST::ComplexDouble,
     ST::ComplexDouble,
     ST::ComplexDouble,
     ST::ComplexDouble},
    /* Bool  */
    {ST::Byte,
     ST::Char,
     ST::Short,
     ST::Int,
     ST::Long,
     ST::Half,
     ST::Float,
     ST::Double,
     ST::ComplexHalf,
     ST::ComplexFloat,
     ST::ComplexDouble,
     ST::Bool},
};

// BFloat16 against one of the 12 classic types.
constexpr ST promote_with_bfloat16(ST other) {
  switch (other) {
    case ST::Half:
    case ST::Float:
      return ST::Float;
    case ST::Double:
      return ST::Double;
    case ST::ComplexHalf:
    case ST::ComplexFloat:
      return ST::ComplexFloat;
    case ST::ComplexDouble:
      return ST::ComplexDouble;
    default:
      return ST::BFloat16;  // Integral and Bool.
  }
}

}  // namespace internal

/*
 * The dtype a binary operation on `a` and `b` computes in. With
 * half_to_float, Half and BFloat16 inputs count as Float. Quantized, bits,
 * float8 and wide unsigned types only promote with themselves; any other
 * combination yields ScalarType::Undefined (callers report the error).
 */
constexpr ::executorch::aten::ScalarType promoteTypes(
    ::executorch::aten::ScalarType a,
    ::executorch::aten::ScalarType b,
    bool half_to_float = false) {
  using internal::ST;
  if (half_to_float) {
    if (a == ST::Half || a == ST::BFloat16) {
      a = ST::Float;
    }
    if (b == ST::Half || b == ST::BFloat16) {
      b = ST::Float;
    }
  }
  if (a == b) {
    return isValid(a) ? a : ST::Undefined;
  }
  if (isQIntType(a) || isQIntType(b) || isBitsType(a) || isBitsType(b) ||
      isFloat8Type(a) || isFloat8Type(b) || isBarebonesUnsignedType(a) ||
      isBarebonesUnsignedType(b)) {
    return ST::Undefined;
  }
  if (a == ST::BFloat16 || b == ST::BFloat16) {
    const ST other = a == ST::BFloat16 ? b : a;
    return internal::promote_index(other) < 0
               ? ST::Undefined
               : internal::promote_with_bfloat16(other);
  }
  const int ia = internal::promote_index(a);
  const int ib = internal::promote_index(b);
  if (ia < 0 || ib < 0) {
    return ST::Undefined;
  }
  return internal::kPromoteTable[ia][ib];
}

/* promote_types<T1, T2>::type: the C++ type of promoteTypes on T1, T2. */
template <typename T1, typename T2, bool half_to_float = false>
struct promote_types {
 private:
  static constexpr ::executorch::aten::ScalarType kResult = promoteTypes(
      CppTypeToScalarType<T1>::value,
      CppTypeToScalarType<T2>::value,
      half_to_float);
  static_assert(
      kResult != ::executorch::aten::ScalarType::Undefined,
      "these types have no common promoted type");

 public:
  using type = typename ScalarTypeToCppType<kResult>::type;
  static constexpr ::executorch::aten::ScalarType value = kResult;
};

/* Value conversion between element types (through float for Half/BF16). */
template <typename To, typename From>
inline To convert(From val) {
  return static_cast<To>(val);
}

}  // namespace runtime
}  // namespace executorch

// ---------------------------------------------------------------------------
// ET_SWITCH_*: dispatch on a ScalarType to a lambda instantiated per dtype.
//
//   ET_SWITCH_REAL_TYPES(t.scalar_type(), ctx, "add.out", CTYPE, [&]() {
//     ... code using CTYPE ...
//   });
//
// On a dtype outside the set, ctx.fail(Error::InvalidArgument) is called
// and an error is logged; nothing aborts. The lambda is pasted into every
// case, with CTYPE_ALIAS bound to that case's C++ type.

#define ET_INTERNAL_SWITCH_CASE(ENUM, CTYPE_ALIAS, ...)             \
  case ::executorch::aten::ScalarType::ENUM: {                      \
    using CTYPE_ALIAS = ::executorch::runtime::ScalarTypeToCppType< \
        ::executorch::aten::ScalarType::ENUM>::type;                \
    return __VA_ARGS__();                                           \
  }

#define ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ...)                   \
  [&] {                                                                \
    const ::executorch::aten::ScalarType _et_switch_st = (TYPE);       \
    const char* const _et_switch_name = (NAME);                        \
    switch (_et_switch_st) {                                           \
      __VA_ARGS__                                                      \
      default:                                                         \
        (CONTEXT).fail(::executorch::runtime::Error::InvalidArgument); \
        ET_LOG(                                                        \
            Error,                                                     \
            "Unhandled dtype %s for %s",                               \
            ::executorch::runtime::toString(_et_switch_st),            \
            _et_switch_name);                                          \
    }                                                                  \
  }()

// Case lists per set (each expands ET_INTERNAL_SWITCH_CASE per dtype).
#define ET_INTERNAL_CASES_INT(A, ...)            \
  ET_INTERNAL_SWITCH_CASE(Byte, A, __VA_ARGS__)  \
  ET_INTERNAL_SWITCH_CASE(Char, A, __VA_ARGS__)  \
  ET_INTERNAL_SWITCH_CASE(Short, A, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(Int, A, __VA_ARGS__)   \
  ET_INTERNAL_SWITCH_CASE(Long, A, __VA_ARGS__)
#define ET_INTERNAL_CASES_FLOAT(A, ...)          \
  ET_INTERNAL_SWITCH_CASE(Float, A, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(Double, A, __VA_ARGS__)
#define ET_INTERNAL_CASES_REAL(A, ...) \
  ET_INTERNAL_CASES_INT(A, __VA_ARGS__) ET_INTERNAL_CASES_FLOAT(A, __VA_ARGS__)
#define ET_INTERNAL_CASES_UINT(A, ...)            \
  ET_INTERNAL_SWITCH_CASE(UInt16, A, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(UInt32, A, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(UInt64, A, __VA_ARGS__)
#define ET_INTERNAL_CASES_QINT(A, ...)              \
  ET_INTERNAL_SWITCH_CASE(QInt8, A, __VA_ARGS__)    \
  ET_INTERNAL_SWITCH_CASE(QUInt8, A, __VA_ARGS__)   \
  ET_INTERNAL_SWITCH_CASE(QInt32, A, __VA_ARGS__)   \
  ET_INTERNAL_SWITCH_CASE(QUInt4x2, A, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(QUInt2x4, A, __VA_ARGS__)
#define ET_INTERNAL_CASES_COMPLEX(A, ...)               \
  ET_INTERNAL_SWITCH_CASE(ComplexFloat, A, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(ComplexDouble, A, __VA_ARGS__)
#define ET_INTERNAL_CASES_ALL(A, ...)                  \
  ET_INTERNAL_CASES_REAL(A, __VA_ARGS__)               \
  ET_INTERNAL_SWITCH_CASE(Half, A, __VA_ARGS__)        \
  ET_INTERNAL_SWITCH_CASE(ComplexHalf, A, __VA_ARGS__) \
  ET_INTERNAL_CASES_COMPLEX(A, __VA_ARGS__)            \
  ET_INTERNAL_SWITCH_CASE(Bool, A, __VA_ARGS__)        \
  ET_INTERNAL_CASES_QINT(A, __VA_ARGS__)               \
  ET_INTERNAL_SWITCH_CASE(BFloat16, A, __VA_ARGS__)    \
  ET_INTERNAL_CASES_UINT(A, __VA_ARGS__)

// Scalar-object sets switch on the dtype of an EValue/Scalar payload, whose
// C++ types are bool, int64_t and double only.
#define ET_INTERNAL_SCALAR_OBJ_CASE(ENUM, CTYPE, CTYPE_ALIAS, ...) \
  case ::executorch::aten::ScalarType::ENUM: {                     \
    using CTYPE_ALIAS = CTYPE;                                     \
    return __VA_ARGS__();                                          \
  }

#define ET_SWITCH_ALL_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(                                              \
      TYPE, CONTEXT, NAME, ET_INTERNAL_CASES_ALL(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_REAL_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(                                               \
      TYPE, CONTEXT, NAME, ET_INTERNAL_CASES_REAL(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_REAL_TYPES_AND(T1, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(                                                       \
      TYPE,                                                                 \
      CONTEXT,                                                              \
      NAME,                                                                 \
      ET_INTERNAL_CASES_REAL(CTYPE_ALIAS, __VA_ARGS__)                      \
          ET_INTERNAL_SWITCH_CASE(T1, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_REAL_TYPES_AND2(                              \
    T1, T2, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)              \
  ET_INTERNAL_SWITCH(                                           \
      TYPE,                                                     \
      CONTEXT,                                                  \
      NAME,                                                     \
      ET_INTERNAL_CASES_REAL(CTYPE_ALIAS, __VA_ARGS__)          \
          ET_INTERNAL_SWITCH_CASE(T1, CTYPE_ALIAS, __VA_ARGS__) \
              ET_INTERNAL_SWITCH_CASE(T2, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_REAL_TYPES_AND3(                                  \
    T1, T2, T3, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)              \
  ET_INTERNAL_SWITCH(                                               \
      TYPE,                                                         \
      CONTEXT,                                                      \
      NAME,                                                         \
      ET_INTERNAL_CASES_REAL(CTYPE_ALIAS, __VA_ARGS__)              \
          ET_INTERNAL_SWITCH_CASE(T1, CTYPE_ALIAS, __VA_ARGS__)     \
              ET_INTERNAL_SWITCH_CASE(T2, CTYPE_ALIAS, __VA_ARGS__) \
                  ET_INTERNAL_SWITCH_CASE(T3, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_REALH_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_REAL_TYPES_AND(Half, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)

#define ET_SWITCH_REALB_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_REAL_TYPES_AND(Bool, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)

#define ET_SWITCH_REALHB_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_REAL_TYPES_AND2(                                          \
      Half, Bool, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)

#define ET_SWITCH_REALHBF16_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_REAL_TYPES_AND2(                                             \
      Half, BFloat16, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)

#define ET_SWITCH_REALHBBF16_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_REAL_TYPES_AND3(                                              \
      Half, Bool, BFloat16, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)

#define ET_SWITCH_REALHBBF16_AND_UINT_TYPES(                                  \
    TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)                                    \
  ET_INTERNAL_SWITCH(                                                         \
      TYPE,                                                                   \
      CONTEXT,                                                                \
      NAME,                                                                   \
      ET_INTERNAL_CASES_REAL(CTYPE_ALIAS, __VA_ARGS__)                        \
          ET_INTERNAL_SWITCH_CASE(Half, CTYPE_ALIAS, __VA_ARGS__)             \
              ET_INTERNAL_SWITCH_CASE(Bool, CTYPE_ALIAS, __VA_ARGS__)         \
                  ET_INTERNAL_SWITCH_CASE(BFloat16, CTYPE_ALIAS, __VA_ARGS__) \
                      ET_INTERNAL_CASES_UINT(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_INT_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(                                              \
      TYPE, CONTEXT, NAME, ET_INTERNAL_CASES_INT(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_INT_TYPES_AND(T1, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(                                                      \
      TYPE,                                                                \
      CONTEXT,                                                             \
      NAME,                                                                \
      ET_INTERNAL_CASES_INT(CTYPE_ALIAS, __VA_ARGS__)                      \
          ET_INTERNAL_SWITCH_CASE(T1, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_FLOAT_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(                                                \
      TYPE, CONTEXT, NAME, ET_INTERNAL_CASES_FLOAT(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_FLOAT_TYPES_AND(T1, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(                                                        \
      TYPE,                                                                  \
      CONTEXT,                                                               \
      NAME,                                                                  \
      ET_INTERNAL_CASES_FLOAT(CTYPE_ALIAS, __VA_ARGS__)                      \
          ET_INTERNAL_SWITCH_CASE(T1, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_FLOAT_TYPES_AND2(                             \
    T1, T2, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)              \
  ET_INTERNAL_SWITCH(                                           \
      TYPE,                                                     \
      CONTEXT,                                                  \
      NAME,                                                     \
      ET_INTERNAL_CASES_FLOAT(CTYPE_ALIAS, __VA_ARGS__)         \
          ET_INTERNAL_SWITCH_CASE(T1, CTYPE_ALIAS, __VA_ARGS__) \
              ET_INTERNAL_SWITCH_CASE(T2, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_FLOATH_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_FLOAT_TYPES_AND(Half, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)

#define ET_SWITCH_FLOATHBF16_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_FLOAT_TYPES_AND2(                                             \
      Half, BFloat16, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)

#define ET_SWITCH_QINT_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(                                               \
      TYPE, CONTEXT, NAME, ET_INTERNAL_CASES_QINT(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_COMPLEX_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(                                                  \
      TYPE,                                                            \
      CONTEXT,                                                         \
      NAME,                                                            \
      ET_INTERNAL_CASES_COMPLEX(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_COMPLEXH_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(                                                   \
      TYPE,                                                             \
      CONTEXT,                                                          \
      NAME,                                                             \
      ET_INTERNAL_SWITCH_CASE(ComplexHalf, CTYPE_ALIAS, __VA_ARGS__)    \
          ET_INTERNAL_CASES_COMPLEX(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_SCALAR_OBJ_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)      \
  ET_INTERNAL_SWITCH(                                                          \
      TYPE,                                                                    \
      CONTEXT,                                                                 \
      NAME,                                                                    \
      ET_INTERNAL_SCALAR_OBJ_CASE(Bool, bool, CTYPE_ALIAS, __VA_ARGS__)        \
          ET_INTERNAL_SCALAR_OBJ_CASE(Long, int64_t, CTYPE_ALIAS, __VA_ARGS__) \
              ET_INTERNAL_SCALAR_OBJ_CASE(                                     \
                  Double, double, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_SCALAR_OBJ_REAL_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(                                                          \
      TYPE,                                                                    \
      CONTEXT,                                                                 \
      NAME,                                                                    \
      ET_INTERNAL_SCALAR_OBJ_CASE(Long, int64_t, CTYPE_ALIAS, __VA_ARGS__)     \
          ET_INTERNAL_SCALAR_OBJ_CASE(                                         \
              Double, double, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_SCALAR_OBJ_INTB_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(                                                          \
      TYPE,                                                                    \
      CONTEXT,                                                                 \
      NAME,                                                                    \
      ET_INTERNAL_SCALAR_OBJ_CASE(Bool, bool, CTYPE_ALIAS, __VA_ARGS__)        \
          ET_INTERNAL_SCALAR_OBJ_CASE(                                         \
              Long, int64_t, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_SCALAR_OBJ_FLOATB_TYPES(                              \
    TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)                              \
  ET_INTERNAL_SWITCH(                                                   \
      TYPE,                                                             \
      CONTEXT,                                                          \
      NAME,                                                             \
      ET_INTERNAL_SCALAR_OBJ_CASE(Bool, bool, CTYPE_ALIAS, __VA_ARGS__) \
          ET_INTERNAL_SCALAR_OBJ_CASE(                                  \
              Double, double, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_TWO_TYPES(T1, T2, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(                                                      \
      TYPE,                                                                \
      CONTEXT,                                                             \
      NAME,                                                                \
      ET_INTERNAL_SWITCH_CASE(T1, CTYPE_ALIAS, __VA_ARGS__)                \
          ET_INTERNAL_SWITCH_CASE(T2, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_THREE_TYPES(                                  \
    T1, T2, T3, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)          \
  ET_INTERNAL_SWITCH(                                           \
      TYPE,                                                     \
      CONTEXT,                                                  \
      NAME,                                                     \
      ET_INTERNAL_SWITCH_CASE(T1, CTYPE_ALIAS, __VA_ARGS__)     \
          ET_INTERNAL_SWITCH_CASE(T2, CTYPE_ALIAS, __VA_ARGS__) \
              ET_INTERNAL_SWITCH_CASE(T3, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_FOUR_TYPES(                                       \
    T1, T2, T3, T4, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)          \
  ET_INTERNAL_SWITCH(                                               \
      TYPE,                                                         \
      CONTEXT,                                                      \
      NAME,                                                         \
      ET_INTERNAL_SWITCH_CASE(T1, CTYPE_ALIAS, __VA_ARGS__)         \
          ET_INTERNAL_SWITCH_CASE(T2, CTYPE_ALIAS, __VA_ARGS__)     \
              ET_INTERNAL_SWITCH_CASE(T3, CTYPE_ALIAS, __VA_ARGS__) \
                  ET_INTERNAL_SWITCH_CASE(T4, CTYPE_ALIAS, __VA_ARGS__))

namespace torch {
namespace executor {
using ::executorch::runtime::canCast;
using ::executorch::runtime::CppTypeToScalarType;
using ::executorch::runtime::elementSize;
using ::executorch::runtime::isComplexType;
using ::executorch::runtime::isFloatingType;
using ::executorch::runtime::isIntegralType;
using ::executorch::runtime::isQIntType;
using ::executorch::runtime::isRealHBBF16Type;
using ::executorch::runtime::isRealHBF16Type;
using ::executorch::runtime::isRealHBType;
using ::executorch::runtime::isRealHType;
using ::executorch::runtime::isRealType;
using ::executorch::runtime::isValid;
using ::executorch::runtime::promote_types;
using ::executorch::runtime::promoteTypes;
using ::executorch::runtime::ScalarTypeToCppType;
using ::executorch::runtime::toString;
}  // namespace executor
}  // namespace torch
