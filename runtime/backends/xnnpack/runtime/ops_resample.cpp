// ConvTranspose2d and StaticResizeBilinear2D, NHWC.
//
// ConvTranspose2d: input [N, H, W, groups * group_input_channels], filter
// [groups * group_output_channels, KH, KW, group_input_channels], output [N, OH, OW, groups *
// group_output_channels] with OH = (H - 1) * stride - padding_top - padding_bottom +
// dilation * (KH - 1) + 1 + adjustment (the same for W). Each input pixel scatters its
// kernel-sized contribution into the output.
#include <algorithm>
#include <cmath>
#include <memory>
#include <new>

#include "node_context.h"
#include "window.h"

namespace executorch {
namespace backends {
namespace xnnpack {

using runtime::Error;

namespace {

// XNNPACK's resize flags: corners aligned; TensorFlow's legacy (asymmetric) mapping.
constexpr uint32_t kFlagTensorflowLegacyMode = 0x4;
constexpr uint32_t kFlagAlignCorners = 0x8;

class DeconvStep final : public Step {
 public:
  uint32_t in = 0, out = 0;
  const float* filter = nullptr;  // [oc, kh, kw, gic]
  const float* bias = nullptr;
  size_t batch = 0, in_h = 0, in_w = 0, in_c = 0, out_h = 0, out_w = 0,
         out_c = 0;
  size_t kh = 0, kw = 0, sh = 1, sw = 1, dh = 1, dw = 1, pad_top = 0,
         pad_left = 0;
  size_t groups = 1, gic = 0, goc = 0;
  float lo = 0, hi = 0;

