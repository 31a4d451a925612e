// Vectorized float32 pooling rows for the kernel library (private: not installed).
//
// The pooling operators (runtime/kernels/ops/pooling.cpp) handle the edges of a plane, where a
// window is cut by the padding, with their scalar loop, and hand each output row's interior run
// of windows to these routines: every window of the run lies inside the input along W, so the
// lanes of a vector are consecutive outputs and every tap is one (possibly strided) load.
// Each output is still computed exactly as the scalar loop does: taps visited in the same
// row-major order, the first maximum kept, the first NaN wins and stops the window, and the
// average sums in the same order before the same division, so results are bit-identical to the
// scalar loop at every ISA level.
//
// One table per ISA level (pool_<isa>.cpp compile pool_kernels_impl.inc with their own -m flags,
// as vmath does); pool() returns the one for active_isa().
#pragma once

#include <cstdint>

#include "isa.h"

namespace executorch {
namespace kernels {
namespace compute {

// One output row's interior run of a 2-D pooling over a contiguous [H, W] float plane.
struct PoolRow {
  const float* plane;  // the input plane, row-major, W floats per row
  int64_t w;           // W
  int64_t h0, dh;      // input row of tap r is h0 + r * dh ...
  int64_t r_lo, r_hi;  // ... for the taps r in [r_lo, r_hi), all inside the input
  int64_t w_first;     // input column of the first output's tap 0 (>= 0)
  int64_t sw;          // stride between consecutive outputs' windows along W
  int64_t kw, dw;      // taps per window along W and their spacing; every tap is inside
  int64_t n;           // outputs in the run
};

// One output pixel of a 2-D pooling over a channels-last [H, W, C] float plane: its window's
// taps inside the input are `rows` x `cols` pixels, tap (r, s) at x + r * row_step +
// s * col_step (in floats), each with its C channels contiguous; max pool's index of the tap
// (the flat h * W + w the NCHW path gives) is index0 + r * index_row_step + s * index_col_step.
struct PoolPixel {
  const float* x;
  int64_t rows, cols;  // both >= 1
  int64_t row_step, col_step;
  int64_t index0, index_row_step, index_col_step;  // < 2^31
  int64_t c;                                       // channels
};

struct PoolKernels {
  // y[j] = max over the window of output j, idx[j] = its flat index h * W + w (the first
  // maximum in row-major tap order; a NaN tap wins and ends the window). Needs r_lo < r_hi and
  // H * W < 2^31.
  void (*max_row)(const PoolRow& row, float* y, int64_t* idx);
  // y[j] = (sum of the window of output j, taps in row-major order) / divisor.
  void (*avg_row)(const PoolRow& row, float divisor, float* y);
  // Channels-last: for every channel ch, y[ch * y_step] = max over the pixel's taps (row-major
  // tap order, the rules of max_row) and idx[ch * idx_step] its tap's index.
  void (*max_pixel)(const PoolPixel& p, float* y, int64_t y_step, int64_t* idx, int64_t idx_step);
  // Channels-last: y[ch * y_step] = (sum of the taps of channel ch, row-major) / divisor.
  void (*avg_pixel)(const PoolPixel& p, float divisor, float* y, int64_t y_step);
  const char* name;
};

extern const PoolKernels kPoolBaseline;
extern const PoolKernels kPoolAvx2;
extern const PoolKernels kPoolAvx512;

// The table for `isa`, clamped to detected_isa().
const PoolKernels& pool_for(Isa isa);

inline const PoolKernels& pool() {
  return pool_for(active_isa());
}

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
