// qd8 x qb4w, portable variant: the reference arithmetic of qd8_qb4w.h over the packed panels,
// one row and one panel of 16 columns at a time (the integer loops vectorize; the per-block
// fused multiply-add has a single rounding, as XNNPACK's kernels do).
#include <cmath>
#include <cstring>

#include "qd8_qb4w_kernels.h"

namespace executorch {
namespace kernels {
namespace compute {
namespace {

// fma(a, b, c) for an integer a below 2^24 in magnitude: the product is exact in double (at
// most 48 significant bits), and so is the sum whenever its rounding error (TwoSum) is zero;
// then one rounding to float gives the fused result. Only otherwise (rare: operands of very
// different magnitudes) std::fma, a library call on x86-64 without FMA.
inline float fma_of_integer(float a, float b, float c) {
  const double p = static_cast<double>(a) * static_cast<double>(b);
  const double cd = static_cast<double>(c);
  const double s = p + cd;
  const double bp = s - p;
  const double err = (p - (s - bp)) + (cd - bp);
  return err == 0.0 ? static_cast<float>(s) : std::fma(a, b, c);
}

void run_baseline(int64_t m, int64_t n, int64_t k, int64_t block, const uint8_t* u, int64_t ldu,
                  const int32_t* zero_point, const float* scale, const uint8_t* packed,
                  const float* bias, float lo, float hi, float* y, int64_t ldy) {
  const int64_t blocks = k / block;
  const size_t panel_bytes = qb4w_panel_bytes(k, block);
  for (int64_t n0 = 0; n0 < n; n0 += kQb4wPanel) {
    const uint8_t* panel = packed + static_cast<size_t>(n0 / kQb4wPanel) * panel_bytes;
    const int64_t width = n - n0 < kQb4wPanel ? n - n0 : kQb4wPanel;
    for (int64_t r = 0; r < m; ++r) {
      const uint8_t* a = u + r * ldu;
      const uint8_t* p = panel;
      float t[kQb4wPanel], v[kQb4wPanel];
      std::memcpy(t, p, sizeof(t));
      p += 64;
      const float zp = static_cast<float>(zero_point[r]);
      for (int64_t j = 0; j < kQb4wPanel; ++j)
        v[j] = t[j] * zp;
      for (int64_t b = 0; b < blocks; ++b) {
        float s[kQb4wPanel];
        std::memcpy(s, p, sizeof(s));
        p += 64;
        int32_t acc[kQb4wPanel] = {};
        for (int64_t k0 = b * block; k0 < (b + 1) * block; k0 += 8) {
          for (int64_t j = 0; j < kQb4wPanel; ++j) {
            int32_t sum = 0;
            for (int64_t i = 0; i < 4; ++i) {
              const uint8_t byte = p[4 * j + i];
              // Sign-extend each nibble.
              const int32_t w_lo = static_cast<int8_t>(static_cast<uint8_t>(byte << 4)) >> 4;
              const int32_t w_hi = static_cast<int8_t>(byte & 0xF0) >> 4;
              sum += static_cast<int32_t>(a[k0 + i]) * w_lo +
                     static_cast<int32_t>(a[k0 + 4 + i]) * w_hi;
            }
            acc[j] += sum;
          }
          p += 64;
        }
        for (int64_t j = 0; j < kQb4wPanel; ++j)
          v[j] = fma_of_integer(static_cast<float>(acc[j]), s[j], v[j]);
      }
      float* out = y + r * ldy + n0;
      for (int64_t j = 0; j < width; ++j) {
        float o = v[j] * scale[r] + (bias != nullptr ? bias[n0 + j] : 0.0f);
        o = o < lo ? lo : o;
        out[j] = o > hi ? hi : o;
      }
    }
  }
}

#include "qd8_quantize_row.inc"

}  // namespace

const Qd8Qb4wKernel kQd8Qb4wBaseline = {run_baseline, quantize_row, "baseline"};

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
