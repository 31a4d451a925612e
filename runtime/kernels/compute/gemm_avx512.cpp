// AVX-512 SGEMM micro-kernels: 14 x 32 tile (28 zmm accumulators + 2 B vectors + 1 broadcast =
// 31 of the 32 registers; the tall tile amortizes the two B loads over 28 FMAs per k step), and
// an 8 x 48 one for products with few rows.
//
// Compiled with -mavx512f -mavx512vl -mavx512bw -mavx2 -mfma. Like gemm_avx2.cpp, it includes
// only <immintrin.h> and keeps everything in its own namespace (no shared inline functions that
// the linker could pick for baseline callers).
#include <immintrin.h>

#include "gemm_kernels.h"

namespace executorch {
namespace kernels {
namespace compute {
namespace {

// The tile's k loop into acc (one definition for every tile and entry point): kRows rows of A
// broadcast against NV vectors of B per k step. A is the packed panel (kDirect false: step p's
// kRows values at a + p * kRows) or read in place (kDirect true: row i at a + i * lda, its k
// values contiguous); either way the same products are summed in the same order.
template <bool kDirect, int kRows, int NV>
inline __attribute__((always_inline)) void accumulate(int64_t kc, const float* a, int64_t lda,
                                                      const float* b, __m512 (&acc)[kRows][NV]) {
#pragma GCC unroll 14
  for (int i = 0; i < kRows; ++i)
#pragma GCC unroll 3
    for (int v = 0; v < NV; ++v)
      acc[i][v] = _mm512_setzero_ps();

  // The next B micro-panel (the driver stores them kc * nr floats apart) is fetched while this
  // one is in use: weights streamed from memory once per product otherwise stall the first
  // tile of every panel. Prefetching past the last panel is harmless.
  const float* next_b = b + kc * 16 * NV;
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    __m512 bv[NV];
#pragma GCC unroll 3
    for (int v = 0; v < NV; ++v)
      bv[v] = _mm512_load_ps(b + 16 * v);
    if (kDirect) {
#pragma GCC unroll 3
      for (int v = 0; v < NV; ++v)
        _mm_prefetch(reinterpret_cast<const char*>(next_b + 16 * v), _MM_HINT_T0);
      next_b += 16 * NV;
    }
#pragma GCC unroll 14
    for (int i = 0; i < kRows; ++i) {
      const __m512 ai = _mm512_set1_ps(kDirect ? a[i * lda] : a[i]);
#pragma GCC unroll 3
      for (int v = 0; v < NV; ++v)
        acc[i][v] = _mm512_fmadd_ps(ai, bv[v], acc[i][v]);
    }
    a += kDirect ? 1 : kRows;
    b += 16 * NV;
  }
}

// clamp(v, lo, hi) with NaN kept, as the separate pass's clampf.
inline __attribute__((always_inline)) __m512 clamp_ps(__m512 v, __m512 lo, __m512 hi) {
  v = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, lo, _CMP_LT_OQ), v, lo);
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, hi, _CMP_GT_OQ), v, hi);
}

template <int MR, int NV>
void ukernel_epilogue(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, float beta,
                      const float* bias, float lo, float hi) {
  __m512 acc[MR][NV];
  accumulate<false>(kc, a, 0, b, acc);
  const bool clamp = !(lo == -__builtin_inff() && hi == __builtin_inff());
  const __m512 vb = _mm512_set1_ps(beta), vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
#pragma GCC unroll 14
  for (int i = 0; i < MR; ++i) {
    float* row = c + i * ldc;
#pragma GCC unroll 3
    for (int v = 0; v < NV; ++v) {
      __m512 x = acc[i][v];
      if (beta != 0.0f)
        x = _mm512_fmadd_ps(vb, _mm512_loadu_ps(row + 16 * v), x);
      if (bias != nullptr)
        x = _mm512_add_ps(x, _mm512_set1_ps(bias[i]));
      if (clamp)
        x = clamp_ps(x, vlo, vhi);
      _mm512_storeu_ps(row + 16 * v, x);
    }
  }
}

// C = acc + beta * C (C not read when beta is 0), or with col_bias: C = acc + col_bias[j] (C
// not read), which rounds as beta 1 over a C filled with the bias (1 * c + acc is exact c + acc).
template <int kRows, int NV>
inline __attribute__((always_inline)) void store_tile(const __m512 (&acc)[kRows][NV], float* c,
                                                      int64_t ldc, float beta,
                                                      const float* col_bias = nullptr) {
  if (col_bias != nullptr) {
    __m512 cb[NV];
#pragma GCC unroll 3
    for (int v = 0; v < NV; ++v)
      cb[v] = _mm512_loadu_ps(col_bias + 16 * v);
#pragma GCC unroll 14
    for (int i = 0; i < kRows; ++i)
#pragma GCC unroll 3
      for (int v = 0; v < NV; ++v)
        _mm512_storeu_ps(c + i * ldc + 16 * v, _mm512_add_ps(acc[i][v], cb[v]));
  } else if (beta == 0.0f) {
#pragma GCC unroll 14
    for (int i = 0; i < kRows; ++i)
#pragma GCC unroll 3
      for (int v = 0; v < NV; ++v)
        _mm512_storeu_ps(c + i * ldc + 16 * v, acc[i][v]);
  } else {
    const __m512 vb = _mm512_set1_ps(beta);
#pragma GCC unroll 14
    for (int i = 0; i < kRows; ++i)
#pragma GCC unroll 3
      for (int v = 0; v < NV; ++v) {
        float* row = c + i * ldc + 16 * v;
        _mm512_storeu_ps(row, _mm512_fmadd_ps(vb, _mm512_loadu_ps(row), acc[i][v]));
      }
  }
}

