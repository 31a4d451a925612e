// make_int8_conv_step() (int8_conv.h).
#include "int8_conv.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <executorch/runtime/kernels/compute/qconv_nhwc.h>

namespace executorch {
namespace backends {
namespace xnnpack {

using kernels::compute::ConvNhwcParams;
using kernels::compute::QConvNhwcParams;
using runtime::Error;

namespace {

bool per_tensor_8bit(const Value& v) {
  return v.quant.kind == Quant::Kind::kPerTensor &&
         v.quant.qmax - v.quant.qmin == 255;
}

// The filter's integers and one scale per output channel (dim `channel_dim` of the filter
// holds the output channels, `out_channels` of them). False if the filter is not signed 8-bit
// with zero point 0, its scales are not per tensor or along that dim, or a decoded value is not
// an integer times its scale (nothing to take back exactly).
bool filter_integers(
    const Value& filter,
    int channel_dim,
    size_t out_channels,
    std::vector<int8_t>* q,
    std::vector<float>* scales) {
  const std::vector<float>& s = filter.int8_scales;
  if (s.empty()) {
    return false;
  }
  size_t inner = 1;
  if (filter.int8_channel_dim >= 0) {
    if (filter.int8_channel_dim != channel_dim || s.size() != out_channels) {
      return false;
    }
    for (size_t d = static_cast<size_t>(channel_dim) + 1;
         d < filter.dims.size();
         ++d) {
      inner *= filter.dims[d];
    }
    *scales = s;
  } else {
    scales->assign(out_channels, s[0]);
  }
  q->resize(filter.numel);
  for (size_t i = 0; i < filter.numel; ++i) {
    const float scale =
        filter.int8_channel_dim >= 0 ? s[(i / inner) % out_channels] : s[0];
    const float t = filter.data[i] / scale;
    const float r = std::nearbyint(t);
    if (!(std::fabs(t - r) < 1e-3f) || r < -128.0f || r > 127.0f) {
      return false;
    }
    (*q)[i] = static_cast<int8_t>(r);
  }
  return true;
}

// The bias on the accumulator's grid (in_scale * weight_scale[c]): the integers of a quantized
// bias taken back, or a float bias rounded onto it. False if one does not fit int32.
bool bias_integers(
    const float* bias,
    float in_scale,
    const std::vector<float>& weight_scales,
    std::vector<int32_t>* q) {
  q->assign(weight_scales.size(), 0);
  if (bias == nullptr) {
    return true;
  }
  for (size_t c = 0; c < weight_scales.size(); ++c) {
    const double v = std::nearbyint(
        static_cast<double>(bias[c]) /
        (static_cast<double>(in_scale) * weight_scales[c]));
    if (!(std::fabs(v) < 2147483647.0)) {
      return false;
    }
    (*q)[c] = static_cast<int32_t>(v);
  }
  return true;
}

class Int8ConvStep final : public Step {
 public:
  uint32_t in = 0, out = 0;
  Int8Conv conv;

  // The clamp narrows the requantization's output range; both grids are the same, so the
  // result is the Clamp's bit for bit.
  bool absorb_clamp(uint32_t clamp_out, float lo, float hi) override {
    ConvNhwcParams& p = conv.params.conv;
    const float new_lo = std::max(p.clamp_min, lo);
    const float new_hi = std::min(p.clamp_max, hi);
    if (!(new_lo <= new_hi)) {
      return false;
    }
    p.clamp_min = new_lo;
    p.clamp_max = new_hi;
    out = clamp_out;
    return true;
  }

  // The requantization's grid is in conv.params, taken from the output at build time.
  bool retarget_output(uint32_t new_out) override {
    out = new_out;
    return true;
  }

