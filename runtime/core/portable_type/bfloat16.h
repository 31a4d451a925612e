/*
 * BFloat16: the top 16 bits of an IEEE binary32, arithmetic done in float.
 */
#pragma once

#include <cstdint>
#include <limits>

#include <executorch/runtime/core/portable_type/half.h>

namespace executorch {
namespace runtime {
namespace etensor {

namespace internal {

/* binary32 -> bfloat16 with round-to-nearest-even; NaN stays NaN. */
inline uint16_t float_to_bf16_bits(float f) {
  const uint32_t bits = float_bits(f);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) {
    return 0x7FC0;  // Rounding could turn a NaN into inf; use a quiet NaN.
  }
  const uint32_t bias = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + bias) >> 16);
}

inline float bf16_bits_to_float(uint16_t b) {
  return bits_float(static_cast<uint32_t>(b) << 16);
}

}  // namespace internal

struct alignas(2) BFloat16 {
  uint16_t x;

  struct from_bits_t {};
  static constexpr from_bits_t from_bits() {
    return from_bits_t();
  }

  BFloat16() = default;
  constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  /* implicit */ BFloat16(float value)
      : x(internal::float_to_bf16_bits(value)) {}
  /* implicit */ operator float() const {
    return internal::bf16_bits_to_float(x);
  }
};

ET_INTERNAL_DEFINE_REDUCED_FLOAT_OPS(BFloat16)

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace std {

template <>
class numeric_limits<::executorch::runtime::etensor::BFloat16> {
  using B = ::executorch::runtime::etensor::BFloat16;

 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = true;
  static constexpr bool is_iec559 = false;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int digits = 8;
  static constexpr int digits10 = 2;
  static constexpr int max_digits10 = 4;
  static constexpr int radix = 2;
  static constexpr int min_exponent = -125;
  static constexpr int min_exponent10 = -37;
  static constexpr int max_exponent = 128;
  static constexpr int max_exponent10 = 38;
  static constexpr B min() {
    return B(0x0080, B::from_bits());
  }
  static constexpr B lowest() {
    return B(0xFF7F, B::from_bits());
  }
  static constexpr B max() {
    return B(0x7F7F, B::from_bits());
  }
  static constexpr B epsilon() {
    return B(0x3C00, B::from_bits());
  }
  static constexpr B round_error() {
    return B(0x3F00, B::from_bits());
  }
  static constexpr B infinity() {
    return B(0x7F80, B::from_bits());
  }
  static constexpr B quiet_NaN() {
    return B(0x7FC0, B::from_bits());
  }
  static constexpr B signaling_NaN() {
    return B(0x7F80 | 0x0001, B::from_bits());
  }
  static constexpr B denorm_min() {
    return B(0x0001, B::from_bits());
  }
};

}  // namespace std

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::BFloat16;
}  // namespace executor
}  // namespace torch
