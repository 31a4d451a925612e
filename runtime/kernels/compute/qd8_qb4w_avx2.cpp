// qd8 x qb4w, AVX2 variant: the nibbles are sign-extended to bytes in registers, VPMADDUBSW
// multiplies them by the unsigned activation bytes in pairs (at most 2 * 255 * 8 in magnitude,
// so the int16 never saturates) and VPMADDWD sums the pairs into the column lanes (two
// registers of 8 columns per 16-column panel), for tiles of up to 4 rows. The float steps are
// those of qd8_qb4w.h.
#include <immintrin.h>

#include <cmath>
#include <cstring>

#include "qd8_qb4w_kernels.h"

namespace executorch {
namespace kernels {
namespace compute {
namespace {

constexpr int kMaxRows = 4;

// The signed nibbles (low or high half of each byte) of w as bytes in [-8, 7].
inline __m256i low_nibbles(__m256i w) {
  const __m256i m = _mm256_set1_epi8(0x0F), eight = _mm256_set1_epi8(8);
  return _mm256_sub_epi8(_mm256_xor_si256(_mm256_and_si256(w, m), eight), eight);
}
inline __m256i high_nibbles(__m256i w) {
  return low_nibbles(_mm256_srli_epi16(w, 4));
}

// a * b then + c with two roundings: the empty asm keeps the compiler from contracting them
// into one FMA (XNNPACK's kernels round the product first).
inline __m256 mul_then_add(__m256 a, __m256 b, __m256 c) {
  __m256 p = _mm256_mul_ps(a, b);
  __asm__("" : "+x"(p));
  return _mm256_add_ps(p, c);
}

template <int R>
void tile(int64_t k, int64_t block, const uint8_t* u, int64_t ldu, const int32_t* zero_point,
          const float* scale, const uint8_t* panel, const float* bias, float lo, float hi, float* y,
          int64_t ldy, int64_t width) {
  const int64_t blocks = k / block;
  const __m256i ones = _mm256_set1_epi16(1);
  const float* t = reinterpret_cast<const float*>(panel);
  const uint8_t* p = panel + 64;
  __m256 v[R][2];
  for (int r = 0; r < R; ++r) {
    const __m256 zp = _mm256_set1_ps(static_cast<float>(zero_point[r]));
    for (int h = 0; h < 2; ++h) {
      __m256 prod = _mm256_mul_ps(_mm256_load_ps(t + 8 * h), zp);
      v[r][h] = prod;
    }
  }
  for (int64_t b = 0; b < blocks; ++b) {
    const float* s = reinterpret_cast<const float*>(p);
    p += 64;
    __m256i acc[R][2];
    for (int r = 0; r < R; ++r)
      acc[r][0] = acc[r][1] = _mm256_setzero_si256();
    for (int64_t k0 = b * block; k0 < (b + 1) * block; k0 += 8) {
      for (int h = 0; h < 2; ++h) {
        const __m256i w = _mm256_load_si256(reinterpret_cast<const __m256i*>(p + 32 * h));
        const __m256i w_lo = low_nibbles(w), w_hi = high_nibbles(w);
        for (int r = 0; r < R; ++r) {
          int32_t a_lo, a_hi;
          std::memcpy(&a_lo, u + r * ldu + k0, 4);
          std::memcpy(&a_hi, u + r * ldu + k0 + 4, 4);
          const __m256i pairs =
              _mm256_add_epi16(_mm256_maddubs_epi16(_mm256_set1_epi32(a_lo), w_lo),
                               _mm256_maddubs_epi16(_mm256_set1_epi32(a_hi), w_hi));
          acc[r][h] = _mm256_add_epi32(acc[r][h], _mm256_madd_epi16(pairs, ones));
        }
      }
      p += 64;
    }
    for (int r = 0; r < R; ++r)
      for (int h = 0; h < 2; ++h)
        v[r][h] =
            _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc[r][h]), _mm256_load_ps(s + 8 * h), v[r][h]);
  }
  const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
  for (int r = 0; r < R; ++r) {
    alignas(32) float out[16];
    for (int h = 0; h < 2; ++h) {
      __m256 vb = _mm256_setzero_ps();
      if (bias != nullptr) {
        alignas(32) float bb[8] = {};
        for (int j = 0; j < 8 && 8 * h + j < width; ++j)
          bb[j] = bias[8 * h + j];
        vb = _mm256_load_ps(bb);
      }
      __m256 o = mul_then_add(v[r][h], _mm256_set1_ps(scale[r]), vb);
      o = _mm256_min_ps(_mm256_max_ps(o, vlo), vhi);
      _mm256_store_ps(out + 8 * h, o);
    }
    std::memcpy(y + r * ldy, out, static_cast<size_t>(width) * sizeof(float));
  }
}

#include "qd8_qb4w_driver.inc"

#include "qd8_quantize_row.inc"

}  // namespace

const Qd8Qb4wKernel kQd8Qb4wAvx2 = {run_panels, quantize_row, "avx2"};

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
