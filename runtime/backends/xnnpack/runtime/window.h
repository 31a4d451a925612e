// The sliding window of the NHWC convolutions and poolings, checked once at init.
#pragma once

#include <cstddef>
#include <cstdint>

#include "node_context.h"

namespace executorch {
namespace backends {
namespace xnnpack {

struct Window {
  size_t batch = 0, in_h = 0, in_w = 0, in_c = 0;
  size_t out_h = 0, out_w = 0, out_c = 0;
  size_t kh = 0, kw = 0, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  size_t pad_top = 0, pad_left = 0;
};

// Checks the window against 4-D NHWC input and output shapes: positive kernel, stride and
// dilation, a window that fits the padded input, and the output size it gives.
runtime::Error check_window(
    NodeContext& ctx,
    const Value& in,
    const Value& out,
    size_t kh,
    size_t kw,
    size_t sh,
    size_t sw,
    size_t dh,
    size_t dw,
    size_t pt,
    size_t pr,
    size_t pb,
    size_t pl,
    Window* w);

// The value ids of a convolution node (Conv2d, DepthwiseConv2d, ConvTranspose2d), checked:
// filter and bias (optional) must be constants.
struct ConvIds {
  uint32_t in = 0, filter = 0, bias = kInvalidValueId, out = 0;
};
runtime::Error read_conv_ids(
    NodeContext& ctx, const ::xnnpack_schema::_XNNNodeConv* p, ConvIds* ids);

// The input row (column) that kernel tap r (s) of output row oh (column ow) reads; negative
// or past the input inside the padding.
inline int64_t window_row(const Window& w, size_t oh, size_t r) {
  return static_cast<int64_t>(oh * w.stride_h + r * w.dil_h) -
         static_cast<int64_t>(w.pad_top);
}
inline int64_t window_col(const Window& w, size_t ow, size_t s) {
  return static_cast<int64_t>(ow * w.stride_w + s * w.dil_w) -
         static_cast<int64_t>(w.pad_left);
}
// The input pixel at (ih, iw) of one NHWC image, or nullptr inside the padding.
inline const float* window_pixel(
    const Window& w, const float* image, int64_t ih, int64_t iw) {
  if (ih < 0 || iw < 0 || ih >= static_cast<int64_t>(w.in_h) ||
      iw >= static_cast<int64_t>(w.in_w)) {
    return nullptr;
  }
  return image +
         (static_cast<size_t>(ih) * w.in_w + static_cast<size_t>(iw)) * w.in_c;
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
