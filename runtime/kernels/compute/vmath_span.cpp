// The exported span wrappers of vmath_span.h.
#include "vmath_span.h"

#include "parallel.h"
#include "vmath.h"

namespace executorch {
namespace kernels {
namespace compute {
namespace {

// Elements per chunk handed to a thread; a transcendental costs some tens of cycles each.
constexpr int64_t kChunk = 4096;
constexpr double kWorkPerChunk = 20.0 * kChunk;

using SpanFn = void (*)(const float* x, float* y, int64_t n);

void run_span(SpanFn fn, const float* x, float* y, int64_t n) {
  if (n <= 0)
    return;
  parallel_items((n + kChunk - 1) / kChunk, kWorkPerChunk, [&](int64_t begin, int64_t end) {
    const int64_t first = begin * kChunk, last = end * kChunk < n ? end * kChunk : n;
    fn(x + first, y + first, last - first);
  });
}

}  // namespace

void span_exp(const float* x, float* y, int64_t n) {
  run_span(vmath().exp, x, y, n);
}

void span_sigmoid(const float* x, float* y, int64_t n) {
  run_span(vmath().sigmoid, x, y, n);
}

void span_tanh(const float* x, float* y, int64_t n) {
  run_span(vmath().tanh, x, y, n);
}

void span_gelu(const float* x, float* y, int64_t n) {
  run_span(vmath().gelu, x, y, n);
}

void span_sigmoid_mul(const float* x, float* y, int64_t n) {
  run_span(vmath().sigmoid_mul, x, y, n);
}

void span_hardswish(const float* x, float* y, int64_t n) {
  run_span(vmath().hardswish, x, y, n);
}

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
