// Signed 8-bit dot product with 32-bit accumulation (private to the kernel library): the inner
// product of quantized kernels (int8 x int8 -> int32, zero points and scales applied by the
// caller).
//
//   dot_s8(k, x, y) = sum_{p<k} x[p] * y[p]
//
// The sum is taken modulo 2^32 (two's complement), the same bit for bit at every ISA level, so
// a result never depends on the machine. It is the exact sum whenever that fits int32, which
// every k <= kDotS8ExactDepth guarantees (each product is at most 2^14 in magnitude). Inputs
// may have any alignment; k <= 0 gives 0 and reads nothing.
#pragma once

#include <cstdint>

#include "isa.h"

namespace executorch {
namespace kernels {
namespace compute {

constexpr int64_t kDotS8ExactDepth = (int64_t{1} << 31) / (int64_t{1} << 14) - 1;

int32_t dot_s8(int64_t k, const int8_t* x, const int8_t* y);

// The same with an explicit ISA level (clamped to detected_isa()); for tests and benchmarks.
int32_t dot_s8_isa(Isa isa, int64_t k, const int8_t* x, const int8_t* y);

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
