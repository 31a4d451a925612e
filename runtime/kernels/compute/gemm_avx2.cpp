// AVX2+FMA SGEMM micro-kernel: 6 x 16 tile (12 ymm accumulators + 2 B vectors + 1 broadcast of
// the 16 registers). Per k step: 2 aligned loads of B, 6 broadcasts of A, 12 FMAs, which keeps
// both FMA pipes busy with the 4-cycle latency hidden by 12 independent chains.
//
// Compiled with -mavx2 -mfma (mk/test-compute.mk). This file includes only <immintrin.h>, whose
// functions are always_inline, and defines nothing outside this file's namespace: an inline
// function shared with baseline code (e.g. a std:: template) could otherwise be emitted here
// with AVX2 instructions and chosen by the linker for every caller.
#include <immintrin.h>

#include "gemm_kernels.h"

namespace executorch {
namespace kernels {
namespace compute {
namespace {

constexpr int kMr = 6;
constexpr int kNr = 16;

// The tile's k loop into acc (one definition for every entry point): A packed (kDirect false)
// or read in place, row i at a + i * lda (kDirect true), as in gemm_avx512.cpp.
template <bool kDirect, int kRows = kMr>
inline __attribute__((always_inline)) void accumulate(int64_t kc, const float* a, int64_t lda,
                                                      const float* b, __m256 (&acc)[kRows][2]) {
#pragma GCC unroll 6
  for (int i = 0; i < kRows; ++i)
    acc[i][0] = acc[i][1] = _mm256_setzero_ps();

  // The next B micro-panel is fetched while this one is in use, as in gemm_avx512.cpp.
  const float* next_b = b + kc * kNr;
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_load_ps(b);
    const __m256 b1 = _mm256_load_ps(b + 8);
    if (kDirect) {
      _mm_prefetch(reinterpret_cast<const char*>(next_b), _MM_HINT_T0);
      next_b += kNr;
    }
#pragma GCC unroll 6
    for (int i = 0; i < kRows; ++i) {
      const __m256 ai = _mm256_broadcast_ss(kDirect ? a + i * lda : a + i);
      acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
    }
    a += kDirect ? 1 : kMr;
    b += kNr;
  }
}

// clamp(v, lo, hi) with NaN kept, as the separate pass's clampf.
inline __attribute__((always_inline)) __m256 clamp_ps(__m256 v, __m256 lo, __m256 hi) {
  v = _mm256_blendv_ps(v, lo, _mm256_cmp_ps(v, lo, _CMP_LT_OQ));
  return _mm256_blendv_ps(v, hi, _mm256_cmp_ps(v, hi, _CMP_GT_OQ));
}

void ukernel_6x16_epilogue(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                           float beta, const float* bias, float lo, float hi) {
  __m256 acc[kMr][2];
  accumulate<false>(kc, a, 0, b, acc);
  const bool clamp = !(lo == -__builtin_inff() && hi == __builtin_inff());
  const __m256 vb = _mm256_set1_ps(beta), vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
#pragma GCC unroll 6
  for (int i = 0; i < kMr; ++i) {
    float* row = c + i * ldc;
    __m256 v0 = acc[i][0], v1 = acc[i][1];
    if (beta != 0.0f) {
      v0 = _mm256_fmadd_ps(vb, _mm256_loadu_ps(row), v0);
      v1 = _mm256_fmadd_ps(vb, _mm256_loadu_ps(row + 8), v1);
    }
    if (bias != nullptr) {
      const __m256 bi = _mm256_set1_ps(bias[i]);
      v0 = _mm256_add_ps(v0, bi);
      v1 = _mm256_add_ps(v1, bi);
    }
    if (clamp) {
      v0 = clamp_ps(v0, vlo, vhi);
      v1 = clamp_ps(v1, vlo, vhi);
    }
    _mm256_storeu_ps(row, v0);
    _mm256_storeu_ps(row + 8, v1);
  }
}

// C = acc + beta * C (C not read when beta is 0), or with col_bias: C = acc + col_bias[j] (C
// not read), which rounds as beta 1 over a C filled with the bias (1 * c + acc is exact c + acc).
template <int kRows = kMr>
inline __attribute__((always_inline)) void store_tile(const __m256 (&acc)[kRows][2], float* c,
                                                      int64_t ldc, float beta,
                                                      const float* col_bias = nullptr) {
  if (col_bias != nullptr) {
    const __m256 c0 = _mm256_loadu_ps(col_bias), c1 = _mm256_loadu_ps(col_bias + 8);
#pragma GCC unroll 6
    for (int i = 0; i < kRows; ++i) {
      _mm256_storeu_ps(c + i * ldc, _mm256_add_ps(acc[i][0], c0));
      _mm256_storeu_ps(c + i * ldc + 8, _mm256_add_ps(acc[i][1], c1));
    }
  } else if (beta == 0.0f) {
#pragma GCC unroll 6
    for (int i = 0; i < kRows; ++i) {
      _mm256_storeu_ps(c + i * ldc, acc[i][0]);
      _mm256_storeu_ps(c + i * ldc + 8, acc[i][1]);
    }
  } else {
    const __m256 vb = _mm256_set1_ps(beta);
#pragma GCC unroll 6
    for (int i = 0; i < kRows; ++i) {
      float* row = c + i * ldc;
      _mm256_storeu_ps(row, _mm256_fmadd_ps(vb, _mm256_loadu_ps(row), acc[i][0]));
      _mm256_storeu_ps(row + 8, _mm256_fmadd_ps(vb, _mm256_loadu_ps(row + 8), acc[i][1]));
    }
  }
}

void ukernel_6x16(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, float beta) {
  __m256 acc[kMr][2];
  accumulate<false>(kc, a, 0, b, acc);
  store_tile(acc, c, ldc, beta);
}

template <int kRows>
void direct_rows(int64_t kc, const float* a, int64_t lda, const float* b, float* c, int64_t ldc,
                 float beta, const float* col_bias) {
  __m256 acc[kRows][2];
  accumulate<true, kRows>(kc, a, lda, b, acc);
  store_tile<kRows>(acc, c, ldc, beta, col_bias);
}

// A partial last row panel computes only its own rows (each row's sums do not depend on the
// others), instead of a full tile of mostly padding.
void ukernel_6x16_direct_a(int64_t kc, const float* a, int64_t lda, const float* b, float* c,
                           int64_t ldc, float beta, int rows, const float* col_bias) {
  switch (rows) {
    case 5:
      return direct_rows<5>(kc, a, lda, b, c, ldc, beta, col_bias);
    case 4:
      return direct_rows<4>(kc, a, lda, b, c, ldc, beta, col_bias);
    case 3:
      return direct_rows<3>(kc, a, lda, b, c, ldc, beta, col_bias);
    case 2:
      return direct_rows<2>(kc, a, lda, b, c, ldc, beta, col_bias);
    case 1:
      return direct_rows<1>(kc, a, lda, b, c, ldc, beta, col_bias);
    default:
      return direct_rows<kMr>(kc, a, lda, b, c, ldc, beta, col_bias);
  }
}

// Four independent accumulators hide the FMA latency; a scalar tail.
float dot_avx2(int64_t k, const float* x, const float* y) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  __m256 s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
  int64_t p = 0;
  for (; p + 32 <= k; p += 32) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + p), _mm256_loadu_ps(y + p), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + p + 8), _mm256_loadu_ps(y + p + 8), s1);
    s2 = _mm256_fmadd_ps(_mm256_loadu_ps(x + p + 16), _mm256_loadu_ps(y + p + 16), s2);
    s3 = _mm256_fmadd_ps(_mm256_loadu_ps(x + p + 24), _mm256_loadu_ps(y + p + 24), s3);
  }
  for (; p + 8 <= k; p += 8) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + p), _mm256_loadu_ps(y + p), s0);
  }
  const __m256 s = _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3));
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
  float r = _mm_cvtss_f32(h);
  for (; p < k; ++p)
    r += x[p] * y[p];
  return r;
}

}  // namespace

// kc * nr * 4 = 16 KiB B micro-panel in a 32 KiB L1; mc * kc * 4 = 264 KiB A block in L2.
const SgemmUkernel kSgemmAvx2 = {kMr,
                                 kNr,
                                 264,
                                 256,
                                 4096,
                                 ukernel_6x16,
                                 dot_avx2,
                                 "avx2-6x16",
                                 ukernel_6x16_epilogue,
                                 ukernel_6x16_direct_a};

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
