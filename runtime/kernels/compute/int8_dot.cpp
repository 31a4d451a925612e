// int8 dot product: picks the variant for the ISA level. x86 has only the baseline variant (the
// compiler vectorizes it); AArch64 has NEON and, where the CPU has it, SDOT.
#include "int8_dot.h"

#include "int8_dot_kernels.h"

namespace executorch {
namespace kernels {
namespace compute {
namespace {

const DotS8Kernel& dot_kernel_for(Isa isa) {
  // Clamp again: an explicit request above what the CPU reports must never reach an ISA TU.
  if (static_cast<int>(isa) > static_cast<int>(detected_isa()))
    isa = detected_isa();
#if defined(__aarch64__)
  switch (isa) {
    case Isa::kNeonDot:
      return kDotS8NeonDot;
    case Isa::kNeon:
      return kDotS8Neon;
    case Isa::kBaseline:
      break;
  }
#endif
  return kDotS8Baseline;
}

}  // namespace

int32_t dot_s8(int64_t k, const int8_t* x, const int8_t* y) {
  return dot_s8_isa(active_isa(), k, x, y);
}

int32_t dot_s8_isa(Isa isa, int64_t k, const int8_t* x, const int8_t* y) {
  if (k <= 0)
    return 0;
  const int64_t blocks = k / kDotS8Block;
  // Unsigned arithmetic wraps modulo 2^32 with no undefined behaviour, which is exactly what
  // the int32 vector lanes of the variants do.
  uint32_t s = blocks > 0 ? static_cast<uint32_t>(dot_kernel_for(isa).run(blocks, x, y)) : 0u;
  for (int64_t p = blocks * kDotS8Block; p < k; ++p)
    s += static_cast<uint32_t>(static_cast<int32_t>(x[p]) * static_cast<int32_t>(y[p]));
  return static_cast<int32_t>(s);
}

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
