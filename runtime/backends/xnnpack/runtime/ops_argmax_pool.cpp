// ArgMaxPooling2d over NHWC values: the maximum of each pooling window and where in the window
// it is. Upstream's exporter writes it for max.dim (keepdim, over H or W of a 4-D tensor,
// backends/xnnpack/operators/op_max_dim.py) with a window spanning that whole dim.
//
// Semantics follow XNNPACK's argmax pooling: the stride equals the window size, output size
// (padded input - window) / window + 1, a padded position reads the nearest input pixel
// (XNNPACK's pooling indirection clamps to the border), and the index is the position in the
// window counted column-major (window column * pooling_height + window row), the first
// position holding the maximum. The indices are floats inside the graph; an external index
// output is written to the caller's int64 (or int32) tensor (float_formats.h).
#include <algorithm>
#include <memory>

#include "node_context.h"

namespace executorch {
namespace backends {
namespace xnnpack {

using runtime::Error;

namespace {

// Ranks and window sizes beyond this are corrupt payloads, not models.
constexpr uint32_t kMaxWindow = 1u << 16;

class ArgMaxPoolStep final : public Step {
 public:
  uint32_t in = 0, out_value = 0, out_index = 0;
  size_t batch = 0, in_h = 0, in_w = 0, channels = 0, out_h = 0, out_w = 0;
  size_t pool_h = 0, pool_w = 0, pad_top = 0, pad_left = 0;

  void run(Graph& g) override {
    const float* x = g.data(in);
    float* values = g.data(out_value);
    float* indices = g.data(out_index);
    for (size_t n = 0; n < batch; ++n) {
      for (size_t oh = 0; oh < out_h; ++oh) {
        for (size_t ow = 0; ow < out_w; ++ow) {
          const size_t o = ((n * out_h + oh) * out_w + ow) * channels;
          for (size_t c = 0; c < channels; ++c) {
            float best = 0.0f;
            size_t best_k = 0;
            // Window positions in XNNPACK's order (column-major): the first maximum wins.
            for (size_t s = 0; s < pool_w; ++s) {
              const size_t ix = input_col(ow, s);
              for (size_t r = 0; r < pool_h; ++r) {
                const size_t iy = input_row(oh, r);
                const float v = x[((n * in_h + iy) * in_w + ix) * channels + c];
                const size_t k = s * pool_h + r;
                if (k == 0 || v > best) {
                  best = v;
                  best_k = k;
                }
              }
            }
            values[o + c] = best;
            indices[o + c] = static_cast<float>(best_k);
          }
        }
      }
    }
  }

 private:
  // The input row of window row r at output row oh, padding clamped to the border.
  size_t input_row(size_t oh, size_t r) const {
    const size_t y = oh * pool_h + r;
    return std::min(y > pad_top ? y - pad_top : 0, in_h - 1);
  }
  size_t input_col(size_t ow, size_t s) const {
    const size_t x = ow * pool_w + s;
    return std::min(x > pad_left ? x - pad_left : 0, in_w - 1);
  }
};

}  // namespace

Error build_argmax_pooling(NodeContext& ctx) {
  const auto* p = ctx.node()->xnode_union_as_XNNArgMaxPooling2d();
  auto step = std::make_unique<ArgMaxPoolStep>();
  Error err = ctx.input(p->input_id(), "input_id", &step->in);
  if (err == Error::Ok)
    err = ctx.output(p->output_value_id(), "output_value_id", &step->out_value);
  if (err == Error::Ok)
    err = ctx.output(p->output_index_id(), "output_index_id", &step->out_index);
  if (err == Error::Ok)
    err = check_flags(ctx, p->flags(), 0);
  if (err != Error::Ok) {
    return err;
  }
  Graph& g = ctx.graph();
  const auto& din = g.value(step->in).dims;
  const auto& dval = g.value(step->out_value).dims;
  if (din.size() != 4) {
    return ctx.invalid("needs a 4-D NHWC input, got rank %zu", din.size());
  }
  const uint32_t ph = p->pooling_height(), pw = p->pooling_width();
  if (ph == 0 || pw == 0 || ph > kMaxWindow || pw > kMaxWindow || ph * pw < 2) {
    return ctx.invalid(
        "pooling window %ux%u must be at least 2 elements (each side 1..%u)",
        ph,
        pw,
        kMaxWindow);
  }
  if (p->padding_top() > kMaxWindow || p->padding_bottom() > kMaxWindow ||
      p->padding_left() > kMaxWindow || p->padding_right() > kMaxWindow) {
    return ctx.invalid("padding exceeds %u", kMaxWindow);
  }
  const size_t padded_h = din[1] + p->padding_top() + p->padding_bottom();
  const size_t padded_w = din[2] + p->padding_left() + p->padding_right();
  if (din[1] == 0 || din[2] == 0 || padded_h < ph || padded_w < pw) {
    return ctx.invalid(
        "input %zux%zu (padded %zux%zu) is smaller than the window %ux%u",
        din[1],
        din[2],
        padded_h,
        padded_w,
        ph,
        pw);
  }
  const std::vector<size_t> want = {
      din[0], (padded_h - ph) / ph + 1, (padded_w - pw) / pw + 1, din[3]};
  if (dval != want || g.value(step->out_index).dims != want) {
    return ctx.invalid(
        "values and indices must both be [%zu, %zu, %zu, %zu]",
        want[0],
        want[1],
        want[2],
        want[3]);
  }
  Value& index = g.values[step->out_index];
  if (index.quant.kind != Quant::Kind::kNone) {
    return ctx.invalid("output_index_id %u is quantized", step->out_index);
  }
  // Whatever float datatype the payload gave it, the value holds integers (no rounding step)
  // and an external index output is an int64/int32 tensor.
  index.format = FloatFormat::kIndex;
  step->batch = din[0];
  step->in_h = din[1];
  step->in_w = din[2];
  step->channels = din[3];
  step->out_h = want[1];
  step->out_w = want[2];
  step->pool_h = ph;
  step->pool_w = pw;
  step->pad_top = p->padding_top();
  step->pad_left = p->padding_left();
  return ctx.accept(std::move(step));
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
