// MaxPooling2d, AvgPooling2d and GlobalAvgPooling2d over NHWC values.
#include <algorithm>
#include <limits>
#include <memory>

#include <executorch/runtime/kernels/compute/parallel.h>

#include "node_context.h"
#include "window.h"

namespace executorch {
namespace backends {
namespace xnnpack {

using runtime::Error;

namespace {

// XNNPACK's flag: keep reduced dims as size 1 (the exporter sets it; 4-D shapes are checked
// either way).
constexpr uint32_t kFlagKeepDims = 0x40;

class PoolStep final : public Step {
 public:
  uint32_t in = 0, out = 0;
  Window w;
  bool max = true;
  float lo = 0, hi = 0;

  void run(Graph& g) override {
    const float* x = g.data(in);
    float* y = g.data(out);
    const size_t c_count = w.in_c;
    // Output rows are independent: split them across the thread pool (the same bits).
    const double row_work =
        static_cast<double>(w.out_w * w.kh * w.kw * c_count);
    kernels::compute::parallel_items(
        static_cast<int64_t>(w.batch * w.out_h),
        row_work,
        [&](int64_t begin, int64_t end) { run_rows(x, y, begin, end); });
  }

 private:
  // Output rows [begin, end) over the batch (row = n * out_h + oh).
  void run_rows(const float* x, float* y, int64_t begin, int64_t end) const {
    const size_t c_count = w.in_c;
    for (int64_t row = begin; row < end; ++row) {
      const size_t n = static_cast<size_t>(row) / w.out_h;
      const size_t oh = static_cast<size_t>(row) % w.out_h;
      const float* image = x + n * w.in_h * w.in_w * c_count;
      for (size_t ow = 0; ow < w.out_w; ++ow) {
        float* acc = y + ((n * w.out_h + oh) * w.out_w + ow) * c_count;
        std::fill(
            acc,
            acc + c_count,
            max ? -std::numeric_limits<float>::infinity() : 0.0f);
        size_t count = 0;
        for (size_t r = 0; r < w.kh; ++r) {
          for (size_t s = 0; s < w.kw; ++s) {
            const float* px = window_pixel(
                w, image, window_row(w, oh, r), window_col(w, ow, s));
            if (px == nullptr)
              continue;
            ++count;
            if (max) {
              for (size_t c = 0; c < c_count; ++c)
                acc[c] = std::max(acc[c], px[c]);
            } else {
              for (size_t c = 0; c < c_count; ++c)
                acc[c] += px[c];
            }
          }
        }
        // Average pooling divides by the elements inside the input (padding not counted).
        const float scale =
            (!max && count > 0) ? 1.0f / static_cast<float>(count) : 1.0f;
        for (size_t c = 0; c < c_count; ++c) {
          acc[c] = clamp_to(acc[c] * scale, lo, hi);
        }
      }
    }
  }
};

}  // namespace

Error build_pooling(NodeContext& ctx) {
  const bool max =
      ctx.node()->xnode_union_type() == fb::XNodeUnion::XNNMaxPooling2d;
  const auto* p =
      static_cast<const fb::_XNNPooling2D*>(ctx.node()->xnode_union());
  auto step = std::make_unique<PoolStep>();
  Error err = ctx.input(p->input_id(), "input_id", &step->in);
  if (err == Error::Ok)
    err = ctx.output(p->output_id(), "output_id", &step->out);
  if (err == Error::Ok)
    err = check_flags(ctx, p->flags(), kFlagKeepDims);
  if (err != Error::Ok) {
    return err;
  }
  Graph& g = ctx.graph();
  // Average pooling has no dilation (the exporter writes 0 there).
  err = check_window(
      ctx,
      g.value(step->in),
      g.value(step->out),
      p->pooling_height(),
      p->pooling_width(),
      p->stride_height(),
      p->stride_width(),
      max ? p->dilation_height() : 1,
      max ? p->dilation_width() : 1,
      p->padding_top(),
      p->padding_right(),
      p->padding_bottom(),
      p->padding_left(),
      &step->w);
  if (err != Error::Ok) {
    return err;
  }
  if (step->w.out_c != step->w.in_c) {
    return ctx.invalid(
        "output channels %zu differ from input channels %zu",
        step->w.out_c,
        step->w.in_c);
  }
  step->max = max;
  step->lo = ctx.output_min();
  step->hi = ctx.output_max();
  return ctx.accept(std::move(step));
}

namespace {

class GlobalAvgStep final : public Step {
 public:
  uint32_t in = 0, out = 0;
  size_t batch = 0, pixels = 0, channels = 0;
  float lo = 0, hi = 0;
  void run(Graph& g) override {
    const float* x = g.data(in);
    float* y = g.data(out);
    const float scale = pixels > 0 ? 1.0f / static_cast<float>(pixels) : 0.0f;
    for (size_t n = 0; n < batch; ++n) {
      float* acc = y + n * channels;
      std::fill(acc, acc + channels, 0.0f);
      for (size_t p = 0; p < pixels; ++p) {
        const float* px = x + (n * pixels + p) * channels;
        for (size_t c = 0; c < channels; ++c)
          acc[c] += px[c];
      }
      for (size_t c = 0; c < channels; ++c) {
        acc[c] = clamp_to(acc[c] * scale, lo, hi);
      }
    }
  }
};

}  // namespace

Error build_global_avg_pooling(NodeContext& ctx) {
  const auto* p =
      static_cast<const fb::_XNNNode1x1*>(ctx.node()->xnode_union());
  auto step = std::make_unique<GlobalAvgStep>();
  Error err = ctx.input(p->input_id(), "input_id", &step->in);
  if (err == Error::Ok)
    err = ctx.output(p->output_id(), "output_id", &step->out);
  if (err == Error::Ok)
    err = check_flags(ctx, p->flags(), kFlagKeepDims);
  if (err != Error::Ok) {
    return err;
  }
  const auto& in = ctx.graph().value(step->in).dims;
  const auto& out = ctx.graph().value(step->out).dims;
  // [N, H, W, C] -> [N, 1, 1, C] (keep dims) or [N, C].
  const bool keep = (p->flags() & kFlagKeepDims) != 0;
  const bool shape_ok =
      in.size() == 4 && (keep ? out == std::vector<size_t>{in[0], 1, 1, in[3]}
                              : out == std::vector<size_t>{in[0], in[3]});
  if (!shape_ok) {
    return ctx.invalid(
        "needs a 4-D NHWC input and an [N, 1, 1, C] (or [N, C]) output");
  }
  step->batch = in[0];
  step->pixels = in[1] * in[2];
  step->channels = in[3];
  step->lo = ctx.output_min();
  step->hi = ctx.output_max();
  return ctx.accept(std::move(step));
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
