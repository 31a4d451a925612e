/*
 * The float32 fast path of elementwise kernels: when input and output are both
 * Float with the same dim order and shape, their buffers line up element for
 * element and a vector routine from the compute core (compute/vmath.h) runs
 * over them directly, instead of the generic per-element loop.
 */
#pragma once

#include <executorch/runtime/kernels/compute/vmath.h>
#include <executorch/runtime/kernels/detail/kernel_util.h>

namespace executorch {
namespace kernels {
namespace detail {

using VecUnaryFn = void (*)(const float* x, float* y, int64_t n);

/* Runs fn over in -> out and returns true if the fast path applies; false
 * (nothing touched) otherwise. Call after out has been resized like in. */
inline bool run_float_vector(const Tensor& in, const Tensor& out, VecUnaryFn fn) {
  if (fn == nullptr || in.scalar_type() != ScalarType::Float ||
      out.scalar_type() != ScalarType::Float || !same_dim_order(in, out) ||
      in.numel() != out.numel() || in.sizes() != out.sizes()) {
    return false;
  }
  if (in.numel() > 0) {
    fn(in.const_data_ptr<float>(), out.mutable_data_ptr<float>(), in.numel());
  }
  return true;
}

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
