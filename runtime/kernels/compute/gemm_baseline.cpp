// Baseline x86-64 SGEMM micro-kernel (SSE2 only, no FMA): 6 x 8 tile in 12 xmm accumulators,
// leaving 4 of the 16 registers for the two B vectors, the broadcast and the product.
// On other architectures it is plain C++ that the compiler vectorizes for the target: the
// only kernel there, or the ET_KERNELS_ISA=baseline level on AArch64 (gemm_neon.cpp).
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
  for (int i = 0; i < kMr; ++i)
    acc[i][0] = acc[i][1] = _mm_setzero_ps();

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
// Four independent accumulators hide the add latency; a scalar tail.
float dot_baseline(int64_t k, const float* x, const float* y) {
  __m128 s0 = _mm_setzero_ps(), s1 = _mm_setzero_ps(), s2 = _mm_setzero_ps(), s3 = _mm_setzero_ps();
  int64_t p = 0;
  for (; p + 16 <= k; p += 16) {
    s0 = _mm_add_ps(s0, _mm_mul_ps(_mm_loadu_ps(x + p), _mm_loadu_ps(y + p)));
    s1 = _mm_add_ps(s1, _mm_mul_ps(_mm_loadu_ps(x + p + 4), _mm_loadu_ps(y + p + 4)));
    s2 = _mm_add_ps(s2, _mm_mul_ps(_mm_loadu_ps(x + p + 8), _mm_loadu_ps(y + p + 8)));
    s3 = _mm_add_ps(s3, _mm_mul_ps(_mm_loadu_ps(x + p + 12), _mm_loadu_ps(y + p + 12)));
  }
  for (; p + 4 <= k; p += 4) {
    s0 = _mm_add_ps(s0, _mm_mul_ps(_mm_loadu_ps(x + p), _mm_loadu_ps(y + p)));
  }
  __m128 h = _mm_add_ps(_mm_add_ps(s0, s1), _mm_add_ps(s2, s3));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
  float r = _mm_cvtss_f32(h);
  for (; p < k; ++p)
    r += x[p] * y[p];
  return r;
}
#else
float dot_baseline(int64_t k, const float* x, const float* y) {
  float r = 0.0f;
  for (int64_t p = 0; p < k; ++p)
    r += x[p] * y[p];
  return r;
}

void ukernel_6x8(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, float beta) {
  float acc[kMr][kNr] = {};
  for (int64_t p = 0; p < kc; ++p) {
    for (int i = 0; i < kMr; ++i)
      for (int j = 0; j < kNr; ++j)
        acc[i][j] += a[i] * b[j];
    a += kMr;
    b += kNr;
  }
  for (int i = 0; i < kMr; ++i)
    for (int j = 0; j < kNr; ++j)
      c[i * ldc + j] = acc[i][j] + (beta == 0.0f ? 0.0f : beta * c[i * ldc + j]);
}
#endif

}  // namespace

const SgemmUkernel kSgemmBaseline = {
    kMr, kNr, 264, 256, 4096, ukernel_6x8, dot_baseline, "baseline-6x8", nullptr, nullptr};

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
