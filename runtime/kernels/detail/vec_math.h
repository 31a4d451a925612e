/*
 * Float math written so that -O3 auto-vectorizes the loops calling it
 * (straight-line code: selects instead of branches, bit casts instead of
 * library calls). Accuracy is within a few ulp of libm over the whole range;
 * NaN, +-inf and overflow/underflow follow IEEE expf.
 */
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

namespace executorch {
namespace kernels {
namespace detail {

/* e^x for float. */
inline float exp_f32(float x) {
  const float kHi = 88.3762626647949f;  // largest x with a normal 2^n scale
  const float kLo = -87.3365447505531f;
  float xc = x > kHi ? kHi : x;
  xc = xc < kLo ? kLo : xc;
  // x = n ln2 + r, |r| <= ln2 / 2; n rounded to nearest by the 1.5 * 2^23 trick.
  const float kMagic = 12582912.0f;
  const float n = (xc * 1.44269504088896341f + kMagic) - kMagic;
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  // Minimax polynomial for e^r on [-ln2/2, ln2/2].
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  float y = p * (r * r) + r + 1.0f;
  // The exponent field is built in unsigned arithmetic: n can be far out of range (or NaN)
  // for inputs the selects below replace, and a signed shift of those would be undefined.
  const float n_clamped = n >= -127.0f ? (n <= 128.0f ? n : 128.0f) : -127.0f;  // NaN -> -127
  const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n_clamped) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  y = y * scale;
  y = x > 88.72283935546875f ? std::numeric_limits<float>::infinity() : y;
  y = x < -103.972084045410156f ? 0.0f : y;
  y = x != x ? x : y;
  return y;
}

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
