// Internal contract between the int8 dot-product dispatch (int8_dot.cpp) and its per-ISA
// variants (int8_dot_<isa>.cpp, each compiled with its own flags). Constant-initialized
// descriptors: choosing one runs no ISA code.
#pragma once

#include <cstdint>

namespace executorch {
namespace kernels {
namespace compute {

// The variants handle whole 16-byte blocks (one q register); the dispatch adds the last k % 16
// products, so no variant has tail code.
constexpr int64_t kDotS8Block = 16;

struct DotS8Kernel {
  // The wrapping int32 sum described in int8_dot.h over the first blocks * kDotS8Block bytes;
  // blocks > 0.
  int32_t (*run)(int64_t blocks, const int8_t* x, const int8_t* y);
  const char* name;
};

extern const DotS8Kernel kDotS8Baseline;
// AArch64 builds only: Advanced SIMD widening multiplies, and the SDOT instruction.
extern const DotS8Kernel kDotS8Neon;
extern const DotS8Kernel kDotS8NeonDot;

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
