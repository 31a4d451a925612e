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
    case Activation::kSilu:
      vm.sigmoid_mul(x, y, n);
      return;
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
