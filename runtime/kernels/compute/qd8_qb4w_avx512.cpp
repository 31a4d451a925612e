// qd8 x qb4w, AVX512-VNNI variant: VPDPBUSD multiplies the unsigned activation bytes by the
// signed 4-bit weights (unpacked in registers to 16 * w by a shift and a mask, as XNNPACK
// does) and sums groups of four into the 16 column lanes, for tiles of up to 8 rows; the block
// sums then go through the same float steps as qd8_qb4w.h states (the block sum is exact and a
// multiple of 16, so the arithmetic shift back by 4 is too).
#include <immintrin.h>

#include <cmath>
#include <cstring>

#include "qd8_qb4w_kernels.h"

// GCC 12's own AVX-512 headers (the broadcasts and masked loads, inlined into a function with
// a target attribute) trip -Wuninitialized on their internal undefined vectors (GCC bug 105593).
// Clang has neither the bug nor the -Wmaybe-uninitialized group.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace executorch {
namespace kernels {
namespace compute {
namespace {

constexpr int kMaxRows = 8;

template <int R>
__attribute__((target("avx512vnni"))) void tile(int64_t k, int64_t block, const uint8_t* u,
                                                int64_t ldu, const int32_t* zero_point,
                                                const float* scale, const uint8_t* panel,
                                                const float* bias, float lo, float hi, float* y,
                                                int64_t ldy, int64_t width) {
  const __mmask16 store_mask = static_cast<__mmask16>((1u << width) - 1u);
  const int64_t blocks = k / block;
  const __m512i nibble_mask = _mm512_set1_epi8(static_cast<char>(0xF0));
  const __m512 t = _mm512_load_ps(reinterpret_cast<const float*>(panel));
  const uint8_t* p = panel + 64;
  __m512 v[R];
  for (int r = 0; r < R; ++r)
    v[r] = _mm512_mul_round_ps(t, _mm512_set1_ps(static_cast<float>(zero_point[r])),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  for (int64_t b = 0; b < blocks; ++b) {
    const __m512 s = _mm512_load_ps(reinterpret_cast<const float*>(p));
    p += 64;
    __m512i acc[R];
    for (int r = 0; r < R; ++r)
      acc[r] = _mm512_setzero_si512();
    for (int64_t k0 = b * block; k0 < (b + 1) * block; k0 += 8) {
      const __m512i w = _mm512_load_si512(reinterpret_cast<const void*>(p));
      p += 64;
      const __m512i w_lo = _mm512_and_si512(_mm512_slli_epi32(w, 4), nibble_mask);
      const __m512i w_hi = _mm512_and_si512(w, nibble_mask);
      for (int r = 0; r < R; ++r) {
        int32_t a_lo, a_hi;
        std::memcpy(&a_lo, u + r * ldu + k0, 4);
        std::memcpy(&a_hi, u + r * ldu + k0 + 4, 4);
        acc[r] = _mm512_dpbusd_epi32(acc[r], _mm512_set1_epi32(a_lo), w_lo);
        acc[r] = _mm512_dpbusd_epi32(acc[r], _mm512_set1_epi32(a_hi), w_hi);
      }
    }
    for (int r = 0; r < R; ++r)
      v[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_srai_epi32(acc[r], 4)), s, v[r]);
  }
  const __m512 vb = bias != nullptr ? _mm512_maskz_loadu_ps(store_mask, bias) : _mm512_setzero_ps();
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  for (int r = 0; r < R; ++r) {
    // Two roundings, as XNNPACK's kernel: the explicit-rounding forms keep the compiler from
    // contracting the multiply and the add into one FMA.
    constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    __m512 o = _mm512_mul_round_ps(v[r], _mm512_set1_ps(scale[r]), kNearest);
    o = _mm512_add_round_ps(o, vb, kNearest);
    o = _mm512_min_ps(_mm512_max_ps(o, vlo), vhi);
    _mm512_mask_storeu_ps(y + r * ldy, store_mask, o);
  }
}

#include "qd8_qb4w_driver.inc"

#include "qd8_quantize_row.inc"

}  // namespace

const Qd8Qb4wKernel kQd8Qb4wAvx512Vnni = {run_panels, quantize_row, "avx512vnni"};

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
