// Activations applied in an operator's epilogue (private to the kernel library): a convolution
// or GEMM whose output feeds only an activation runs it on each finished output block while the
// block is still in cache, instead of a separate pass (or the several passes of the add, clamp,
// mul and div an export decomposes hardswish into).
#pragma once

#include <cstdint>

namespace executorch {
namespace kernels {
namespace compute {

enum class Activation : uint8_t {
  kNone,
  kSilu,         // y * sigmoid(y)
  kHardswish,    // y * clamp(y + 3, 0, 6) / 6
  kHardsigmoid,  // clamp(y + 3, 0, 6) / 6
};

// y[i] = act(x[i]) over n contiguous floats (y == x: in place; otherwise they must not overlap),
// bit-identical to the decomposed operators the export emits for it (sigmoid then mul for SiLU:
// vmath's sigmoid_mul, the sigmoid kernel's vector sigmoid rounded, then the product; vmath's
// hardswish / hardsigmoid for the others). kNone copies x to y.
void apply_activation(Activation act, const float* x, float* y, int64_t n);

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
