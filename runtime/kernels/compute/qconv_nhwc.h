// Statically quantized (int8) 2-D convolutions, NHWC, on integer kernels: the same geometry as
// conv_nhwc.h, with 8-bit activations and per-output-channel int8 weights. Exported from
// libexecutorch_kernels.so.1 (ET_API, runtime/kernels/kernels.map) for the XNNPACK backend.
//
// The activations cross this interface as floats on their quantization grids (the backend keeps
// every quantized value that way, runtime/backends/xnnpack/runtime/quantized_values.h): the input
// x stands for q = x / in_scale + in_zero_point exactly, and the output is written as
// (q_out - out_zero_point) * out_scale. In between everything is integer:
//
//   acc[c] = bias[c] + sum (q_in - in_zero_point) * w[c, ...]          (int32, exact)
//   q_out  = round_half_even(clamp(acc[c] * requant[c], qlo - zp, qhi - zp)) + zp
//
// with requant[c] = in_scale * weight_scale[c] / out_scale in float, and [qlo, qhi] the output
// grid narrowed by the clamp (each bound quantized as lrint(bound / out_scale) + zp), which is how
// XNNPACK's fp32 requantization computes its int8 convolutions. Padding taps read the input's
// zero point (the value 0).
#pragma once

#include <cstddef>
#include <cstdint>

#include "conv_nhwc.h"

namespace executorch {
namespace kernels {
namespace compute {

struct QConvNhwcParams {
  // Geometry and the float clamp of the output (its out_* grid fields must stay 0).
  ConvNhwcParams conv;
  // The 8-bit grids: qmax - qmin == 255 (qint8 [-128, 127] or quint8 [0, 255]), zero points
  // inside them, scales positive and finite.
  float in_scale = 1.0f;
  int32_t in_zero_point = 0, in_qmin = -128, in_qmax = 127;
  float out_scale = 1.0f;
  int32_t out_zero_point = 0, out_qmin = -128, out_qmax = 127;
};

// True if the geometry is valid for conv2d_nhwc_params_valid, without an output grid there, and
// the grids above are valid 8-bit grids.
ET_API bool qconv2d_nhwc_params_valid(const QConvNhwcParams& p);

// ---- Grouped / dense convolution (groups < in_channels or any grouping but depthwise):
// an int8 x uint8 -> int32 GEMM per group over the quantized input. With one group the GEMM
// reads each window tap's input pixel where it is; grouped convolutions gather im2col rows a
// block of output pixels at a time.

// Bytes of the packed filter (0 if the parameters are invalid).
ET_API size_t qconv2d_nhwc_packed_size(const QConvNhwcParams& p);
// Packs filter (OHWI int8, [out_channels, kernel_h, kernel_w, in_channels / groups]) with its
// per-output-channel scales (out_channels floats, positive and finite) and the int32 bias
// (out_channels, on the in_scale * weight_scale[c] grid, or nullptr) into `packed`
// (qconv2d_nhwc_packed_size bytes, any alignment). False if the parameters are invalid.
ET_API bool qconv2d_nhwc_pack(const QConvNhwcParams& p, const int8_t* filter,
                              const float* weight_scales, const int32_t* bias, void* packed);
// Scratch bytes qconv2d_nhwc needs (the quantized input, the block's row pointers and, for
// groups, its im2col rows).
ET_API size_t qconv2d_nhwc_workspace_size(const QConvNhwcParams& p);
// Runs it. workspace: qconv2d_nhwc_workspace_size(p) bytes (any alignment), or nullptr / too
// small (then a per-thread buffer that only grows is used). False, touching nothing, if the
// parameters are invalid or scratch memory cannot be had.
ET_API bool qconv2d_nhwc(const QConvNhwcParams& p, const void* packed, const float* input,
                         float* output, void* workspace = nullptr, size_t workspace_bytes = 0);
// The same at an explicit ISA level (clamped to detected_isa()); for tests.
bool qconv2d_nhwc_isa(Isa isa, const QConvNhwcParams& p, const void* packed, const float* input,
                      float* output, void* workspace, size_t workspace_bytes);

// ---- Depthwise (groups == in_channels, out_channels = in_channels * multiplier).
// filter: [kernel_h, kernel_w, out_channels] int8, weight_scales and bias per output channel.

ET_API size_t qdepthwise_conv2d_nhwc_packed_size(const QConvNhwcParams& p);
ET_API bool qdepthwise_conv2d_nhwc_pack(const QConvNhwcParams& p, const int8_t* filter,
                                        const float* weight_scales, const int32_t* bias,
                                        void* packed);
// Scratch: the input as 16-bit integers relative to its zero point.
ET_API size_t qdepthwise_conv2d_nhwc_workspace_size(const QConvNhwcParams& p);
ET_API bool qdepthwise_conv2d_nhwc(const QConvNhwcParams& p, const void* packed, const float* input,
                                   float* output, void* workspace = nullptr,
                                   size_t workspace_bytes = 0);
bool qdepthwise_conv2d_nhwc_isa(Isa isa, const QConvNhwcParams& p, const void* packed,
                                const float* input, float* output, void* workspace,
                                size_t workspace_bytes);

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