  void run(Graph& g) override {
    conv.run(g.data(in), g.data(out));
  }
};

}  // namespace

void Int8Conv::run(const float* input, float* output) const {
  if (depthwise) {
    kernels::compute::qdepthwise_conv2d_nhwc(
        params, packed, input, output, ws, ws_bytes);
  } else {
    kernels::compute::qconv2d_nhwc(params, packed, input, output, ws, ws_bytes);
  }
}

bool prepare_int8_conv(
    Graph& g,
    uint32_t in_id,
    uint32_t filter_id,
    uint32_t bias_id,
    uint32_t out_id,
    const ConvNhwcParams& conv,
    bool depthwise,
    Int8Conv* result,
    Error* err) {
  const Value& in = g.value(in_id);
  const Value& out = g.value(out_id);
  const Value& filter = g.value(filter_id);
  if (!per_tensor_8bit(in) || !per_tensor_8bit(out) || !filter.is_constant ||
      (bias_id != kInvalidValueId && !g.value(bias_id).is_constant)) {
    return false;
  }
  QConvNhwcParams p;
  p.conv = conv;
  // The output grid is the integer kernels' own requantization, not the float rounding.
  p.conv.out_scale = 0.0f;
  p.conv.out_zero_point = p.conv.out_qmin = p.conv.out_qmax = 0.0f;
  p.in_scale = in.quant.scale;
  p.in_zero_point = in.quant.zero_point;
  p.in_qmin = in.quant.qmin;
  p.in_qmax = in.quant.qmax;
  p.out_scale = out.quant.scale;
  p.out_zero_point = out.quant.zero_point;
  p.out_qmin = out.quant.qmin;
  p.out_qmax = out.quant.qmax;
  if (!kernels::compute::qconv2d_nhwc_params_valid(p)) {
    return false;
  }
  const size_t out_channels = static_cast<size_t>(conv.out_channels);
  std::vector<int8_t> weights;
  std::vector<float> scales;
  std::vector<int32_t> bias;
  if (!filter_integers(
          filter, depthwise ? 3 : 0, out_channels, &weights, &scales) ||
      !bias_integers(
          bias_id != kInvalidValueId ? g.value(bias_id).data : nullptr,
          p.in_scale,
          scales,
          &bias)) {
    return false;
  }
  Int8Conv c;
  c.params = p;
  c.depthwise = depthwise;
  const size_t packed_bytes =
      depthwise ? kernels::compute::qdepthwise_conv2d_nhwc_packed_size(p)
                : kernels::compute::qconv2d_nhwc_packed_size(p);
  c.ws_bytes = depthwise
                   ? kernels::compute::qdepthwise_conv2d_nhwc_workspace_size(p)
                   : kernels::compute::qconv2d_nhwc_workspace_size(p);
  if (packed_bytes == 0) {
    return false;  // depthwise with a window too large for the integer kernel
  }
  c.packed = g.allocate_floats(packed_bytes / sizeof(float) + 1);
  c.ws = g.allocate_floats(c.ws_bytes / sizeof(float) + 1);
  if (c.packed == nullptr || c.ws == nullptr) {
    *err = Error::MemoryAllocationFailed;
    return false;
  }
  const bool packed_ok =
      depthwise ? kernels::compute::qdepthwise_conv2d_nhwc_pack(
                      p, weights.data(), scales.data(), bias.data(), c.packed)
                : kernels::compute::qconv2d_nhwc_pack(
                      p, weights.data(), scales.data(), bias.data(), c.packed);
  if (!packed_ok) {
    return false;  // a scale or bias term out of range: the float step runs it
  }
  *result = c;
  return true;
}

std::unique_ptr<Step> make_int8_conv_step(
    Graph& g,
    const ConvIds& ids,
    const ConvNhwcParams& conv,
    bool depthwise,
    Error* err) {
  auto step = std::make_unique<Int8ConvStep>();
  if (!prepare_int8_conv(
          g,
          ids.in,
          ids.filter,
          ids.bias,
          ids.out,
          conv,
          depthwise,
          &step->conv,
          err)) {
    return nullptr;
  }
  step->in = ids.in;
  step->out = ids.out;
  step->rounds_quantized_outputs = true;
  return step;
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
