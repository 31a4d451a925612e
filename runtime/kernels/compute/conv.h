// 2-D convolution building blocks, NCHW float32 (private to the kernel library).
//
//   y[n, oc, oh, ow] = bias[oc] + sum_{ic in group(oc), r, s}
//       x[n, ic, oh*stride_h - pad_h + r*dilation_h, ow*stride_w - pad_w + s*dilation_w]
//       * w[oc, ic - group_start, r, s]
// with zero padding, then clamped to [clamp_min, clamp_max] (fused ReLU / ReLU6 / hardtanh), then
// the fused activation, if any.
// Weights use PyTorch's layout [out_channels, in_channels / groups, kernel_h, kernel_w]; a 1-D
// convolution is in_h = kernel_h = 1. All tensors are contiguous NCHW; the caller (the
// convolution kernel) converts other dim orders.
//
// Paths, chosen per call:
//  - depthwise (groups == in_channels, any channel multiplier): direct per-channel loops,
//    vectorized along the output row, with a fused 3x3 path; per-ISA translation units;
//  - 1x1, stride 1, no padding: one SGEMM per (batch, group) straight on the input;
//  - otherwise: im2col of one (batch, group) into the workspace, then SGEMM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "activation.h"

namespace executorch {
namespace kernels {
namespace compute {

struct Conv2dParams {
  int64_t batch = 1;
  int64_t in_channels = 0, in_h = 0, in_w = 0;
  int64_t out_channels = 0, kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t groups = 1;
  // Fused activation: ReLU is {0, +inf}, ReLU6 is {0, 6}. The defaults leave values unchanged.
  float clamp_min = -std::numeric_limits<float>::infinity();
  float clamp_max = std::numeric_limits<float>::infinity();
  // Fused activation after the clamp (SiLU, hardswish, hardsigmoid), applied to each finished
  // output block by conv_epilogue_activation().
  Activation activation = Activation::kNone;
};

// Output size along one dim, PyTorch's formula; 0 when the dilated kernel does not fit the
// padded input or a term of the formula overflows int64.
int64_t conv2d_out_h(const Conv2dParams& p);
int64_t conv2d_out_w(const Conv2dParams& p);

// True if the parameters describe a computable convolution (positive sizes and strides,
// channels divisible by groups, non-negative padding, positive output size).
bool conv2d_params_valid(const Conv2dParams& p);

// Scratch bytes conv2d_nchw needs (im2col of one batch/group plus the SGEMM workspace).
size_t conv2d_workspace_size(const Conv2dParams& p);

// Runs the convolution. bias may be nullptr. workspace: conv2d_workspace_size(p) bytes or
// nullptr/too small (then a per-thread buffer that only grows is used). The output must not
// overlap the input. Returns false, touching nothing, if !conv2d_params_valid(p) or scratch
// memory cannot be had; the caller reports the error.
bool conv2d_nchw(const Conv2dParams& p, const float* input, const float* weight, const float* bias,
                 float* output, void* workspace = nullptr, size_t workspace_bytes = 0);

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
