/*
 * Half: IEEE 754 binary16 storage type with arithmetic done in float.
 */
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

namespace executorch {
namespace runtime {
namespace etensor {

namespace internal {

inline uint32_t float_bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

inline float bits_float(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

/* binary16 -> binary32, exact for every input (NaN payloads kept). */
inline float fp16_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  const uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0) {
    // Zero or subnormal: value = mantissa * 2^-24, exact in float.
    const float magnitude =
        static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 0x1F) {
    return bits_float(sign | 0x7F800000u | (mantissa << 13));
  }
  return bits_float(sign | ((exponent + (127 - 15)) << 23) | (mantissa << 13));
}

/* binary32 -> binary16 with round-to-nearest-even, saturating to inf. */
inline uint16_t float_to_fp16_bits(float f) {
  const uint32_t bits = float_bits(f);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude >= 0x7F800000u) {
    // Inf stays inf; any NaN becomes a quiet NaN.
    return static_cast<uint16_t>(
        sign | (magnitude > 0x7F800000u ? 0x7E00u : 0x7C00u));
  }
  if (magnitude >= 0x477FF000u) {
    // At or above 65520 the nearest half is infinity.
    return static_cast<uint16_t>(sign | 0x7C00u);
  }
  if (magnitude < 0x38800000u) {
    // Below the smallest normal half: let the FPU round by adding 0.5, which
    // puts the half subnormal bits at the bottom of the float mantissa.
    const float shifted = bits_float(magnitude) + 0.5f;
    return static_cast<uint16_t>(sign | (float_bits(shifted) - 0x3F000000u));
  }
  // Normal: rebias the exponent and round the 13 dropped bits to even.
  const uint32_t lsb = (magnitude >> 13) & 1u;
  magnitude += (static_cast<uint32_t>(15 - 127) << 23) + 0x0FFFu + lsb;
  return static_cast<uint16_t>(sign | (magnitude >> 13));
}

}  // namespace internal

struct alignas(2) Half {
  uint16_t x;

  struct from_bits_t {};
  static constexpr from_bits_t from_bits() {
    return from_bits_t();
  }

  Half() = default;
  constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  /* implicit */ Half(float value) : x(internal::float_to_fp16_bits(value)) {}
  /* implicit */ operator float() const {
    return internal::fp16_bits_to_float(x);
  }
};

/*
 * Arithmetic mirrors c10::Half: Half with Half or an integer stays Half,
 * Half with float/double widens to that type.
 */
#define ET_INTERNAL_DEFINE_REDUCED_FLOAT_OPS(T)           \
  inline T operator+(const T& a, const T& b) {            \
    return static_cast<float>(a) + static_cast<float>(b); \
  }                                                       \
  inline T operator-(const T& a, const T& b) {            \
    return static_cast<float>(a) - static_cast<float>(b); \
  }                                                       \
  inline T operator*(const T& a, const T& b) {            \
    return static_cast<float>(a) * static_cast<float>(b); \
  }                                                       \
  inline T operator/(const T& a, const T& b) {            \
    return static_cast<float>(a) / static_cast<float>(b); \
  }                                                       \
  inline T operator-(const T& a) {                        \
    return -static_cast<float>(a);                        \
  }                                                       \
  inline T& operator+=(T& a, const T& b) {                \
    a = a + b;                                            \
    return a;                                             \
  }                                                       \
  inline T& operator-=(T& a, const T& b) {                \
    a = a - b;                                            \
    return a;                                             \
  }                                                       \
  inline T& operator*=(T& a, const T& b) {                \
    a = a * b;                                            \
    return a;                                             \
  }                                                       \
  inline T& operator/=(T& a, const T& b) {                \
    a = a / b;                                            \
    return a;                                             \
  }                                                       \
  ET_INTERNAL_REDUCED_FLOAT_MIXED(T, float, float)        \
  ET_INTERNAL_REDUCED_FLOAT_MIXED(T, double, double)      \
  ET_INTERNAL_REDUCED_FLOAT_MIXED(T, int, T)              \
  ET_INTERNAL_REDUCED_FLOAT_MIXED(T, int64_t, T)

#define ET_INTERNAL_REDUCED_FLOAT_MIXED(T, U, R)      \
  inline R operator+(T a, U b) {                      \
    return static_cast<R>(static_cast<float>(a) + b); \
  }                                                   \
  inline R operator-(T a, U b) {                      \
    return static_cast<R>(static_cast<float>(a) - b); \
  }                                                   \
  inline R operator*(T a, U b) {                      \
    return static_cast<R>(static_cast<float>(a) * b); \
  }                                                   \
  inline R operator/(T a, U b) {                      \
    return static_cast<R>(static_cast<float>(a) / b); \
  }                                                   \
  inline R operator+(U a, T b) {                      \
    return static_cast<R>(a + static_cast<float>(b)); \
  }                                                   \
  inline R operator-(U a, T b) {                      \
    return static_cast<R>(a - static_cast<float>(b)); \
  }                                                   \
  inline R operator*(U a, T b) {                      \
    return static_cast<R>(a * static_cast<float>(b)); \
  }                                                   \
  inline R operator/(U a, T b) {                      \
    return static_cast<R>(a / static_cast<float>(b)); \
  }

ET_INTERNAL_DEFINE_REDUCED_FLOAT_OPS(Half)

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace std {

template <>
class numeric_limits<::executorch::runtime::etensor::Half> {
  using H = ::executorch::runtime::etensor::Half;

 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = true;
  static constexpr bool is_iec559 = true;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int digits = 11;
  static constexpr int digits10 = 3;
  static constexpr int max_digits10 = 5;
  static constexpr int radix = 2;
  static constexpr int min_exponent = -13;
  static constexpr int min_exponent10 = -4;
  static constexpr int max_exponent = 16;
  static constexpr int max_exponent10 = 4;
  static constexpr H min() {
    return H(0x0400, H::from_bits());
  }
  static constexpr H lowest() {
    return H(0xFBFF, H::from_bits());
  }
  static constexpr H max() {
    return H(0x7BFF, H::from_bits());
  }
  static constexpr H epsilon() {
    return H(0x1400, H::from_bits());
  }
  static constexpr H round_error() {
    return H(0x3800, H::from_bits());
  }
  static constexpr H infinity() {
    return H(0x7C00, H::from_bits());
  }
  static constexpr H quiet_NaN() {
    return H(0x7E00, H::from_bits());
  }
  static constexpr H signaling_NaN() {
    return H(0x7D00, H::from_bits());
  }
  static constexpr H denorm_min() {
    return H(0x0001, H::from_bits());
  }
};

}  // namespace std

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::Half;
}  // namespace executor
}  // namespace torch
