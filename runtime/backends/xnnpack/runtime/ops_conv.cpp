// Conv2d and DepthwiseConv2d, NHWC as the payload lays them out:
//   input  [N, H, W, groups * group_input_channels]
//   Conv2d filter [groups * group_output_channels, KH, KW, group_input_channels]
//   DepthwiseConv2d filter [1, KH, KW, channels * multiplier]
//   output [N, OH, OW, output channels], bias [output channels] (optional)
// Both run on the kernel library's NHWC convolutions (runtime/kernels/compute/conv_nhwc.h).
#include <memory>

#include <executorch/runtime/kernels/compute/conv_nhwc.h>

#include "int8_conv.h"
#include "node_context.h"
#include "window.h"

namespace executorch {
namespace backends {
namespace xnnpack {

using kernels::compute::conv2d_nhwc;
using kernels::compute::conv2d_nhwc_pack;
using kernels::compute::conv2d_nhwc_packed_size;
using kernels::compute::conv2d_nhwc_params_valid;
using kernels::compute::conv2d_nhwc_workspace_size;
using kernels::compute::ConvActivation;
using kernels::compute::ConvNhwcParams;
using kernels::compute::depthwise_conv2d_nhwc;
using runtime::Error;

Error read_conv_ids(NodeContext& ctx, const fb::_XNNNodeConv* p, ConvIds* ids) {
  Error err = ctx.input(p->input1_id(), "input1_id", &ids->in);
  if (err == Error::Ok)
    err = ctx.input(p->filter_id(), "filter_id", &ids->filter);
  if (err == Error::Ok)
    err = ctx.optional_input(p->bias_id(), "bias_id", &ids->bias);
  if (err == Error::Ok)
    err = ctx.output(p->output_id(), "output_id", &ids->out);
  if (err == Error::Ok)
    err = check_flags(ctx, p->flags(), 0);
  if (err != Error::Ok) {
    return err;
  }
  Graph& g = ctx.graph();
  if (!g.value(ids->filter).is_constant) {
    return ctx.unsupported("a filter computed at run time is not supported");
  }
  if (ids->bias != kInvalidValueId && !g.value(ids->bias).is_constant) {
    return ctx.unsupported("a bias computed at run time is not supported");
  }
  return Error::Ok;
}

Error check_window(
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
    Window* w) {
  if (in.dims.size() != 4 || out.dims.size() != 4) {
    return ctx.invalid("input and output must be 4-D NHWC");
  }
  if (kh == 0 || kw == 0 || sh == 0 || sw == 0 || dh == 0 || dw == 0) {
    return ctx.invalid(
        "kernel %zux%zu, stride %zux%zu and dilation %zux%zu must be positive",
        kh,
        kw,
        sh,
        sw,
        dh,
        dw);
  }
  // Every term is below 2^32, so none of this overflows 64 bits.
  const uint64_t eff_h = uint64_t{dh} * (kh - 1) + 1,
                 eff_w = uint64_t{dw} * (kw - 1) + 1;
  const uint64_t padded_h = uint64_t{in.dims[1]} + pt + pb,
                 padded_w = uint64_t{in.dims[2]} + pl + pr;
  if (padded_h < eff_h || padded_w < eff_w) {
    return ctx.invalid(
        "the %llux%llu window does not fit the padded %llux%llu input",
        (unsigned long long)eff_h,
        (unsigned long long)eff_w,
        (unsigned long long)padded_h,
        (unsigned long long)padded_w);
  }
  const size_t oh = static_cast<size_t>((padded_h - eff_h) / sh + 1);
  const size_t ow = static_cast<size_t>((padded_w - eff_w) / sw + 1);
  if (out.dims[0] != in.dims[0] || out.dims[1] != oh || out.dims[2] != ow) {
    return ctx.invalid(
        "output [%zu, %zu, %zu, ..] should be [%zu, %zu, %zu, ..]",
        out.dims[0],
        out.dims[1],
        out.dims[2],
        in.dims[0],
        oh,
        ow);
  }
  *w = Window{
      in.dims[0],
      in.dims[1],
      in.dims[2],
      in.dims[3],
      oh,
      ow,
      out.dims[3],
      kh,
      kw,
      sh,
      sw,
      dh,
      dw,
      pt,
      pl};
  return Error::Ok;
}

namespace {

// The activation step after a convolution applied in its epilogue instead (fuse_activations()),
// on an output without a grid: the compute core rounds it as the activation's own step would.
bool fuse_into(
    ConvNhwcParams& p, FusableActivation a, uint32_t new_out, uint32_t* out) {
  if (p.activation != ConvActivation::kNone || p.out_scale != 0.0f) {
    return false;
  }
  ConvNhwcParams fused = p;
  fused.activation = a == FusableActivation::kSigmoidMul
                         ? ConvActivation::kSigmoidMul
                         : ConvActivation::kHardswish;
  if (a == FusableActivation::kNone || !conv2d_nhwc_params_valid(fused)) {
    return false;
  }
  p = fused;
  *out = new_out;
  return true;
}

// Both convolutions run on the compute core's NHWC routines (conv_nhwc.h): the dense one on the
// SGEMM with the filter packed once here (1x1 stride-1 convolutions straight on the input, the
// others through a blocked im2col that stays in cache), the depthwise one on direct loops
// vectorized across the channels; bias and clamp fused into both.
class ConvStep final : public Step {
 public:
  uint32_t in = 0, out = 0;
  ConvNhwcParams params;
  void* packed = nullptr;
  void* ws = nullptr;
  size_t ws_bytes = 0;

