/*
 * Scalar: a tagged int64 / double / bool, the type of Scalar arguments of
 * operators (e.g. the `alpha` of add).
 */
#pragma once

#include <cstdint>
#include <type_traits>

#include <executorch/runtime/core/portable_type/bfloat16.h>
#include <executorch/runtime/core/portable_type/half.h>

namespace executorch {
namespace runtime {
namespace etensor {

class Scalar {
 public:
  /* Integer zero, as in c10. */
  Scalar() : Scalar(int64_t(0)) {}

  template <
      typename T,
      typename std::enable_if<std::is_integral<T>::value, bool>::type = true>
  /* implicit */ Scalar(T val) : tag_(Tag::Int) {
    v_.as_int = static_cast<int64_t>(val);
  }
  /* implicit */ Scalar(bool val) : tag_(Tag::Bool) {
    v_.as_bool = val;
  }
  /* implicit */ Scalar(double val) : tag_(Tag::Double) {
    v_.as_double = val;
  }
  /* implicit */ Scalar(BFloat16 val)
      : Scalar(static_cast<double>(static_cast<float>(val))) {}
  /* implicit */ Scalar(Half val)
      : Scalar(static_cast<double>(static_cast<float>(val))) {}

  /* Reads the value as T (double, int64_t or bool), converting if needed. */
  template <typename T>
  T to() const;

  bool isIntegral(bool includeBool) const {
    return tag_ == Tag::Int || (includeBool && tag_ == Tag::Bool);
  }
  bool isFloatingPoint() const {
    return tag_ == Tag::Double;
  }
  bool isBoolean() const {
    return tag_ == Tag::Bool;
  }

 private:
  enum class Tag { Double, Int, Bool };

  int64_t toInt() const {
    switch (tag_) {
      case Tag::Int:
        return v_.as_int;
      case Tag::Bool:
        return v_.as_bool ? 1 : 0;
      case Tag::Double:
        break;
    }
    return static_cast<int64_t>(v_.as_double);
  }
  double toDouble() const {
    switch (tag_) {
      case Tag::Double:
        return v_.as_double;
      case Tag::Bool:
        return v_.as_bool ? 1.0 : 0.0;
      case Tag::Int:
        break;
    }
    return static_cast<double>(v_.as_int);
  }
  bool toBool() const {
    switch (tag_) {
      case Tag::Bool:
        return v_.as_bool;
      case Tag::Int:
        return v_.as_int != 0;
      case Tag::Double:
        break;
    }
    return v_.as_double != 0.0;
  }

  Tag tag_;
  union {
    double as_double;
    int64_t as_int;
    bool as_bool;
  } v_;
};

template <>
inline double Scalar::to<double>() const {
  return toDouble();
}
template <>
inline int64_t Scalar::to<int64_t>() const {
  return toInt();
}
template <>
inline bool Scalar::to<bool>() const {
  return toBool();
}

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::Scalar;
}  // namespace executor
}  // namespace torch
