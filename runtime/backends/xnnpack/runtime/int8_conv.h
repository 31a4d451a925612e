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

#include <executorch/runtime/kernels/compute/conv_nhwc.h>

#include "graph.h"
#include "window.h"

namespace executorch {
namespace backends {
namespace xnnpack {

// The integer step for a checked convolution (`params` as the float step would run it, with
// groups; `depthwise` for a DepthwiseConv2d), or nullptr when the values are not of the int8
// form above, or their integers cannot be taken back exactly: then the float step runs it.
// *err is set (MemoryAllocationFailed) only when the step should have been built but could not.
std::unique_ptr<Step> make_int8_conv_step(
    Graph& g,
    const ConvIds& ids,
    const kernels::compute::ConvNhwcParams& params,
    bool depthwise,
    runtime::Error* err);

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
