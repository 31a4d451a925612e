/*
 * Private: calls a generic functor with a value of the C++ type matching a
 * runtime dtype, for the dtypes the tensor helpers can fill, convert and
 * print (the real types, Half, BFloat16, Bool and the unsigned ones).
 */
#pragma once

#include <cstdint>
#include <type_traits>

#include <executorch/runtime/core/exec_aten/exec_aten.h>

namespace executorch {
namespace extension {
namespace detail {

template <typename T>
struct DtypeTag {
  using type = T;
};

/// Returns false (without calling `fn`) for an unsupported dtype.
template <typename Fn>
bool visit_dtype(executorch::aten::ScalarType dtype, Fn&& fn) {
  using ST = executorch::aten::ScalarType;
  switch (dtype) {
    case ST::Byte:
      fn(DtypeTag<uint8_t>{});
      return true;
    case ST::Char:
      fn(DtypeTag<int8_t>{});
      return true;
    case ST::Short:
      fn(DtypeTag<int16_t>{});
      return true;
    case ST::Int:
      fn(DtypeTag<int32_t>{});
      return true;
    case ST::Long:
      fn(DtypeTag<int64_t>{});
      return true;
    case ST::Half:
      fn(DtypeTag<executorch::aten::Half>{});
      return true;
    case ST::Float:
      fn(DtypeTag<float>{});
      return true;
    case ST::Double:
      fn(DtypeTag<double>{});
      return true;
    case ST::Bool:
      fn(DtypeTag<bool>{});
      return true;
    case ST::BFloat16:
      fn(DtypeTag<executorch::aten::BFloat16>{});
      return true;
    case ST::UInt16:
      fn(DtypeTag<uint16_t>{});
      return true;
    case ST::UInt32:
      fn(DtypeTag<uint32_t>{});
      return true;
    case ST::UInt64:
      fn(DtypeTag<uint64_t>{});
      return true;
    default:
      return false;
  }
}

/// Converts between any two dispatchable element types (Half and BFloat16
/// go through float).
template <typename To, typename From>
inline To convert_element(const From& v) {
  constexpr bool from_reduced =
      std::is_same_v<From, executorch::aten::Half> ||
      std::is_same_v<From, executorch::aten::BFloat16>;
  constexpr bool to_reduced = std::is_same_v<To, executorch::aten::Half> ||
                              std::is_same_v<To, executorch::aten::BFloat16>;
  if constexpr (from_reduced && to_reduced) {
    return To(static_cast<float>(v));
  } else if constexpr (from_reduced) {
    return static_cast<To>(static_cast<float>(v));
  } else if constexpr (to_reduced) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace detail
}  // namespace extension
}  // namespace executorch
