// Statically quantized convolutions (int8_conv.h): fp32 -> Convert -> qint8/quint8 -> Conv2d or
// DepthwiseConv2d (qcint8 weights, qcint32 bias) -> 8-bit [-> Clamp onto the same grid] ->
// Convert -> fp32, against a plain integer loop with XNNPACK's fp32 requantization (bit for
// bit) and the float formulas (within one output quantum): 1x1 read in place, K x K with padding,
// stride and dilation, groups, depthwise multipliers, quint8 with zero points, a node clamp, a
// fused Clamp node and a Convert to an fp32 intermediate run inside the convolution.
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/runtime/core/exec_aten/exec_aten.h>

#include "../../../runtime/backends/xnnpack/runtime/graph.h"
#include "../common/log_capture.h"
#include "xnn_test_util.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::backends::xnnpack::Graph;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using xnn_test::Delegate;
using xnn_test::GraphWriter;
namespace fb = xnn_test::fb;
using T = fb::XNodeUnion;
using DT = fb::XNNDatatype;

namespace {

struct Case {
  int32_t n, h, w, ic, oc, kh, kw, stride, pad, dil, groups;
  bool depthwise = false;
  bool quint8 = false;
  float node_lo = -INFINITY, node_hi = INFINITY;  // the convolution's own clamp
  bool clamp_node = false;                        // a Clamp node after it, [0, 6]
  // The Convert to fp32 into an intermediate that an Abs node reads (the output is |y|): the
  // convolution writes the intermediate itself (fuse_converts); with `keep_intermediate` a
  // second Convert reads the convolution's output too (into an external output), which keeps
  // the first one a step of its own.
  bool internal_convert = false, keep_intermediate = false;
  // Powers-of-two scales, the input at 127 everywhere and each filter +127 over the first half of
  // the channels and -127 over the second, but for a last weight that leaves an odd sum of a few
  // accumulator units: half-way between two output steps. A float sum over the channels passes
  // through partial sums beyond 2^24 units and rounds on the way; the integer sum is exact.
  bool cancelling = false;
};

std::vector<uint32_t> dims(std::initializer_list<int32_t> d) {
  std::vector<uint32_t> v;
  for (int32_t x : d)
    v.push_back(static_cast<uint32_t>(x));
  return v;
}

int32_t out_size(int32_t in, int32_t k, const Case& c) {
  return (in + 2 * c.pad - c.dil * (k - 1) - 1) / c.stride + 1;
}

struct Grids {
  float sx, sy;
  int32_t zx, zy, qmin, qmax;
};

Grids grids_of(const Case& c) {
  if (c.cancelling)
    return Grids{1.0f / 16, 1.0f / 512, 0, 0, -128, 127};
  return c.quint8 ? Grids{0.05f, 0.07f, 130, 101, 0, 255} : Grids{0.05f, 0.07f, 3, -9, -128, 127};
}

// q = clamp(round(x / s) + z, qmin, qmax) (half to even).
int32_t quantize(double x, float s, int32_t z, int32_t qmin, int32_t qmax) {
  const double q = std::nearbyint(x / s) + z;
  return static_cast<int32_t>(std::min<double>(std::max<double>(q, qmin), qmax));
}

struct Run {
  std::vector<float> got, exact;
  std::vector<double> real;  // the float formulas, in double
  float quantum;
  size_t steps = 0;  // in the graph the backend built
};

Run run_case(const Case& c) {
  const Grids gr = grids_of(c);
  const int32_t oh = out_size(c.h, c.kh, c), ow = out_size(c.w, c.kw, c);
  const int32_t gic = c.depthwise ? 1 : c.ic / c.groups, goc = c.oc / c.groups;
  const size_t nx = static_cast<size_t>(c.n * c.h * c.w * c.ic);
  const size_t nw = static_cast<size_t>(c.oc * c.kh * c.kw * gic);
  // Inputs on the input grid, so the Convert keeps them and their integers are known exactly;
  // the Convert's own rounding is tested in quant_test.cpp.
  std::vector<int32_t> xq_int(nx);
  std::vector<float> x(nx);
  for (size_t i = 0; i < nx; ++i) {
    xq_int[i] = c.cancelling ? 127 : gr.qmin + static_cast<int32_t>((i * 29) % 256);
    x[i] = static_cast<float>(xq_int[i] - gr.zx) * gr.sx;
  }
  std::vector<int8_t> wq(nw);
  for (size_t i = 0; i < nw; ++i)
    wq[i] = static_cast<int8_t>((i * 53) % 255 - 127);
  std::vector<float> sw(c.oc);
  std::vector<int32_t> bq(c.oc);
  for (int32_t o = 0; o < c.oc; ++o) {
    sw[o] = 0.0011f * static_cast<float>(o % 5 + 1);
    bq[o] = (o % 7 - 3) * 350;
    if (c.cancelling) {
      // 1x1 dense: weights [oc, ic]; the sum is 127 * (2 * o + 1) units.
      for (int32_t i = 0; i < c.ic; ++i)
        wq[static_cast<size_t>(o * c.ic + i)] = static_cast<int8_t>(i < c.ic / 2 ? 127 : -127);
      wq[static_cast<size_t>(o * c.ic + c.ic - 1)] = static_cast<int8_t>(-127 + 2 * o + 1);
      sw[o] = 1.0f / 64;
      bq[o] = 0;
    }
  }
  const DT act = c.quint8 ? DT::xnn_datatype_quint8 : DT::xnn_datatype_qint8;

  GraphWriter g;
  const uint32_t in = g.value(dims({c.n, c.h, c.w, c.ic}), 0);
  const uint32_t xq = g.value(dims({c.n, c.h, c.w, c.ic}));
  g.per_tensor(xq, act, gr.sx, gr.zx);
  const uint32_t w =
      c.depthwise ? g.value(dims({1, c.kh, c.kw, c.oc})) : g.value(dims({c.oc, c.kh, c.kw, gic}));
  g.tensor(w)->constant_buffer_idx = g.add_bytes(wq.data(), wq.size());
  auto* wp = new fb::PerChannelQuantT();
  wp->scale = sw;
  wp->channel_dim = c.depthwise ? 3 : 0;
  g.quantize(w, DT::xnn_datatype_qcint8, fb::XNNQuantParams::PerChannelQuant, wp);
  const uint32_t b = g.value(dims({c.oc}));
  g.tensor(b)->constant_buffer_idx = g.add_bytes(bq.data(), bq.size() * 4);
  auto* bp = new fb::PerChannelQuantT();
  for (int32_t o = 0; o < c.oc; ++o)
    bp->scale.push_back(gr.sx * sw[o]);
  g.quantize(b, DT::xnn_datatype_qcint32, fb::XNNQuantParams::PerChannelQuant, bp);
  const uint32_t yq = g.value(dims({c.n, oh, ow, c.oc}));
  g.per_tensor(yq, act, gr.sy, gr.zy);
  const uint32_t out = g.value(dims({c.n, oh, ow, c.oc}), 1, true);
  g.unary(T::XNNConvert, in, xq);
  auto* p = new fb::_XNNNodeConvT();
  p->padding_top = p->padding_bottom = p->padding_left = p->padding_right = c.pad;
  p->kernel_height = c.kh;
  p->kernel_width = c.kw;
  p->subsampling_height = p->subsampling_width = c.stride;
  p->dilation_height = p->dilation_width = c.dil;
  p->groups = c.depthwise ? c.ic : c.groups;
  p->group_input_channels = gic;
  p->group_output_channels = c.depthwise ? c.oc / c.ic : goc;
  p->input1_id = xq;
  p->filter_id = w;
  p->bias_id = b;
  p->output_id = yq;
  auto* node = g.node(c.depthwise ? T::XNNDepthwiseConv2d : T::XNNConv2d, p);
  if (c.node_lo != -INFINITY || c.node_hi != INFINITY)
    GraphWriter::clamp(node, c.node_lo, c.node_hi);
  if (c.clamp_node) {
    const uint32_t zq = g.value(dims({c.n, oh, ow, c.oc}));
    g.per_tensor(zq, act, gr.sy, gr.zy);
    GraphWriter::clamp(g.unary(T::XNNClamp, yq, zq), 0.0f, 6.0f * gr.sy);
    g.unary(T::XNNConvert, zq, out);
  } else if (c.internal_convert) {
    const uint32_t f = g.value(dims({c.n, oh, ow, c.oc}));
    g.unary(T::XNNConvert, yq, f);
    g.unary(T::XNNAbs, f, out);
    if (c.keep_intermediate)
      g.unary(T::XNNConvert, yq, g.value(dims({c.n, oh, ow, c.oc}), 2, true));
  } else {
    g.unary(T::XNNConvert, yq, out);
  }

  Run r;
  r.quantum = gr.sy;
  Delegate d(g.payload());
  EXPECT_EQ(d.init_error, Error::Ok) << test::captured_logs();
  if (d.init_error != Error::Ok)
    return r;
  r.steps = static_cast<const Graph*>(d.handle)->steps.size();
  const size_t ny = static_cast<size_t>(c.n * oh * ow * c.oc);
  r.got.assign(ny, NAN);
  std::vector<float> intermediate(ny, NAN);
  int32_t xs[4] = {c.n, c.h, c.w, c.ic}, ys[4] = {c.n, oh, ow, c.oc};
  TensorImpl xi(ScalarType::Float, 4, xs, x.data()), yi(ScalarType::Float, 4, ys, r.got.data());
  TensorImpl fi(ScalarType::Float, 4, ys, intermediate.data());
  EValue ex{Tensor(&xi)}, ey{Tensor(&yi)}, ef{Tensor(&fi)};
  if (c.keep_intermediate) {
    EXPECT_EQ(d.execute({&ex, &ey, &ef}), Error::Ok);
  } else {
    EXPECT_EQ(d.execute({&ex, &ey}), Error::Ok);
  }

  // The clamp bounds quantized as XNNPACK does: lrint(bound / scale) + zero point, on the grid.
  float lo = c.node_lo, hi = c.node_hi;
  if (c.clamp_node) {
    lo = std::max(lo, 0.0f);
    hi = std::min(hi, 6.0f * gr.sy);
  }
  auto bound = [&](float v) {
    const float q = v / gr.sy + static_cast<float>(gr.zy);
    return std::nearbyint(
               std::min(std::max(q, static_cast<float>(gr.qmin)), static_cast<float>(gr.qmax))) -
           static_cast<float>(gr.zy);
  };
  const float qlo = bound(lo), qhi = bound(hi);
  for (int32_t bn = 0; bn < c.n; ++bn)
    for (int32_t y = 0; y < oh; ++y)
      for (int32_t xo = 0; xo < ow; ++xo)
        for (int32_t o = 0; o < c.oc; ++o) {
          const int32_t grp = c.depthwise ? o / (c.oc / c.ic) : o / goc;
          int64_t acc = bq[o];
          double real = bq[o] * (double{gr.sx} * sw[o]);
          for (int32_t kr = 0; kr < c.kh; ++kr)
            for (int32_t ks = 0; ks < c.kw; ++ks) {
              const int32_t ih = y * c.stride - c.pad + kr * c.dil;
              const int32_t iw = xo * c.stride - c.pad + ks * c.dil;
              if (ih < 0 || ih >= c.h || iw < 0 || iw >= c.w)
                continue;
              for (int32_t ci = 0; ci < gic; ++ci) {
                const int32_t channel = c.depthwise ? grp : grp * gic + ci;
                const int32_t q = xq_int[((bn * c.h + ih) * c.w + iw) * c.ic + channel] - gr.zx;
                const int32_t wv = c.depthwise ? wq[(kr * c.kw + ks) * c.oc + o]
                                               : wq[((o * c.kh + kr) * c.kw + ks) * gic + ci];
                acc += static_cast<int64_t>(q) * wv;
                real += q * double{gr.sx} * (wv * double{sw[o]});
              }
            }
          const float scale = gr.sx * sw[o] / gr.sy;
          float v = static_cast<float>(acc) * scale;
          v = std::min(std::max(v, qlo), qhi);
          const float exact = std::nearbyint(v) * gr.sy;
          const double clamped = std::min<double>(std::max<double>(real, lo), hi);
          const double on_grid =
              (quantize(clamped, gr.sy, gr.zy, gr.qmin, gr.qmax) - gr.zy) * double{gr.sy};
          r.exact.push_back(c.internal_convert ? std::fabs(exact) : exact);
          r.real.push_back(c.internal_convert ? std::fabs(on_grid) : on_grid);
        }
  return r;
}

void check(const Case& c) {
  const Run r = run_case(c);
  ASSERT_EQ(r.got.size(), r.exact.size());
  int bad = 0;
  for (size_t i = 0; i < r.got.size() && bad < 5; ++i) {
    if (!(r.got[i] == r.exact[i])) {
      ++bad;
      ADD_FAILURE() << "y[" << i << "] = " << r.got[i] << ", the integer loop gives " << r.exact[i];
    }
    if (!(std::fabs(r.got[i] - r.real[i]) <= r.quantum * 1.001)) {
      ++bad;
      ADD_FAILURE() << "y[" << i << "] = " << r.got[i] << ", the float formulas give " << r.real[i];
    }
  }
}

TEST(XnnpackInt8Conv, PointwiseDense) {
  check({1, 5, 4, 20, 24, 1, 1, 1, 0, 1, 1});
  check({2, 3, 3, 7, 17, 1, 1, 1, 0, 1, 1});
}

TEST(XnnpackInt8Conv, ExactWhereAFloatSumWouldRound) {
  Case c{1, 1, 2, 4096, 4, 1, 1, 1, 0, 1, 1};
  c.cancelling = true;
  check(c);
}

TEST(XnnpackInt8Conv, KxKPaddingStrideDilation) {
  check({1, 9, 8, 3, 16, 3, 3, 2, 1, 1, 1});
  check({1, 7, 7, 6, 5, 3, 3, 1, 2, 2, 1});
  check({1, 1, 1, 4, 9, 3, 3, 1, 1, 1, 1});  // a 1x1 image, padding all around
}

TEST(XnnpackInt8Conv, Groups) {
  check({1, 6, 5, 12, 18, 3, 3, 1, 1, 1, 3});
}

TEST(XnnpackInt8Conv, Depthwise) {
  Case c{1, 8, 7, 24, 24, 3, 3, 1, 1, 1, 1};
  c.depthwise = true;
  check(c);
  Case m{1, 6, 6, 5, 10, 3, 3, 2, 1, 1, 1};  // multiplier 2, stride 2
  m.depthwise = true;
  check(m);
}

TEST(XnnpackInt8Conv, Quint8AndNodeClamp) {
  Case c{1, 6, 6, 8, 20, 3, 3, 1, 1, 1, 1};
  c.quint8 = true;
  c.node_lo = 0.0f;
  check(c);
  Case d{1, 5, 5, 16, 16, 3, 3, 1, 1, 1, 1};
  d.depthwise = true;
  d.quint8 = true;
  d.node_lo = -0.2f;
  d.node_hi = 0.9f;
  check(d);
}

TEST(XnnpackInt8Conv, ClampNodeAfterTheConvolution) {
  Case c{1, 6, 5, 8, 20, 1, 1, 1, 0, 1, 1};
  c.clamp_node = true;
  check(c);
  Case d{1, 6, 5, 16, 16, 3, 3, 1, 1, 1, 1};
  d.depthwise = true;
  d.clamp_node = true;
  d.node_lo = 0.1f;  // narrower than the Clamp's lower bound
  check(d);
}

// A Convert from the convolution's grid to an fp32 intermediate runs in the convolution, which
// writes the intermediate itself: one step fewer, the same answers (bit for bit the integer loop,
// and those of the graph that keeps the Convert apart).
TEST(XnnpackInt8Conv, ConvertToAnIntermediateRunsInTheConvolution) {
  for (bool depthwise : {false, true}) {
    SCOPED_TRACE(depthwise ? "depthwise" : "dense");
    Case c = depthwise ? Case{1, 6, 5, 16, 16, 3, 3, 1, 1, 1, 1}
                       : Case{1, 6, 5, 8, 20, 1, 1, 1, 0, 1, 1};
    c.depthwise = depthwise;
    c.internal_convert = true;
    check(c);
    const auto folded = run_case(c);
    c.keep_intermediate = true;
    const auto apart = run_case(c);
    // The input's Convert and its rounding, the convolution, Abs; apart, the two Converts.
    EXPECT_EQ(folded.steps, 4u);
    EXPECT_EQ(apart.steps, 6u);
    EXPECT_TRUE(xnn_test::bit_equal(folded.got, apart.got));
  }
}

}  // namespace