  void run(Graph& g) override {
    // The parameters were checked at init, so this cannot fail; scratch is preallocated.
    conv2d_nhwc(params, packed, g.data(in), g.data(out), ws, ws_bytes);
  }
  bool absorb_activation(FusableActivation a, uint32_t new_out) override {
    return fuse_into(params, a, new_out, &out);
  }
  // The grid it rounds onto, if any, is in params, taken from the output at build time.
  bool retarget_output(uint32_t new_out) override {
    out = new_out;
    return true;
  }
};

class DepthwiseStep final : public Step {
 public:
  uint32_t in = 0, out = 0;
  ConvNhwcParams params;
  const float* bias = nullptr;
  const float* filter = nullptr;  // [KH, KW, C * multiplier]

  void run(Graph& g) override {
    depthwise_conv2d_nhwc(params, filter, bias, g.data(in), g.data(out));
  }
  bool absorb_activation(FusableActivation a, uint32_t new_out) override {
    return fuse_into(params, a, new_out, &out);
  }
  // The grid it rounds onto, if any, is in params, taken from the output at build time.
  bool retarget_output(uint32_t new_out) override {
    out = new_out;
    return true;
  }
};

// The compute core's description of a checked window. A per-tensor quantized output is
// rounded onto its grid in the convolution's epilogue instead of by a step of its own.
ConvNhwcParams nhwc_params(
    const Window& w,
    size_t groups,
    float lo,
    float hi,
    const Quant& out_quant) {
  ConvNhwcParams p;
  p.batch = static_cast<int64_t>(w.batch);
  p.in_h = static_cast<int64_t>(w.in_h);
  p.in_w = static_cast<int64_t>(w.in_w);
  p.in_channels = static_cast<int64_t>(w.in_c);
  p.out_h = static_cast<int64_t>(w.out_h);
  p.out_w = static_cast<int64_t>(w.out_w);
  p.out_channels = static_cast<int64_t>(w.out_c);
  p.groups = static_cast<int64_t>(groups);
  p.kernel_h = static_cast<int64_t>(w.kh);
  p.kernel_w = static_cast<int64_t>(w.kw);
  p.stride_h = static_cast<int64_t>(w.stride_h);
  p.stride_w = static_cast<int64_t>(w.stride_w);
  p.dilation_h = static_cast<int64_t>(w.dil_h);
  p.dilation_w = static_cast<int64_t>(w.dil_w);
  p.pad_top = static_cast<int64_t>(w.pad_top);
  p.pad_left = static_cast<int64_t>(w.pad_left);
  p.clamp_min = lo;
  p.clamp_max = hi;
  if (out_quant.kind == Quant::Kind::kPerTensor) {
    p.out_scale = out_quant.scale;
    p.out_zero_point = static_cast<float>(out_quant.zero_point);
    p.out_qmin = static_cast<float>(out_quant.qmin);
    p.out_qmax = static_cast<float>(out_quant.qmax);
  }
  return p;
}

// The ids, window and bias shared by both convolutions.
Error read_conv(
    NodeContext& ctx, const fb::_XNNNodeConv* p, ConvIds* ids, Window* w) {
  Error err = read_conv_ids(ctx, p, ids);
  if (err != Error::Ok) {
    return err;
  }
  Graph& g = ctx.graph();
  err = check_window(
      ctx,
      g.value(ids->in),
      g.value(ids->out),
      p->kernel_height(),
      p->kernel_width(),
      p->subsampling_height(),
      p->subsampling_width(),
      p->dilation_height(),
      p->dilation_width(),
      p->padding_top(),
      p->padding_right(),
      p->padding_bottom(),
      p->padding_left(),
      w);
  if (err != Error::Ok) {
    return err;
  }
  if (ids->bias != kInvalidValueId && g.value(ids->bias).numel != w->out_c) {
    return ctx.invalid(
        "bias has %zu elements, the output %zu channels",
        g.value(ids->bias).numel,
        w->out_c);
  }
  return Error::Ok;
}

}  // namespace

Error build_conv2d(NodeContext& ctx) {
  const auto* p = ctx.node()->xnode_union_as_XNNConv2d();
  ConvIds ids;
  auto step = std::make_unique<ConvStep>();
  Window w;
  Error err = read_conv(ctx, p, &ids, &w);
  if (err != Error::Ok) {
    return err;
  }
  Graph& g = ctx.graph();
  const size_t groups = p->groups(), gic = p->group_input_channels(),
               goc = p->group_output_channels();
  const Value& filter = g.value(ids.filter);
  if (groups == 0 || gic == 0 || goc == 0 || groups * gic != w.in_c ||
      groups * goc != w.out_c) {
    return ctx.invalid(
        "groups %zu x (%zu in, %zu out) channels do not match input %zu / "
        "output %zu",
        groups,
        gic,
        goc,
        w.in_c,
        w.out_c);
  }
  if (filter.dims != std::vector<size_t>{groups * goc, w.kh, w.kw, gic}) {
    return ctx.invalid(
        "filter must be [%zu, %zu, %zu, %zu]", groups * goc, w.kh, w.kw, gic);
  }
  step->in = ids.in;
  step->out = ids.out;
  step->params = nhwc_params(
      w, groups, ctx.output_min(), ctx.output_max(), g.value(ids.out).quant);
  step->rounds_quantized_outputs = true;
  if (!conv2d_nhwc_params_valid(step->params)) {
    return ctx.unsupported("a window this large is not supported");
  }
  if (std::unique_ptr<Step> int8_step = make_int8_conv_step(
          g, ids, step->params, /*depthwise=*/false, &err)) {
    return ctx.accept(std::move(int8_step));
  }
  if (err != Error::Ok) {
    return err;
  }
  const size_t packed_bytes = conv2d_nhwc_packed_size(step->params);
  step->packed = g.allocate_floats(packed_bytes / sizeof(float) + 1);
  step->ws_bytes = conv2d_nhwc_workspace_size(step->params);
  step->ws = g.allocate_floats(step->ws_bytes / sizeof(float) + 1);
  if (step->packed == nullptr || step->ws == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  conv2d_nhwc_pack(
      step->params,
      filter.data,
      ids.bias != kInvalidValueId ? g.value(ids.bias).data : nullptr,
      step->packed);
  return ctx.accept(std::move(step));
}

Error build_depthwise_conv2d(NodeContext& ctx) {
  const auto* p = ctx.node()->xnode_union_as_XNNDepthwiseConv2d();
  ConvIds ids;
  auto step = std::make_unique<DepthwiseStep>();
  Window w;
  Error err = read_conv(ctx, p, &ids, &w);
  if (err != Error::Ok) {
    return err;
  }
  Graph& g = ctx.graph();
  // The exporter writes groups = input channels, group_input_channels = 1 and
  // group_output_channels = the channel multiplier.
  const size_t channels = p->groups(), multiplier = p->group_output_channels();
  if (p->group_input_channels() != 1 || channels != w.in_c || multiplier == 0 ||
      channels * multiplier != w.out_c) {
    return ctx.invalid(
        "groups %zu x multiplier %zu (group inputs %u) do not match input %zu "
        "/ "
        "output %zu channels",
        channels,
        multiplier,
        p->group_input_channels(),
        w.in_c,
        w.out_c);
  }
  const Value& filter = g.value(ids.filter);
  if (filter.dims != std::vector<size_t>{1, w.kh, w.kw, w.out_c}) {
    return ctx.invalid(
        "filter must be [1, %zu, %zu, %zu]", w.kh, w.kw, w.out_c);
  }
  step->in = ids.in;
  step->out = ids.out;
  step->bias = ids.bias != kInvalidValueId ? g.value(ids.bias).data : nullptr;
  step->filter = filter.data;
  step->params = nhwc_params(
      w, channels, ctx.output_min(), ctx.output_max(), g.value(ids.out).quant);
  step->rounds_quantized_outputs = true;
  if (!conv2d_nhwc_params_valid(step->params)) {
    return ctx.unsupported("a window this large is not supported");
  }
  if (std::unique_ptr<Step> int8_step =
          make_int8_conv_step(g, ids, step->params, /*depthwise=*/true, &err)) {
    return ctx.accept(std::move(int8_step));
  }
  if (err != Error::Ok) {
    return err;
  }
  return ctx.accept(std::move(step));
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
