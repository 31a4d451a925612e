// int8 dot product with SDOT (Armv8.2 dot-product extension): each instruction adds four
// int8 x int8 products into every int32 lane, 16 products per instruction. Compiled with
// -march=armv8.2-a+dotprod (mk/kernels.mk) and called only when the CPU reports the extension
// (isa.cpp). Only <arm_neon.h> and this file's own namespace, like every ISA unit.
#include <arm_neon.h>

#include "int8_dot_kernels.h"

namespace executorch {
namespace kernels {
namespace compute {
namespace {

int32_t dot_s8_neondot(int64_t blocks, const int8_t* x, const int8_t* y) {
  // Four accumulators hide the SDOT latency.
  int32x4_t s0 = vdupq_n_s32(0), s1 = s0, s2 = s0, s3 = s0;
  int64_t b = 0;
  for (; b + 4 <= blocks; b += 4, x += 4 * kDotS8Block, y += 4 * kDotS8Block) {
    s0 = vdotq_s32(s0, vld1q_s8(x), vld1q_s8(y));
    s1 = vdotq_s32(s1, vld1q_s8(x + 16), vld1q_s8(y + 16));
    s2 = vdotq_s32(s2, vld1q_s8(x + 32), vld1q_s8(y + 32));
    s3 = vdotq_s32(s3, vld1q_s8(x + 48), vld1q_s8(y + 48));
  }
  for (; b < blocks; ++b, x += kDotS8Block, y += kDotS8Block)
    s0 = vdotq_s32(s0, vld1q_s8(x), vld1q_s8(y));
  // Lane adds wrap modulo 2^32, as the result must.
  return vaddvq_s32(vaddq_s32(vaddq_s32(s0, s1), vaddq_s32(s2, s3)));
}

}  // namespace

const DotS8Kernel kDotS8NeonDot = {dot_s8_neondot, "neondot"};

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
