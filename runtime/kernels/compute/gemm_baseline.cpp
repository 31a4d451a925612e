// Baseline x86-64 SGEMM micro-kernel (SSE2 only, no FMA): 6 x 8 tile in 12 xmm accumulators,
// leaving 4 of the 16 registers for the two B vectors, the broadcast and the product.
// Also the only kernel on non-x86 builds, where it falls back to plain C++ that the compiler
// vectorizes for the target.
#include "gemm_kernels.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace executorch {
namespace kernels {
namespace compute {
namespace {

constexpr int kMr = 6;
constexpr int kNr = 8;

#if defined(__SSE2__)
void ukernel_6x8(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, float beta) {
  __m128 acc[kMr][2];
#pragma GCC unroll 6
  for (int i = 0; i < kMr; ++i) acc[i][0] = acc[i][1] = _mm_setzero_ps();

#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    const __m128 b0 = _mm_load_ps(b);
    const __m128 b1 = _mm_load_ps(b + 4);
#pragma GCC unroll 6
    for (int i = 0; i < kMr; ++i) {
      const __m128 ai = _mm_load1_ps(a + i);
      acc[i][0] = _mm_add_ps(acc[i][0], _mm_mul_ps(ai, b0));
      acc[i][1] = _mm_add_ps(acc[i][1], _mm_mul_ps(ai, b1));
    }
    a += kMr;
    b += kNr;
  }

  const __m128 vb = _mm_set1_ps(beta);
#pragma GCC unroll 6
  for (int i = 0; i < kMr; ++i) {
    float* row = c + i * ldc;
    __m128 r0 = acc[i][0], r1 = acc[i][1];
    if (beta != 0.0f) {
      r0 = _mm_add_ps(r0, _mm_mul_ps(vb, _mm_loadu_ps(row)));
      r1 = _mm_add_ps(r1, _mm_mul_ps(vb, _mm_loadu_ps(row + 4)));
    }
    _mm_storeu_ps(row, r0);
    _mm_storeu_ps(row + 4, r1);
  }
}
#else
void ukernel_6x8(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, float beta) {
  float acc[kMr][kNr] = {};
  for (int64_t p = 0; p < kc; ++p) {
    for (int i = 0; i < kMr; ++i)
      for (int j = 0; j < kNr; ++j) acc[i][j] += a[i] * b[j];
    a += kMr;
    b += kNr;
  }
  for (int i = 0; i < kMr; ++i)
    for (int j = 0; j < kNr; ++j)
      c[i * ldc + j] = acc[i][j] + (beta == 0.0f ? 0.0f : beta * c[i * ldc + j]);
}
#endif

}  // namespace

const SgemmUkernel kSgemmBaseline = {kMr, kNr, 264, 256, 4096, ukernel_6x8, "baseline-6x8"};

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
