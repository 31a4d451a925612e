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
//  - depthwise (groups == in_channels, any channel multiplier): direct per-channel loops in
//    per-ISA translation units. Small planes (up to 1024 padded pixels, kernels up to 25 taps,
//    multiplier 1) go 16 channels at a time through a channels-last copy in scratch; larger 3x3
//    and 5x5 kernels (stride up to 4, any dilation) through a zero-padded, stride-phase-split
//    copy of the plane in per-thread scratch, every tap one contiguous stream; other kernels (or
//    no scratch) row by row, with a fused 3x3 path;
//  - 1x1, stride 1, no padding: one SGEMM per (batch, group) straight on the input;
//  - otherwise: im2col of one (batch, group) in L2-sized bands of output rows (a height that
//    fills whole register tiles of columns and halves evenly, never dependent on the thread
//    count), written straight into the SGEMM's packed B panels when the product takes its tiled
//    path (else into the workspace, then SGEMM); the last few columns past whole tiles go to dot
//    products. Several bands are split whole across the thread pool, each thread with its own
//    per-thread buffer (the caller's workspace is then not used); a single band is split inside
//    (the SGEMM by output rectangles, each packing its own panels; or the im2col by input
//    channels).
// The SGEMM paths apply bias and clamp in the micro-kernel where it can (gemm.h
// SgemmEpilogue), and take the weight prepacked when given one (conv2d_nchw_packed).
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
// overlap the input. Returns false, touching nothing, if !conv2d_params_valid(p); false also
// if scratch memory cannot be had (a worker thread's may fail after others wrote their part,
// so the output is then undefined); the caller reports the error.
bool conv2d_nchw(const Conv2dParams& p, const float* input, const float* weight, const float* bias,
                 float* output, void* workspace = nullptr, size_t workspace_bytes = 0);

// ---- Weights packed ahead of time (a constant weight, packed once when a Method is loaded).
//
// The im2col and pointwise paths multiply the weight of each group (as the SGEMM's A) by the
// columns of the input, and would pack it into the micro-kernel's layout on every call.
// conv2d_pack_weight writes that layout once (for active_isa()); conv2d_nchw_packed uses it
// when it matches, with bit-identical results.

// Bytes of the packed weight for p at active_isa(), or 0 when p is invalid or its path packs
// no weight (depthwise and other one-input-channel-per-group convolutions).
size_t conv2d_packed_weight_size(const Conv2dParams& p);

// Packs weight (p's layout, see above) into dst: conv2d_packed_weight_size(p) bytes, 64-byte
// aligned. False, writing nothing, when that size is 0.
bool conv2d_pack_weight(const Conv2dParams& p, const float* weight, void* dst);

// conv2d_nchw, taking the weight's packed form from packed_weight (from conv2d_pack_weight for
// the same weight and a p with the same channels, kernel and groups) when it was packed at the
// ISA level now active; otherwise, or when null, as conv2d_nchw.
bool conv2d_nchw_packed(const Conv2dParams& p, const float* input, const float* weight,
                        const void* packed_weight, const float* bias, float* output,
                        void* workspace = nullptr, size_t workspace_bytes = 0);

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