  void run(Graph& g) override {
    const float* x = g.data(in);
    float* y = g.data(out);
    for (size_t i = 0; i < batch * out_h * out_w; ++i) {
      for (size_t c = 0; c < out_c; ++c)
        y[i * out_c + c] = bias != nullptr ? bias[c] : 0.0f;
    }
    for (size_t n = 0; n < batch; ++n) {
      for (size_t ih = 0; ih < in_h; ++ih) {
        for (size_t iw = 0; iw < in_w; ++iw) {
          const float* px = x + ((n * in_h + ih) * in_w + iw) * in_c;
          for (size_t r = 0; r < kh; ++r) {
            const int64_t oh = static_cast<int64_t>(ih * sh + r * dh) -
                               static_cast<int64_t>(pad_top);
            if (oh < 0 || oh >= static_cast<int64_t>(out_h))
              continue;
            for (size_t s = 0; s < kw; ++s) {
              const int64_t ow = static_cast<int64_t>(iw * sw + s * dw) -
                                 static_cast<int64_t>(pad_left);
              if (ow < 0 || ow >= static_cast<int64_t>(out_w))
                continue;
              float* acc = y + ((n * out_h + static_cast<size_t>(oh)) * out_w +
                                static_cast<size_t>(ow)) *
                                   out_c;
              for (size_t gi = 0; gi < groups; ++gi) {
                const float* xs = px + gi * gic;
                for (size_t co = 0; co < goc; ++co) {
                  const size_t oc = gi * goc + co;
                  const float* k = filter + ((oc * kh + r) * kw + s) * gic;
                  float sum = 0.0f;
                  for (size_t ci = 0; ci < gic; ++ci)
                    sum += xs[ci] * k[ci];
                  acc[oc] += sum;
                }
              }
            }
          }
        }
      }
    }
    for (size_t i = 0; i < batch * out_h * out_w * out_c; ++i)
      y[i] = clamp_to(y[i], lo, hi);
  }
};

}  // namespace

Error build_conv_transpose2d(NodeContext& ctx) {
  const auto* p = ctx.node()->xnode_union_as_XNNConvTranspose2d();
  ConvIds ids;
  Error err = read_conv_ids(ctx, p, &ids);
  if (err != Error::Ok) {
    return err;
  }
  Graph& g = ctx.graph();
  const auto& di = g.value(ids.in).dims;
  const auto& dout = g.value(ids.out).dims;
  const size_t kh = p->kernel_height(), kw = p->kernel_width();
  const size_t sh = p->subsampling_height(), sw = p->subsampling_width();
  const size_t dh = p->dilation_height(), dw = p->dilation_width();
  const size_t groups = p->groups(), gic = p->group_input_channels(),
               goc = p->group_output_channels();
  if (di.size() != 4 || dout.size() != 4 || kh == 0 || kw == 0 || sh == 0 ||
      sw == 0 || dh == 0 || dw == 0 || groups == 0 || gic == 0 || goc == 0) {
    return ctx.invalid(
        "needs 4-D NHWC values and positive kernel, stride, dilation and "
        "channels");
  }
  if (groups * gic != di[3] || groups * goc != dout[3] || dout[0] != di[0]) {
    return ctx.invalid(
        "groups %zu x (%zu in, %zu out) channels do not match input %zu / "
        "output %zu",
        groups,
        gic,
        goc,
        di[3],
        dout[3]);
  }
  if (p->adjustment_height() >= sh || p->adjustment_width() >= sw) {
    return ctx.invalid("adjustment must be below the stride");
  }
  // All terms are below 2^32: 64-bit arithmetic cannot overflow.
  const int64_t full_h = static_cast<int64_t>(
      (di[1] - 1) * uint64_t{sh} + uint64_t{dh} * (kh - 1) + 1 +
      p->adjustment_height());
  const int64_t full_w = static_cast<int64_t>(
      (di[2] - 1) * uint64_t{sw} + uint64_t{dw} * (kw - 1) + 1 +
      p->adjustment_width());
  const int64_t oh = full_h - p->padding_top() - p->padding_bottom();
  const int64_t ow = full_w - p->padding_left() - p->padding_right();
  if (di[1] == 0 || di[2] == 0 || oh <= 0 || ow <= 0 ||
      dout[1] != static_cast<size_t>(oh) ||
      dout[2] != static_cast<size_t>(ow)) {
    return ctx.invalid(
        "output [.., %zu, %zu, ..] is not the transposed convolution's %lld x "
        "%lld",
        dout[1],
        dout[2],
        static_cast<long long>(oh),
        static_cast<long long>(ow));
  }
  const Value& filter = g.value(ids.filter);
  if (filter.dims != std::vector<size_t>{groups * goc, kh, kw, gic}) {
    return ctx.invalid(
        "filter must be [%zu, %zu, %zu, %zu]", groups * goc, kh, kw, gic);
  }
  if (ids.bias != kInvalidValueId && g.value(ids.bias).numel != dout[3]) {
    return ctx.invalid(
        "bias has %zu elements, the output %zu channels",
        g.value(ids.bias).numel,
        dout[3]);
  }
  auto step = std::make_unique<DeconvStep>();
  step->in = ids.in;
  step->out = ids.out;
  step->filter = filter.data;
  step->bias = ids.bias != kInvalidValueId ? g.value(ids.bias).data : nullptr;
  step->batch = di[0];
  step->in_h = di[1];
  step->in_w = di[2];
  step->in_c = di[3];
  step->out_h = dout[1];
  step->out_w = dout[2];
  step->out_c = dout[3];
  step->kh = kh;
  step->kw = kw;
  step->sh = sh;
  step->sw = sw;
  step->dh = dh;
  step->dw = dw;
  step->pad_top = p->padding_top();
  step->pad_left = p->padding_left();
  step->groups = groups;
  step->gic = gic;
  step->goc = goc;
  step->lo = ctx.output_min();
  step->hi = ctx.output_max();
  return ctx.accept(std::move(step));
}

namespace {

// One output coordinate's two source indices and the weight of the second.
struct Tap {
  size_t i0 = 0, i1 = 0;
  float frac = 0;
};

// One tap per output row or column, planned at init. Allocated without throwing: the
// counts come from the payload (new_height, new_width).
struct Taps {
  std::unique_ptr<Tap[]> taps;
  size_t count = 0;
  const Tap* begin() const {
    return taps.get();
  }
  const Tap* end() const {
    return taps.get() + count;
  }
};

class ResizeStep final : public Step {
 public:
  uint32_t in = 0, out = 0;
  size_t batch = 0, in_h = 0, in_w = 0, channels = 0;
  Taps rows, cols;  // none for an empty output

