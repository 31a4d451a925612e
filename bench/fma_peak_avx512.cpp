// AVX-512 peak: 16 independent zmm FMA chains (enough for two 512-bit pipes at 4-cycle latency;
// on cores that split zmm into two 256-bit halves, still saturating). Compiled with -mavx512f.
#include <immintrin.h>

#include "fma_peak.h"

float fma_peak_avx512(int64_t iters, float x) {
  __m512 acc[16];
  const __m512 m = _mm512_set1_ps(0.999999f), add = _mm512_set1_ps(x);
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i)
    acc[i] = _mm512_set1_ps(x + static_cast<float>(i));
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i)
      acc[i] = _mm512_fmadd_ps(acc[i], m, add);
  }
  __m512 s = acc[0];
#pragma GCC unroll 16
  for (int i = 1; i < 16; ++i)
    s = _mm512_add_ps(s, acc[i]);
  // Not _mm512_reduce_add_ps: GCC 12 warns (-Werror) on an uninitialized value inside it.
  float out[16];
  _mm512_storeu_ps(out, s);
  return out[0] + out[15];
}
