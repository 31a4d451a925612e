// 2-D convolution building blocks, NHWC float32, for the backends whose graphs are channels-last
// (the XNNPACK delegate's payload). Exported from libexecutorch_kernels.so.1 (the ET_API
// declarations, runtime/kernels/kernels.map, abi/kernels_exports.txt) so the backend runs on
// this code instead of a copy of it.
//
//   y[n, oh, ow, g*goc + co] = clamp(bias[g*goc + co] + sum_{r, s, ci}
//       x[n, oh*stride_h - pad_top + r*dilation_h, ow*stride_w - pad_left + s*dilation_w,
//         g*gic + ci] * filter[g*goc + co, r, s, ci])
// with zero padding. Filters are OHWI ([out_channels, kernel_h, kernel_w, in_channels / groups]),
// as XNNPACK and TFLite store them; depthwise filters are [kernel_h, kernel_w, out_channels].
//
// Every routine splits its work across the thread pool along the output only (pixels or pixel
// rows), and each output is computed the same way whichever thread computes it, so results
// are bit-identical at any thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "conv.h"
#include "isa.h"

#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace kernels {
namespace compute {

// An activation applied to every output after the clamp, rounded exactly as the elementwise
// routine that computes it apart (vmath_span.h's span_sigmoid_mul, span_hardswish) at the same
// ISA level, so fusing it changes no bit.
enum class ConvActivation : int {
  kNone = 0,
  kSigmoidMul = 1,  // y * sigmoid(y), the sigmoid rounded first (swish / SiLU as exported)
  kHardswish = 2,   // y * clamp(y + 3, 0, 6) / 6
};

struct ConvNhwcParams {
  int64_t batch = 1;
  int64_t in_h = 0, in_w = 0, in_channels = 0;
  int64_t out_h = 0, out_w = 0, out_channels = 0;
  int64_t groups = 1;
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;
  // Fused activation; the defaults leave values unchanged.
  float clamp_min = -std::numeric_limits<float>::infinity();
  float clamp_max = std::numeric_limits<float>::infinity();
  // Optional, after the clamp: round every output onto a quantization grid, kept as float
  // (the int8 programs' activations): y = (clamp(nearbyint(y / scale) + zero_point, qmin, qmax)
  // - zero_point) * scale, round half to even. out_scale 0 (the default) leaves y as it is.
  // The grid must be 8-bit (qmin, qmax and zero_point within [-128, 255]); NaN stays NaN.
  float out_scale = 0.0f;
  float out_zero_point = 0.0f, out_qmin = 0.0f, out_qmax = 0.0f;
  // After the clamp; only on outputs without a grid (out_scale 0).
  ConvActivation activation = ConvActivation::kNone;
};

// The NHWC parameters of a convolution described as PyTorch does (conv.h): its padding on the
// top and left (PyTorch's is symmetric; any extra row or column of an output size computed
// with it falls in trailing padding), the given output size, and its clamp.
inline ConvNhwcParams nhwc_params_of(const Conv2dParams& p, int64_t out_h, int64_t out_w) {
  ConvNhwcParams q;
  q.batch = p.batch;
  q.in_h = p.in_h;
  q.in_w = p.in_w;
  q.in_channels = p.in_channels;
  q.out_h = out_h;
  q.out_w = out_w;
  q.out_channels = p.out_channels;
  q.groups = p.groups;
  q.kernel_h = p.kernel_h;
  q.kernel_w = p.kernel_w;
  q.stride_h = p.stride_h;
  q.stride_w = p.stride_w;
  q.dilation_h = p.dilation_h;
  q.dilation_w = p.dilation_w;
  q.pad_top = p.pad_h;
  q.pad_left = p.pad_w;
  q.clamp_min = p.clamp_min;
  q.clamp_max = p.clamp_max;
  return q;
}

// True if the sizes are positive (padding non-negative) and below 2^31, the tensors below 2^62
// elements, the channels divide into the groups, the output grid (if any) is 8-bit, and an
// activation (if any) is a known one on an output without a grid. The
// output size is the caller's (it checked it against its padding): any window tap outside the
// input reads zero.
ET_API bool conv2d_nhwc_params_valid(const ConvNhwcParams& p);

// ---- Grouped / dense convolution: GEMM on the input, the filter packed once.
//
// Per group, output pixels are the rows of A ([pixels, kh*kw*gic]) and the filter is
// B ([kh*kw*gic, goc]), packed once into column panels. The micro-kernels read A's rows in
// place (nothing is packed per call): a 1x1 convolution with stride 1 and no padding reads them
// straight from the input (rows strided by in_channels); any other reads an implicit im2col: a
// block of rows at a time is gathered into the workspace (it stays in cache) and multiplied
// there. Bias, clamp and output grid are applied in the micro-kernel as each tile is stored.
// The sum of every output runs over the depth in order, whatever the thread count. Threads
// split the blocks (and the panels of a block when there are few blocks); a block's rows do
// not depend on the thread count.

// Bytes of the packed filter (0 if !conv2d_nhwc_params_valid(p)).
ET_API size_t conv2d_nhwc_packed_size(const ConvNhwcParams& p);
// Packs filter (OHWI) and bias (out_channels floats, or nullptr) into `packed`
// (conv2d_nhwc_packed_size bytes, any alignment: the panels are aligned inside it; the layout
// is the same at every ISA level). False if the parameters are invalid.
ET_API bool conv2d_nhwc_pack(const ConvNhwcParams& p, const float* filter, const float* bias,
                             void* packed);
// Scratch bytes conv2d_nhwc needs (the im2col block).
ET_API size_t conv2d_nhwc_workspace_size(const ConvNhwcParams& p);
// Runs it. workspace: conv2d_nhwc_workspace_size(p) bytes, or nullptr / too small (then a
// per-thread buffer that only grows is used); it serves the calling thread, and each worker
// thread of a split uses its own per-thread buffer. The output must not overlap the input.
// False, touching nothing, if the parameters are invalid; false also if scratch memory cannot
// be had (the output is then undefined: other threads may have written their part).
ET_API bool conv2d_nhwc(const ConvNhwcParams& p, const void* packed, const float* input,
                        float* output, void* workspace = nullptr, size_t workspace_bytes = 0);

// ---- Depthwise: groups == in_channels, out_channels = in_channels * multiplier (output
// channel oc reads input channel oc / multiplier). Direct loops vectorized across the
// channels, the bias and the clamp fused. filter: [kernel_h, kernel_w, out_channels]; bias:
// out_channels floats or nullptr. False, touching nothing, if the parameters are invalid.
ET_API bool depthwise_conv2d_nhwc(const ConvNhwcParams& p, const float* filter, const float* bias,
                                  const float* input, float* output);

// The same at an explicit ISA level (clamped to detected_isa()); for tests.
bool depthwise_conv2d_nhwc_isa(Isa isa, const ConvNhwcParams& p, const float* filter,
                               const float* bias, const float* input, float* output);

// ---- The output grid rounding of ConvNhwcParams on its own, in place over n floats: for the
// quantized values that no convolution writes. The grid must be 8-bit, as in
// conv2d_nhwc_params_valid; false, touching nothing, if it is not.
ET_API bool quantize_to_grid(float* x, int64_t n, float scale, float zero_point, float qmin,
                             float qmax);

// The same at an explicit ISA level (clamped to detected_isa()); for tests.
bool quantize_to_grid_isa(Isa isa, float* x, int64_t n, float scale, float zero_point, float qmin,
                          float qmax);

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
