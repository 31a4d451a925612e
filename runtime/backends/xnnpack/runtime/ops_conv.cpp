// Conv2d and DepthwiseConv2d, NHWC as the payload lays them out:
//   input  [N, H, W, groups * group_input_channels]
//   Conv2d filter [groups * group_output_channels, KH, KW, group_input_channels]
//   DepthwiseConv2d filter [1, KH, KW, channels * multiplier]
//   output [N, OH, OW, output channels], bias [output channels] (optional)
// Conv2d is im2col + the kernel library's SGEMM, with the filter packed once at init.
#include <algorithm>
#include <cstring>
#include <memory>

#include <executorch/runtime/kernels/compute/gemm.h>

#include "node_context.h"
#include "window.h"

namespace executorch {
namespace backends {
namespace xnnpack {

using kernels::compute::sgemm;
using kernels::compute::sgemm_workspace_size;
using kernels::compute::Trans;
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

class ConvStep final : public Step {
 public:
  uint32_t in = 0, out = 0;
  const float* bias = nullptr;
  Window w;
  size_t groups = 1, gic = 0, goc = 0;
  const float* packed = nullptr;  // per group: [KH*KW*gic, goc]
  float* columns =
      nullptr;          // im2col of one image and group: [OH*OW, KH*KW*gic]
  bool direct = false;  // 1x1, stride 1, no padding, one group: the input is A
  float lo = 0, hi = 0;
  void* ws = nullptr;
  size_t ws_bytes = 0;

  void run(Graph& g) override {
    const float* x = g.data(in);
    float* y = g.data(out);
    const size_t pixels = w.out_h * w.out_w;
    const size_t depth = w.kh * w.kw * gic;
    for (size_t n = 0; n < w.batch; ++n) {
      const float* image = x + n * w.in_h * w.in_w * w.in_c;
      float* result = y + n * pixels * w.out_c;
      for (size_t gi = 0; gi < groups; ++gi) {
        const float* a = image;
        size_t lda = w.in_c;
        if (!direct) {
          im2col(image, gi);
          a = columns;
          lda = depth;
        }
        sgemm(
            Trans::kNo,
            Trans::kNo,
            static_cast<int64_t>(pixels),
            static_cast<int64_t>(goc),
            static_cast<int64_t>(depth),
            1.0f,
            a,
            static_cast<int64_t>(lda),
            packed + gi * depth * goc,
            static_cast<int64_t>(goc),
            0.0f,
            result + gi * goc,
            static_cast<int64_t>(w.out_c),
            ws,
            ws_bytes);
      }
    }
    add_bias_and_clamp(y, w.batch * pixels, w.out_c, bias, lo, hi);
  }

 private:
  void im2col(const float* image, size_t group) {
    float* col = columns;
    for (size_t oh = 0; oh < w.out_h; ++oh) {
      for (size_t ow = 0; ow < w.out_w; ++ow) {
        for (size_t r = 0; r < w.kh; ++r) {
          for (size_t s = 0; s < w.kw; ++s) {
            const float* px = window_pixel(
                w, image, window_row(w, oh, r), window_col(w, ow, s));
            if (px == nullptr) {
              std::fill(col, col + gic, 0.0f);
            } else {
              std::memcpy(col, px + group * gic, gic * sizeof(float));
            }
            col += gic;
          }
        }
      }
    }
  }
};

class DepthwiseStep final : public Step {
 public:
  uint32_t in = 0, out = 0;
  const float* bias = nullptr;
  const float* filter = nullptr;  // [KH, KW, C * multiplier]
  Window w;
  size_t multiplier = 1;
  float lo = 0, hi = 0;

  void run(Graph& g) override {
    const float* x = g.data(in);
    float* y = g.data(out);
    const size_t oc = w.out_c;
    for (size_t n = 0; n < w.batch; ++n) {
      const float* image = x + n * w.in_h * w.in_w * w.in_c;
      for (size_t oh = 0; oh < w.out_h; ++oh) {
        for (size_t ow = 0; ow < w.out_w; ++ow) {
          float* acc = y + ((n * w.out_h + oh) * w.out_w + ow) * oc;
          for (size_t c = 0; c < oc; ++c)
            acc[c] = bias != nullptr ? bias[c] : 0.0f;
          for (size_t r = 0; r < w.kh; ++r) {
            for (size_t s = 0; s < w.kw; ++s) {
              const float* px = window_pixel(
                  w, image, window_row(w, oh, r), window_col(w, ow, s));
              if (px == nullptr)
                continue;
              const float* k = filter + (r * w.kw + s) * oc;
              if (multiplier == 1) {
                for (size_t c = 0; c < oc; ++c)
                  acc[c] += px[c] * k[c];
              } else {
                for (size_t c = 0; c < oc; ++c)
                  acc[c] += px[c / multiplier] * k[c];
              }
            }
          }
          for (size_t c = 0; c < oc; ++c)
            acc[c] = clamp_to(acc[c], lo, hi);
        }
      }
    }
  }
};

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
  Error err = read_conv(ctx, p, &ids, &step->w);
  if (err != Error::Ok) {
    return err;
  }
  Graph& g = ctx.graph();
  const Window& w = step->w;
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
  const size_t depth = w.kh * w.kw * gic;
  // Pack: per group, B[(r, s, ci), co] = filter[g * goc + co, r, s, ci].
  float* packed = g.allocate_floats(groups * depth * goc);
  if (packed == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  for (size_t gi = 0; gi < groups; ++gi) {
    for (size_t co = 0; co < goc; ++co) {
      const float* src = filter.data + (gi * goc + co) * depth;
      for (size_t d = 0; d < depth; ++d) {
        packed[gi * depth * goc + d * goc + co] = src[d];
      }
    }
  }
  step->in = ids.in;
  step->out = ids.out;
  step->bias = ids.bias != kInvalidValueId ? g.value(ids.bias).data : nullptr;
  step->groups = groups;
  step->gic = gic;
  step->goc = goc;
  step->packed = packed;
  step->direct = groups == 1 && w.kh == 1 && w.kw == 1 && w.stride_h == 1 &&
                 w.stride_w == 1 && p->padding_top() == 0 &&
                 p->padding_left() == 0 && p->padding_bottom() == 0 &&
                 p->padding_right() == 0;
  if (!step->direct) {
    step->columns = g.allocate_floats(w.out_h * w.out_w * depth);
    if (step->columns == nullptr) {
      return Error::MemoryAllocationFailed;
    }
  }
  step->ws_bytes = sgemm_workspace_size(
      static_cast<int64_t>(w.out_h * w.out_w),
      static_cast<int64_t>(goc),
      static_cast<int64_t>(depth));
  step->ws = g.allocate_floats(step->ws_bytes / sizeof(float) + 1);
  if (step->ws == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  step->lo = ctx.output_min();
  step->hi = ctx.output_max();
  return ctx.accept(std::move(step));
}

Error build_depthwise_conv2d(NodeContext& ctx) {
  const auto* p = ctx.node()->xnode_union_as_XNNDepthwiseConv2d();
  ConvIds ids;
  auto step = std::make_unique<DepthwiseStep>();
  Error err = read_conv(ctx, p, &ids, &step->w);
  if (err != Error::Ok) {
    return err;
  }
  Graph& g = ctx.graph();
  const Window& w = step->w;
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
  step->multiplier = multiplier;
  step->lo = ctx.output_min();
  step->hi = ctx.output_max();
  return ctx.accept(std::move(step));
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
