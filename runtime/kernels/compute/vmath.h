// Vectorized float32 elementwise math for the kernel library (private: not installed).
//
// One table of routines per ISA level (vmath_<isa>.cpp compile vmath_kernels_impl.inc with
// their own -m flags; see isa.h). Callers take the table for the active level with vmath()
// and call through it; a new level (e.g. an Arm NEON file) adds one more table and one case
// in vmath_for() (vmath.cpp), nothing else.
//
// Accuracy, measured against double-precision references over dense sweeps of the whole float
// range (test/unit/compute/vmath_test.cpp checks these bounds on every level the CPU has):
//   exp                       <= 1 ulp (normal results); 0, inf, NaN and subnormal results as
//                             IEEE expf (subnormals within 1 ulp of the subnormal grid)
//   sigmoid                   <= 3 ulp wherever sigmoid(x) is a normal float (no cancellation
//                             for x < 0); 0 below x = -87.33654, where it would be subnormal
//   tanh                      <= 3 ulp
//   silu   x * sigmoid(x)     <= 4 ulp for x >= -87.33654; -0 below (the sigmoid's 0)
// Nothing computes a subnormal on the way to a sigmoid (vmath_activation_impl.inc says why);
// exp and the gelus keep their subnormal results.
//   gelu   x * Phi(x)         <= 8 ulp for x >= 0, <= 8 + 2.5 x^2 ulp for x < 0 (the float
//                             rounding of x / sqrt 2, inherent to any float evaluation, grows
//                             like x^2 in erfc's tail); relative error, so the tail is far
//                             more accurate than the usual 0.5 x (1 + erf(x / sqrt 2)), whose
//                             1 + erf cancels
//   gelu_tanh                 the same bounds (x * sigmoid(2u), the same function as
//                             0.5 x (1 + tanh(u)) without its cancellation for x < 0)
//   hardsigmoid               <= 1 ulp (x + 3 is exact where it cancels, x in [-6, -1.5];
//                             elsewhere the add and the division round once each)
//   hardswish                 <= 2 ulp (one more rounding, the product)
// NaN in gives NaN out for every routine. All loops take any n >= 0 and unaligned pointers;
// the tail goes through the same vector code (on a zero-padded copy), so an element's result
// does not depend on its position. Outputs may alias inputs exactly (y == x).
#pragma once

#include <cstdint>

#include "isa.h"

namespace executorch {
namespace kernels {
namespace compute {

struct VmathKernels {
  void (*exp)(const float* x, float* y, int64_t n);
  void (*sigmoid)(const float* x, float* y, int64_t n);
  void (*tanh)(const float* x, float* y, int64_t n);
  void (*silu)(const float* x, float* y, int64_t n);
  void (*gelu)(const float* x, float* y, int64_t n);
  void (*gelu_tanh)(const float* x, float* y, int64_t n);
  // Largest element, NaN if any element is NaN; -inf for n == 0.
  float (*max)(const float* x, int64_t n);
  // y[i] = exp(x[i] - shift); returns the sum of the y[i].
  float (*exp_shift_sum)(const float* x, float shift, float* y, int64_t n);
  // y[i] = exp(x[i] - shift[i]).
  void (*exp_sub)(const float* x, const float* shift, float* y, int64_t n);
  // y[i] *= s.
  void (*scale)(float* y, int64_t n, float s);
  // y[i] += a * x[i] (SGEMM's path for a few rows times a row-major B).
  void (*axpy)(int64_t n, float a, const float* x, float* y);
  // Normalization pieces. sum and sum_sq_dev accumulate in kLanes partial sums (a different
  // order than one running sum, within a few ulp of it for the sizes norms see).
  float (*sum)(const float* x, int64_t n);
  // sum of (x[i] - mean)^2.
  float (*sum_sq_dev)(const float* x, int64_t n, float mean);
  // y[i] = x[i] * scale + shift.
  void (*scale_shift)(const float* x, float* y, int64_t n, float scale, float shift);
  // y[i] = (x[i] - mean) * rstd * w[i] + b[i]; w and/or b may be null (1 and 0).
  void (*normalize)(const float* x, float* y, int64_t n, float mean, float rstd, const float* w,
                    const float* b);
  // x * clamp(x + 3, 0, 6) / 6 and clamp(x + 3, 0, 6) / 6, bit-identical to the add, clamp,
  // mul, div the export decomposes them into.
  void (*hardswish)(const float* x, float* y, int64_t n);
  void (*hardsigmoid)(const float* x, float* y, int64_t n);
  // x * sigmoid(x) rounded as sigmoid then mul (the decomposed SiLU), bit for bit.
  void (*sigmoid_mul)(const float* x, float* y, int64_t n);
  // `rows` channels-last rows of c channels: y[r * c + i] = x[r * c + i] * scale[i] + shift[i],
  // rounded as scale_shift rounds (so a channels-last batch norm matches the contiguous one).
  void (*scale_shift_channels)(const float* x, float* y, int64_t rows, int64_t c,
                               const float* scale, const float* shift);
  const char* name;
};

extern const VmathKernels kVmathBaseline;
extern const VmathKernels kVmathAvx2;
extern const VmathKernels kVmathAvx512;

// The table for `isa`, clamped to detected_isa() (an ISA table is never returned for a CPU
// that lacks it).
const VmathKernels& vmath_for(Isa isa);

// The table for active_isa().
inline const VmathKernels& vmath() {
  return vmath_for(active_isa());
}

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
