// Statically quantized convolutions on the compute core's integer kernels
// (runtime/kernels/compute/qconv_nhwc.h).
//
// The backend keeps quantized activations as floats on their grids (quantized_values.h), which
// is exact but leaves a float convolution no faster in int8 than in fp32. A Conv2d or
// DepthwiseConv2d whose input and output are per-tensor 8-bit activations and whose filter is
// signed 8-bit with zero point 0 (per tensor or per output channel) instead runs on int8 x uint8
// -> int32 products, requantized as XNNPACK's fp32 requantization does; its output is written
// back as floats on the output grid, so the neighbouring steps see the same representation.
#pragma once

#include <memory>

#include <executorch/runtime/kernels/compute/qconv_nhwc.h>

#include "graph.h"
#include "window.h"

namespace executorch {
namespace backends {
namespace xnnpack {

// The integer form of one convolution (or fully connected layer, as a 1x1 convolution over
// rows): its parameters, the packed filter and the preallocated scratch.
struct Int8Conv {
  kernels::compute::QConvNhwcParams params;
  bool depthwise = false;
  void* packed = nullptr;
  void* ws = nullptr;
  size_t ws_bytes = 0;
  // Checked at init with the scratch preallocated, so this cannot fail.
  void run(const float* input, float* output) const;
};

// Prepares the integer form of a checked convolution with values in, filter, bias (or
// kInvalidValueId) and out: `params` as the float step would run it, with groups; `depthwise`
// for a DepthwiseConv2d (filter [1, kh, kw, out channels]), else the filter is
// [out channels, ...]. False when the values are not of the int8 form above or their integers
// cannot be taken back exactly: then the float step runs it. *err is set
// (MemoryAllocationFailed) only when the form should have been built but could not.
bool prepare_int8_conv(
    Graph& g,
    uint32_t in,
    uint32_t filter,
    uint32_t bias,
    uint32_t out,
    const kernels::compute::ConvNhwcParams& params,
    bool depthwise,
    Int8Conv* conv,
    runtime::Error* err);

// The integer step for a checked convolution (prepare_int8_conv), or nullptr.
std::unique_ptr<Step> make_int8_conv_step(
    Graph& g,
    const ConvIds& ids,
    const kernels::compute::ConvNhwcParams& params,
    bool depthwise,
    runtime::Error* err);

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