namespace {

// FullyConnected as the 1x1 convolution of its rows: [3, k] x [n, k]^T, bit for bit against the
// integer loop, qint8 in and out with zero points, and a node clamp. The first output is a tie
// of a long cancelling sum (as in ExactWhereAFloatSumWouldRound); the float GEMM happens to get
// it right too, so this checks the integer layer's result, not that it is the one that runs.
TEST(XnnpackInt8Conv, FullyConnected) {
  const int32_t m = 3, k = 65536, n = 5, zx = 0, zy = 2;
  const float sx = 1.0f / 16, sy = 1.0f / 512, lo = -0.2f;
  std::vector<int32_t> xq(m * k);
  std::vector<float> x(m * k);
  for (int32_t i = 0; i < m * k; ++i) {
    xq[i] = i < k ? 127 : static_cast<int32_t>((i * 31) % 256) - 128;
    x[i] = static_cast<float>(xq[i] - zx) * sx;
  }
  std::vector<int8_t> wq(n * k);
  std::vector<float> sw(n, 1.0f / 64);
  std::vector<int32_t> bq(n);
  for (int32_t o = 0; o < n; ++o) {
    bq[o] = o * 40 - 60;
    for (int32_t i = 0; i < k; ++i) {
      // Channel 0: 127 - i % 3 over the first half, the same negated over the second, so
      // that partial sums are odd and beyond 2^24 units even when a float GEMM splits the depth
      // into a few dozen separate sums.
      const int32_t half = i % (k / 2);
      wq[o * k + i] = o == 0 ? static_cast<int8_t>((i < k / 2 ? 1 : -1) * (127 - half % 3))
                             : static_cast<int8_t>((i * 7 + o) % 5 - 2);
    }
  }
  wq[k - 1] += 1;  // the first row's sum in the first channel: 127 units, half-way
  bq[0] = 0;

  GraphWriter g;
  const uint32_t in = g.value(dims({m, k}), 0), xv = g.value(dims({m, k}));
  g.per_tensor(xv, DT::xnn_datatype_qint8, sx, zx);
  const uint32_t w = g.value(dims({n, k}));
  g.tensor(w)->constant_buffer_idx = g.add_bytes(wq.data(), wq.size());
  auto* wp = new fb::PerChannelQuantT();
  wp->scale = sw;
  wp->channel_dim = 0;
  g.quantize(w, DT::xnn_datatype_qcint8, fb::XNNQuantParams::PerChannelQuant, wp);
  const uint32_t b = g.value(dims({n}));
  g.tensor(b)->constant_buffer_idx = g.add_bytes(bq.data(), bq.size() * 4);
  auto* bp = new fb::PerChannelQuantT();
  for (int32_t o = 0; o < n; ++o)
    bp->scale.push_back(sx * sw[o]);
  g.quantize(b, DT::xnn_datatype_qcint32, fb::XNNQuantParams::PerChannelQuant, bp);
  const uint32_t yq = g.value(dims({m, n}));
  g.per_tensor(yq, DT::xnn_datatype_qint8, sy, zy);
  const uint32_t out = g.value(dims({m, n}), 1, true);
  g.unary(T::XNNConvert, in, xv);
  auto* p = new fb::XNNFullyConnectedT();
  p->input1_id = xv;
  p->filter_id = w;
  p->bias_id = b;
  p->output_id = yq;
  GraphWriter::clamp(g.node(T::XNNFullyConnected, p), lo, INFINITY);
  g.unary(T::XNNConvert, yq, out);

  Delegate d(g.payload());
  ASSERT_EQ(d.init_error, Error::Ok) << test::captured_logs();
  std::vector<float> got(m * n, NAN);
  int32_t xs[2] = {m, k}, ys[2] = {m, n};
  TensorImpl xi(ScalarType::Float, 2, xs, x.data()), yi(ScalarType::Float, 2, ys, got.data());
  EValue ex{Tensor(&xi)}, ey{Tensor(&yi)};
  ASSERT_EQ(d.execute({&ex, &ey}), Error::Ok);
  const float qlo = std::nearbyint(lo / sy + static_cast<float>(zy)) - static_cast<float>(zy);
  const float qhi = static_cast<float>(127 - zy);
  for (int32_t r = 0; r < m; ++r) {
    for (int32_t o = 0; o < n; ++o) {
      int64_t acc = bq[o];
      for (int32_t i = 0; i < k; ++i)
        acc += static_cast<int64_t>(xq[r * k + i] - zx) * wq[o * k + i];
      float v = static_cast<float>(acc) * (sx * sw[o] / sy);
      v = std::min(std::max(v, qlo), qhi);
      EXPECT_EQ(got[r * n + o], std::nearbyint(v) * sy) << r << "," << o;
    }
  }
}

}  // namespace
