// Vectorized elementwise math over float spans, exported from libexecutorch_kernels.so.1 for
// the backends (ET_API, runtime/kernels/kernels.map, abi/kernels_exports.txt): vmath.h's
// routines at active_isa(), with its accuracy, split across the thread pool in chunks. An
// element's result does not depend on its position, so the result is the same at any thread
// count. Any n >= 0; y may be x (in place), otherwise they must not overlap.
#pragma once

#include <cstdint>

#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace kernels {
namespace compute {

ET_API void span_exp(const float* x, float* y, int64_t n);
ET_API void span_sigmoid(const float* x, float* y, int64_t n);
ET_API void span_tanh(const float* x, float* y, int64_t n);
// x * Phi(x), the exact (erf) GELU.
ET_API void span_gelu(const float* x, float* y, int64_t n);
// x * sigmoid(x) rounded as sigmoid then multiply (SiLU / swish), bit for bit.
ET_API void span_sigmoid_mul(const float* x, float* y, int64_t n);
// x * clamp(x + 3, 0, 6) / 6, bit for bit the add, clamp, mul and div it is exported as.
ET_API void span_hardswish(const float* x, float* y, int64_t n);

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
