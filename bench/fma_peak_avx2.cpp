// AVX2+FMA peak: 12 independent FMA chains. Two FMA pipes with a 4-5 cycle latency need at
// least 10 chains in flight to saturate; 12 leaves headroom. Compiled with -mavx2 -mfma.
#include <immintrin.h>

#include "fma_peak.h"

float fma_peak_avx2(int64_t iters, float x) {
  __m256 acc[12];
  const __m256 m = _mm256_set1_ps(0.999999f), add = _mm256_set1_ps(x);
#pragma GCC unroll 12
  for (int i = 0; i < 12; ++i)
    acc[i] = _mm256_set1_ps(x + static_cast<float>(i));
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i)
      acc[i] = _mm256_fmadd_ps(acc[i], m, add);
  }
  __m256 s = acc[0];
#pragma GCC unroll 12
  for (int i = 1; i < 12; ++i)
    s = _mm256_add_ps(s, acc[i]);
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0] + out[7];
}
