/*
 * convolution.out on channels-last tensors without a layout round trip: a non-transposed 2-D
 * float convolution whose input and output are both channels-last runs on the NHWC compute
 * routines (compute/conv_nhwc.h), dense and grouped through conv2d_nhwc, depthwise
 * (groups == in_channels > 1, any multiplier) through depthwise_conv2d_nhwc.
 *
 * Their filter layout (conv2d_nhwc's packed OHWI panels with the bias, or the depthwise
 * [kernel_h, kernel_w, out_channels]) is built into a "filter blob": once at load for a
 * constant weight (a prepared constant under kNhwcFilterTag), or per call otherwise. The blob
 * records the shape and bias it was built for, so a blob that does not fit the call is not used.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/kernels/compute/conv_nhwc.h>

namespace executorch {
namespace kernels {
namespace detail {

// Prepared-constant tag of a filter blob.
constexpr uint32_t kNhwcFilterTag = 0x434f4e48u;  // "CONH"

// The weight as the convolution stores it: OIHW contiguous, or channels-last (already OHWI).
struct NhwcFilterSource {
  const float* data = nullptr;
  bool ohwi = false;
  const float* bias = nullptr;  // out_channels floats or null
};

// Bytes of the filter blob for p (0 if the parameters are invalid for the NHWC routines).
size_t conv_nhwc_filter_blob_size(const compute::ConvNhwcParams& p);

// Builds the blob (conv_nhwc_filter_blob_size(p) bytes, 64-byte aligned). False if invalid.
bool conv_nhwc_build_filter_blob(const compute::ConvNhwcParams& p, const NhwcFilterSource& src,
                                 void* blob);

// Runs the convolution on NHWC input/output with the clamp of p. `prepared` is a blob made at
// load (or null); it is used only if it was built for this shape and bias, otherwise a blob is
// built into scratch memory. False, with nothing written, if the parameters are invalid or
// memory cannot be had.
bool conv_nhwc_run(const compute::ConvNhwcParams& p, const NhwcFilterSource& src,
                   const void* prepared, const float* input, float* output);

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