template <int MR, int NV>
void ukernel(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, float beta) {
  __m512 acc[MR][NV];
  accumulate<false>(kc, a, 0, b, acc);
  store_tile(acc, c, ldc, beta);
}

template <int kRows, int NV>
void direct_rows(int64_t kc, const float* a, int64_t lda, const float* b, float* c, int64_t ldc,
                 float beta, const float* col_bias) {
  __m512 acc[kRows][NV];
  accumulate<true>(kc, a, lda, b, acc);
  store_tile(acc, c, ldc, beta, col_bias);
}

// The direct_rows instance for `rows` rows, kRows at most (more: kRows).
template <int kRows, int NV>
void direct_rows_upto(int rows, int64_t kc, const float* a, int64_t lda, const float* b, float* c,
                      int64_t ldc, float beta, const float* col_bias) {
  if constexpr (kRows > 1) {
    if (rows < kRows)
      return direct_rows_upto<kRows - 1, NV>(rows, kc, a, lda, b, c, ldc, beta, col_bias);
  }
  direct_rows<kRows, NV>(kc, a, lda, b, c, ldc, beta, col_bias);
}

// A partial last row panel computes only its own rows (each row's sums do not depend on the
// others), instead of a full tile of mostly padding.
template <int MR, int NV>
void ukernel_direct_a(int64_t kc, const float* a, int64_t lda, const float* b, float* c,
                      int64_t ldc, float beta, int rows, const float* col_bias) {
  direct_rows_upto<MR, NV>(rows, kc, a, lda, b, c, ldc, beta, col_bias);
}

// Four independent accumulators hide the FMA latency; the tail is one masked step.
float dot_avx512(int64_t k, const float* x, const float* y) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  __m512 s2 = _mm512_setzero_ps(), s3 = _mm512_setzero_ps();
  int64_t p = 0;
  for (; p + 64 <= k; p += 64) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(x + p), _mm512_loadu_ps(y + p), s0);
    s1 = _mm512_fmadd_ps(_mm512_loadu_ps(x + p + 16), _mm512_loadu_ps(y + p + 16), s1);
    s2 = _mm512_fmadd_ps(_mm512_loadu_ps(x + p + 32), _mm512_loadu_ps(y + p + 32), s2);
    s3 = _mm512_fmadd_ps(_mm512_loadu_ps(x + p + 48), _mm512_loadu_ps(y + p + 48), s3);
  }
  for (; p + 16 <= k; p += 16) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(x + p), _mm512_loadu_ps(y + p), s0);
  }
  if (p < k) {
    const __mmask16 m = static_cast<__mmask16>((1u << (k - p)) - 1u);
    s1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, x + p), _mm512_maskz_loadu_ps(m, y + p), s1);
  }
  // Horizontal sum through memory: GCC 12's own headers for the 512 -> 256 bit extractions
  // (and _mm512_reduce_add_ps) trip -Wuninitialized (GCC bug 105593).
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, _mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
  const __m256 q = _mm256_add_ps(_mm256_load_ps(lanes), _mm256_load_ps(lanes + 8));
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(q), _mm256_extractf128_ps(q, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
  return _mm_cvtss_f32(h);
}

}  // namespace

// kc * nr * 4 = 24 KiB B micro-panel in a 32 KiB L1; mc * kc * 4 = 336 KiB A block in L2.
const SgemmUkernel kSgemmAvx512 = {14,
                                   32,
                                   448,
                                   192,
                                   4096,
                                   ukernel<14, 2>,
                                   dot_avx512,
                                   "avx512-14x32",
                                   ukernel_epilogue<14, 2>,
                                   ukernel_direct_a<14, 2>};

// 8 x 48 (24 accumulators + 3 B vectors + 1 broadcast): for products whose rows fill no 14-row
// tile well (16, 24, 32 or 64 output channels: 28, 28, 42 and 70 rows of 14). The same kc, so
// each output gets the same sums in the same order as with the 14 x 32 tile: bit-identical.
const SgemmUkernel kSgemmAvx512Narrow = {8,
                                         48,
                                         448,
                                         192,
                                         4032,
                                         ukernel<8, 3>,
                                         dot_avx512,
                                         "avx512-8x48",
                                         ukernel_epilogue<8, 3>,
                                         ukernel_direct_a<8, 3>};

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
