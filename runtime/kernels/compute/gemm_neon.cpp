// AArch64 NEON SGEMM micro-kernel: 12 x 8 tile in 24 q-register accumulators, plus 3 A
// vectors and 2 B vectors (29 of the 32 registers). Per k step: 5 loads and 24 FMAs; each FMA
// takes its A value straight from a lane of an A vector (FMLA by element), so no broadcasts.
// The tile is two vectors wide like the x86 kernels (the driver's dot-versus-tile cost model in
// gemm.cpp assumes that), and tall to amortize the B loads.
//
// Like the x86 ISA units, this file includes only <arm_neon.h> (always_inline functions) and
// defines nothing outside its own anonymous namespace except the descriptor.
#include <arm_neon.h>

#include "gemm_kernels.h"

namespace executorch {
namespace kernels {
namespace compute {
namespace {

constexpr int kMr = 12;
constexpr int kNr = 8;

// Rows 4q .. 4q+3 of the tile: the lane index must be an immediate, hence a macro.
#define ET_NEON_FMA_ROWS(q, av)                                          \
  acc[4 * (q) + 0][0] = vfmaq_laneq_f32(acc[4 * (q) + 0][0], b0, av, 0); \
  acc[4 * (q) + 0][1] = vfmaq_laneq_f32(acc[4 * (q) + 0][1], b1, av, 0); \
  acc[4 * (q) + 1][0] = vfmaq_laneq_f32(acc[4 * (q) + 1][0], b0, av, 1); \
  acc[4 * (q) + 1][1] = vfmaq_laneq_f32(acc[4 * (q) + 1][1], b1, av, 1); \
  acc[4 * (q) + 2][0] = vfmaq_laneq_f32(acc[4 * (q) + 2][0], b0, av, 2); \
  acc[4 * (q) + 2][1] = vfmaq_laneq_f32(acc[4 * (q) + 2][1], b1, av, 2); \
  acc[4 * (q) + 3][0] = vfmaq_laneq_f32(acc[4 * (q) + 3][0], b0, av, 3); \
  acc[4 * (q) + 3][1] = vfmaq_laneq_f32(acc[4 * (q) + 3][1], b1, av, 3)

void ukernel_12x8(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, float beta) {
  float32x4_t acc[kMr][2];
#pragma GCC unroll 12
  for (int i = 0; i < kMr; ++i)
    acc[i][0] = acc[i][1] = vdupq_n_f32(0.0f);

#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    const float32x4_t b0 = vld1q_f32(b);
    const float32x4_t b1 = vld1q_f32(b + 4);
    const float32x4_t a0 = vld1q_f32(a);
    const float32x4_t a1 = vld1q_f32(a + 4);
    const float32x4_t a2 = vld1q_f32(a + 8);
    ET_NEON_FMA_ROWS(0, a0);
    ET_NEON_FMA_ROWS(1, a1);
    ET_NEON_FMA_ROWS(2, a2);
    a += kMr;
    b += kNr;
  }

  if (beta == 0.0f) {
#pragma GCC unroll 12
    for (int i = 0; i < kMr; ++i) {
      vst1q_f32(c + i * ldc, acc[i][0]);
      vst1q_f32(c + i * ldc + 4, acc[i][1]);
    }
  } else {
#pragma GCC unroll 12
    for (int i = 0; i < kMr; ++i) {
      float* row = c + i * ldc;
      vst1q_f32(row, vfmaq_n_f32(acc[i][0], vld1q_f32(row), beta));
      vst1q_f32(row + 4, vfmaq_n_f32(acc[i][1], vld1q_f32(row + 4), beta));
    }
  }
}

#undef ET_NEON_FMA_ROWS

// Four independent accumulators hide the FMA latency; a scalar tail.
float dot_neon(int64_t k, const float* x, const float* y) {
  float32x4_t s0 = vdupq_n_f32(0.0f), s1 = s0, s2 = s0, s3 = s0;
  int64_t p = 0;
  for (; p + 16 <= k; p += 16) {
    s0 = vfmaq_f32(s0, vld1q_f32(x + p), vld1q_f32(y + p));
    s1 = vfmaq_f32(s1, vld1q_f32(x + p + 4), vld1q_f32(y + p + 4));
    s2 = vfmaq_f32(s2, vld1q_f32(x + p + 8), vld1q_f32(y + p + 8));
    s3 = vfmaq_f32(s3, vld1q_f32(x + p + 12), vld1q_f32(y + p + 12));
  }
  for (; p + 4 <= k; p += 4)
    s0 = vfmaq_f32(s0, vld1q_f32(x + p), vld1q_f32(y + p));
  float r = vaddvq_f32(vaddq_f32(vaddq_f32(s0, s1), vaddq_f32(s2, s3)));
  for (; p < k; ++p)
    r += x[p] * y[p];
  return r;
}

}  // namespace

// kc * nr * 4 = 8 KiB B micro-panel and kc * mr * 4 = 12 KiB A micro-panel in a 32-64 KiB L1;
// mc * kc * 4 = 264 KiB A block in L2 (mc = 22 * mr).
const SgemmUkernel kSgemmNeon = {kMr,          kNr,      264,         256,     4096,
                                 ukernel_12x8, dot_neon, "neon-12x8", nullptr, nullptr};

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
