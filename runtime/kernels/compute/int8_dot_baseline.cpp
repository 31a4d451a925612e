// int8 dot product, portable C++ (the compiler vectorizes it at -O3).
#include "int8_dot_kernels.h"

namespace executorch {
namespace kernels {
namespace compute {
namespace {

int32_t dot_s8_baseline(int64_t blocks, const int8_t* x, const int8_t* y) {
  // Unsigned arithmetic wraps modulo 2^32 with no undefined behaviour, which is exactly what
  // the int32 vector lanes of the other variants do.
  const int64_t k = blocks * kDotS8Block;
  uint32_t s = 0;
  for (int64_t p = 0; p < k; ++p)
    s += static_cast<uint32_t>(static_cast<int32_t>(x[p]) * static_cast<int32_t>(y[p]));
  return static_cast<int32_t>(s);
}

}  // namespace

const DotS8Kernel kDotS8Baseline = {dot_s8_baseline, "baseline"};

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
