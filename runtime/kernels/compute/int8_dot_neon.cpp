// int8 dot product with Advanced SIMD (every AArch64 CPU): 16 bytes per step, multiplied into
// int16 (a product of two int8 is at most 2^14 in magnitude, so it fits) and pairwise added
// into int32 lanes. Only <arm_neon.h> and this file's own namespace, like every ISA unit.
#include <arm_neon.h>

#include "int8_dot_kernels.h"

namespace executorch {
namespace kernels {
namespace compute {
namespace {

int32_t dot_s8_neon(int64_t blocks, const int8_t* x, const int8_t* y) {
  int32x4_t s0 = vdupq_n_s32(0), s1 = s0;
  for (int64_t b = 0; b < blocks; ++b, x += kDotS8Block, y += kDotS8Block) {
    const int8x16_t xv = vld1q_s8(x);
    const int8x16_t yv = vld1q_s8(y);
    s0 = vpadalq_s16(s0, vmull_s8(vget_low_s8(xv), vget_low_s8(yv)));
    s1 = vpadalq_s16(s1, vmull_high_s8(xv, yv));
  }
  // Lane adds wrap modulo 2^32, as the result must.
  return vaddvq_s32(vaddq_s32(s0, s1));
}

}  // namespace

const DotS8Kernel kDotS8Neon = {dot_s8_neon, "neon"};

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