  void run(Graph& g) override {
    const float* x = g.data(in);
    float* y = g.data(out);
    for (size_t n = 0; n < batch; ++n) {
      const float* image = x + n * in_h * in_w * channels;
      for (const Tap& r : rows) {
        for (const Tap& c : cols) {
          const float* p00 = image + (r.i0 * in_w + c.i0) * channels;
          const float* p01 = image + (r.i0 * in_w + c.i1) * channels;
          const float* p10 = image + (r.i1 * in_w + c.i0) * channels;
          const float* p11 = image + (r.i1 * in_w + c.i1) * channels;
          for (size_t k = 0; k < channels; ++k) {
            const float top = p00[k] + (p01[k] - p00[k]) * c.frac;
            const float bottom = p10[k] + (p11[k] - p10[k]) * c.frac;
            *y++ = top + (bottom - top) * r.frac;
          }
        }
      }
    }
  }
};

// False when there is no memory for `out` taps.
bool plan_taps(size_t in, size_t out, uint32_t flags, Taps* result) {
  result->taps.reset(new (std::nothrow) Tap[out]);
  if (result->taps == nullptr) {
    return false;
  }
  result->count = out;
  Tap* taps = result->taps.get();
  const bool align = (flags & kFlagAlignCorners) != 0;
  const bool legacy = (flags & kFlagTensorflowLegacyMode) != 0;
  const float scale =
      align
          ? (out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                     : 0.0f)
          : static_cast<float>(in) / static_cast<float>(out);
  for (size_t o = 0; o < out; ++o) {
    float src = align || legacy ? static_cast<float>(o) * scale
                                : (static_cast<float>(o) + 0.5f) * scale - 0.5f;
    src = std::max(src, 0.0f);
    const size_t i0 = std::min(static_cast<size_t>(src), in - 1);
    taps[o] = Tap{i0, std::min(i0 + 1, in - 1), src - static_cast<float>(i0)};
  }
  return true;
}

}  // namespace

Error build_resize_bilinear(NodeContext& ctx) {
  const auto* p = ctx.node()->xnode_union_as_XNNStaticResizeBilinear2D();
  auto step = std::make_unique<ResizeStep>();
  Error err = ctx.input(p->input_id(), "input_id", &step->in);
  if (err == Error::Ok)
    err = ctx.output(p->output_id(), "output_id", &step->out);
  if (err == Error::Ok)
    err = check_flags(
        ctx, p->flags(), kFlagAlignCorners | kFlagTensorflowLegacyMode);
  if (err != Error::Ok) {
    return err;
  }
  if ((p->flags() & kFlagAlignCorners) &&
      (p->flags() & kFlagTensorflowLegacyMode)) {
    return ctx.invalid(
        "align-corners and TensorFlow legacy mode exclude each other");
  }
  const auto& di = ctx.graph().value(step->in).dims;
  const auto& dout = ctx.graph().value(step->out).dims;
  if (di.size() != 4 ||
      dout !=
          std::vector<size_t>{di[0], p->new_height(), p->new_width(), di[3]} ||
      di[1] == 0 || di[2] == 0) {
    return ctx.invalid(
        "needs a non-empty 4-D NHWC input and an [N, %u, %u, C] output",
        p->new_height(),
        p->new_width());
  }
  step->batch = di[0];
  step->in_h = di[1];
  step->in_w = di[2];
  step->channels = di[3];
  // An empty output (no images or no channels) reads nothing: its rows and columns, however
  // many, need no plan.
  if (ctx.graph().value(step->out).numel != 0) {
    if (!plan_taps(di[1], dout[1], p->flags(), &step->rows) ||
        !plan_taps(di[2], dout[2], p->flags(), &step->cols)) {
      return ctx.out_of_memory(
          "the resize plan", (dout[1] + dout[2]) * sizeof(Tap));
    }
  }
  return ctx.accept(std::move(step));
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
