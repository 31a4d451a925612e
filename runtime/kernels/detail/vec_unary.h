/*
 * The float32 fast path of elementwise kernels: when input and output are both
 * Float with the same dim order and shape, their buffers line up element for
 * element and a vector routine from the compute core (compute/vmath.h) runs
 * over them directly, instead of the generic per-element loop.
 */
#pragma once

#include <algorithm>

#include <executorch/runtime/kernels/compute/parallel.h>
#include <executorch/runtime/kernels/compute/vmath.h>
#include <executorch/runtime/kernels/detail/kernel_util.h>

namespace executorch {
namespace kernels {
namespace detail {

using VecUnaryFn = void (*)(const float* x, float* y, int64_t n);

/* The vector routines (exp, sigmoid, tanh, silu, gelu) cost several
 * multiply-adds per element: the work one element counts for when sizing the
 * chunks of the thread pool split. */
constexpr double kVecUnaryWorkPerElement = 4.0;

/* Runs fn over in -> out and returns true if the fast path applies; false
 * (nothing touched) otherwise. Call after out has been resized like in.
 * Large tensors are split across the thread pool in blocks of 64 elements
 * (a multiple of every vector width): the routines compute an element the
 * same way wherever it falls, so the split never changes a result. */
inline bool run_float_vector(const Tensor& in, const Tensor& out, VecUnaryFn fn) {
  if (fn == nullptr || in.scalar_type() != ScalarType::Float ||
      out.scalar_type() != ScalarType::Float || !same_dim_order(in, out) ||
      in.numel() != out.numel() || in.sizes() != out.sizes()) {
    return false;
  }
  const int64_t n = in.numel();
  const float* x = in.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  constexpr int64_t kBlock = 64;
  compute::parallel_items((n + kBlock - 1) / kBlock, kBlock * kVecUnaryWorkPerElement,
                          [&](int64_t b0, int64_t b1) {
                            const int64_t i0 = b0 * kBlock, i1 = std::min(n, b1 * kBlock);
                            fn(x + i0, y + i0, i1 - i0);
                          });
  return true;
}

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
