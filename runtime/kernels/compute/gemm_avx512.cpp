// AVX-512 SGEMM micro-kernel: 14 x 32 tile (28 zmm accumulators + 2 B vectors + 1 broadcast =
// 31 of the 32 registers). The tall tile amortizes the two B loads over 28 FMAs per k step.
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

constexpr int kMr = 14;
constexpr int kNr = 32;

// The tile's k loop into acc (one definition for every entry point). A is the packed panel
// (kDirect false: step p's mr values at a + p * mr) or read in place (kDirect true: row i at
// a + i * lda, its k values contiguous); either way the same products are summed in the same
// order.
template <bool kDirect, int kRows = kMr>
inline __attribute__((always_inline)) void accumulate(int64_t kc, const float* a, int64_t lda,
                                                      const float* b, __m512 (&acc)[kRows][2]) {
#pragma GCC unroll 14
  for (int i = 0; i < kRows; ++i)
    acc[i][0] = acc[i][1] = _mm512_setzero_ps();

  // The next B micro-panel (the driver stores them kc * nr floats apart) is fetched while this
  // one is in use: weights streamed from memory once per product otherwise stall the first
  // tile of every panel. Prefetching past the last panel is harmless.
  const float* next_b = b + kc * kNr;
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    const __m512 b0 = _mm512_load_ps(b);
    const __m512 b1 = _mm512_load_ps(b + 16);
    if (kDirect) {
      _mm_prefetch(reinterpret_cast<const char*>(next_b), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(next_b + 16), _MM_HINT_T0);
      next_b += kNr;
    }
#pragma GCC unroll 14
    for (int i = 0; i < kRows; ++i) {
      const __m512 ai = _mm512_set1_ps(kDirect ? a[i * lda] : a[i]);
      acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
    }
    a += kDirect ? 1 : kMr;
    b += kNr;
  }
}

// clamp(v, lo, hi) with NaN kept, as the separate pass's clampf.
inline __attribute__((always_inline)) __m512 clamp_ps(__m512 v, __m512 lo, __m512 hi) {
  v = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, lo, _CMP_LT_OQ), v, lo);
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, hi, _CMP_GT_OQ), v, hi);
}

void ukernel_14x32_epilogue(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                            float beta, const float* bias, float lo, float hi) {
  __m512 acc[kMr][2];
  accumulate<false>(kc, a, 0, b, acc);
  const bool clamp = !(lo == -__builtin_inff() && hi == __builtin_inff());
  const __m512 vb = _mm512_set1_ps(beta), vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
#pragma GCC unroll 14
  for (int i = 0; i < kMr; ++i) {
    float* row = c + i * ldc;
    __m512 v0 = acc[i][0], v1 = acc[i][1];
    if (beta != 0.0f) {
      v0 = _mm512_fmadd_ps(vb, _mm512_loadu_ps(row), v0);
      v1 = _mm512_fmadd_ps(vb, _mm512_loadu_ps(row + 16), v1);
    }
    if (bias != nullptr) {
      const __m512 bi = _mm512_set1_ps(bias[i]);
      v0 = _mm512_add_ps(v0, bi);
      v1 = _mm512_add_ps(v1, bi);
    }
    if (clamp) {
      v0 = clamp_ps(v0, vlo, vhi);
      v1 = clamp_ps(v1, vlo, vhi);
    }
    _mm512_storeu_ps(row, v0);
    _mm512_storeu_ps(row + 16, v1);
  }
}

// C = acc + beta * C (C not read when beta is 0), or with col_bias: C = acc + col_bias[j] (C
// not read), which rounds as beta 1 over a C filled with the bias (1 * c + acc is exact c + acc).
template <int kRows = kMr>
inline __attribute__((always_inline)) void store_tile(const __m512 (&acc)[kRows][2], float* c,
                                                      int64_t ldc, float beta,
                                                      const float* col_bias = nullptr) {
  if (col_bias != nullptr) {
    const __m512 c0 = _mm512_loadu_ps(col_bias), c1 = _mm512_loadu_ps(col_bias + 16);
#pragma GCC unroll 14
    for (int i = 0; i < kRows; ++i) {
      _mm512_storeu_ps(c + i * ldc, _mm512_add_ps(acc[i][0], c0));
      _mm512_storeu_ps(c + i * ldc + 16, _mm512_add_ps(acc[i][1], c1));
    }
  } else if (beta == 0.0f) {
#pragma GCC unroll 14
    for (int i = 0; i < kRows; ++i) {
      _mm512_storeu_ps(c + i * ldc, acc[i][0]);
      _mm512_storeu_ps(c + i * ldc + 16, acc[i][1]);
    }
  } else {
    const __m512 vb = _mm512_set1_ps(beta);
#pragma GCC unroll 14
    for (int i = 0; i < kRows; ++i) {
      float* row = c + i * ldc;
      _mm512_storeu_ps(row, _mm512_fmadd_ps(vb, _mm512_loadu_ps(row), acc[i][0]));
      _mm512_storeu_ps(row + 16, _mm512_fmadd_ps(vb, _mm512_loadu_ps(row + 16), acc[i][1]));
    }
  }
}

void ukernel_14x32(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, float beta) {
  __m512 acc[kMr][2];
  accumulate<false>(kc, a, 0, b, acc);
  store_tile(acc, c, ldc, beta);
}

template <int kRows>
void direct_rows(int64_t kc, const float* a, int64_t lda, const float* b, float* c, int64_t ldc,
                 float beta, const float* col_bias) {
  __m512 acc[kRows][2];
  accumulate<true, kRows>(kc, a, lda, b, acc);
  store_tile<kRows>(acc, c, ldc, beta, col_bias);
}

// A partial last row panel computes only its own rows (each row's sums do not depend on the
// others), instead of a full tile of mostly padding.
void ukernel_14x32_direct_a(int64_t kc, const float* a, int64_t lda, const float* b, float* c,
                            int64_t ldc, float beta, int rows, const float* col_bias) {
  switch (rows) {
    case 13:
      return direct_rows<13>(kc, a, lda, b, c, ldc, beta, col_bias);
    case 12:
      return direct_rows<12>(kc, a, lda, b, c, ldc, beta, col_bias);
    case 11:
      return direct_rows<11>(kc, a, lda, b, c, ldc, beta, col_bias);
    case 10:
      return direct_rows<10>(kc, a, lda, b, c, ldc, beta, col_bias);
    case 9:
      return direct_rows<9>(kc, a, lda, b, c, ldc, beta, col_bias);
    case 8:
      return direct_rows<8>(kc, a, lda, b, c, ldc, beta, col_bias);
    case 7:
      return direct_rows<7>(kc, a, lda, b, c, ldc, beta, col_bias);
    case 6:
      return direct_rows<6>(kc, a, lda, b, c, ldc, beta, col_bias);
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
const SgemmUkernel kSgemmAvx512 = {kMr,
                                   kNr,
                                   448,
                                   192,
                                   4096,
                                   ukernel_14x32,
                                   dot_avx512,
                                   "avx512-14x32",
                                   ukernel_14x32_epilogue,
                                   ukernel_14x32_direct_a};

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
