// Epilogue activations (activation.h), through the vector math of the active ISA level.
#include "activation.h"

#include <cstring>

#include "vmath.h"

namespace executorch {
namespace kernels {
namespace compute {

void apply_activation(Activation act, const float* x, float* y, int64_t n) {
  const VmathKernels& vm = vmath();
  switch (act) {
    case Activation::kNone:
      if (x != y) {
        std::memcpy(y, x, sizeof(float) * static_cast<size_t>(n > 0 ? n : 0));
      }
      return;
    case Activation::kSilu: {
      // sigmoid into a small buffer, then the product: the two rounding steps of sigmoid + mul
      // (vmath's silu rounds once less, so it would not be bit-identical to them).
      constexpr int64_t kChunk = 256;
      float s[kChunk];
      for (int64_t i = 0; i < n; i += kChunk) {
        const int64_t len = n - i < kChunk ? n - i : kChunk;
        vm.sigmoid(x + i, s, len);
        for (int64_t j = 0; j < len; ++j) {
          y[i + j] = x[i + j] * s[j];
        }
      }
      return;
    }
    case Activation::kHardswish:
      vm.hardswish(x, y, n);
      return;
    case Activation::kHardsigmoid:
      vm.hardsigmoid(x, y, n);
      return;
  }
}

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
