// Each node type XnnpackBackend runs, on odd shapes, against the portable kernel that computes
// the same thing on the same data (called through the registry as a Method would). The graph
// is NHWC where the payload is; the references get NCHW copies.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/extension/threadpool/threadpool.h>

#include "../kernels_elementwise/kernel_test_util.h"
#include "../common/split_every_loop.h"
#include "xnn_test_util.h"

using executorch::aten::ScalarType;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using kernel_test::call_op;
using kernel_test::IntList;
using kernel_test::OwnedTensor;
using kernel_test::TList;
using xnn_test::Delegate;
using xnn_test::GraphWriter;
using xnn_test::kNone;
namespace fb = xnn_test::fb;
using T = fb::XNodeUnion;

namespace {

using Shape = std::vector<uint32_t>;

size_t numel(const Shape& s) {
  size_t n = 1;
  for (uint32_t d : s)
    n *= d;
  return n;
}

// Deterministic values in [-2, 2) (a different stream per seed).
std::vector<float> values(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t x = seed * 2654435761u + 12345u;
  for (auto& e : v) {
    x = x * 1664525u + 1013904223u;
    e = static_cast<float>(x >> 8) / static_cast<float>(1u << 24) * 4.0f - 2.0f;
  }
  return v;
}

std::vector<int32_t> to_sizes(const Shape& s) {
  return std::vector<int32_t>(s.begin(), s.end());
}

OwnedTensor tensor(const Shape& shape, const std::vector<float>& data) {
  OwnedTensor t(ScalarType::Float, to_sizes(shape));
  t.set_logical(reinterpret_cast<const uint8_t*>(data.data()));
  return t;
}

std::vector<float> contents(const OwnedTensor& t) {
  std::vector<uint8_t> b = kernel_test::logical_bytes(t.tensor());
  std::vector<float> v(b.size() / sizeof(float));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

// Converts data between [N, C, H, W] and [N, H, W, C] (shape given as NCHW).
std::vector<float> relayout(const std::vector<float>& from, const Shape& nchw, bool to_nhwc) {
  const uint32_t N = nchw[0], C = nchw[1], H = nchw[2], W = nchw[3];
  std::vector<float> to(from.size());
  for (uint32_t n = 0; n < N; ++n)
    for (uint32_t c = 0; c < C; ++c)
      for (uint32_t h = 0; h < H; ++h)
        for (uint32_t w = 0; w < W; ++w) {
          const size_t nhwc = ((n * H + h) * W + w) * C + c,
                       nchw_at = ((n * C + c) * H + h) * W + w;
          (to_nhwc ? to[nhwc] : to[nchw_at]) = to_nhwc ? from[nchw_at] : from[nhwc];
        }
  return to;
}
std::vector<float> nchw_to_nhwc(const std::vector<float>& x, const Shape& nchw) {
  return relayout(x, nchw, true);
}
std::vector<float> nhwc_to_nchw(const std::vector<float>& y, const Shape& nchw) {
  return relayout(y, nchw, false);
}

// Runs the graph: external inputs 0..k-1 get `inputs`, external k is the output.
std::vector<float> run(const GraphWriter& g,
                       const std::vector<std::pair<Shape, std::vector<float>>>& inputs,
                       const Shape& out_shape) {
  Delegate d(g.payload());
  EXPECT_EQ(d.init_error, Error::Ok);
  if (d.init_error != Error::Ok)
    return {};
  std::vector<OwnedTensor> owned;
  owned.reserve(inputs.size() + 1);
  for (const auto& in : inputs)
    owned.push_back(tensor(in.first, in.second));
  owned.emplace_back(ScalarType::Float, to_sizes(out_shape));
  std::vector<EValue> evs;
  evs.reserve(owned.size());
  for (auto& t : owned)
    evs.emplace_back(t.tensor());
  std::vector<EValue*> args;
  for (auto& e : evs)
    args.push_back(&e);
  EXPECT_EQ(d.execute(args), Error::Ok);
  return contents(owned.back());
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-4f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * (1.0f + std::fabs(want[i]))) << "element " << i;
  }
}

void clamp_all(std::vector<float>& v, float lo, float hi) {
  for (auto& e : v)
    e = std::min(std::max(e, lo), hi);
}

// ---- FullyConnected ----------------------------------------------------------------------------

void check_fully_connected(const Shape& in_shape, uint32_t n, bool transposed, bool bias) {
  const uint32_t k = in_shape.back();
  const auto x = values(numel(in_shape), 1), w = values(n * k, 2), b = values(n, 3);
  // Reference: linear(x, w[n, k], b).
  OwnedTensor tx = tensor(in_shape, x), tw = tensor({n, k}, w), tb = tensor({n}, b);
  Shape out_shape = in_shape;
  out_shape.back() = n;
  OwnedTensor tout(ScalarType::Float, to_sizes(out_shape));
  EValue ex(tx.tensor()), ew(tw.tensor()), eb(tb.tensor()), none, eo(tout.tensor());
  ASSERT_EQ(call_op("aten::linear.out", {&ex, &ew, bias ? &eb : &none, &eo, &eo}), Error::Ok);

  GraphWriter g;
  const uint32_t in = g.value(in_shape, 0);
  std::vector<float> wt(w.size());
  for (uint32_t r = 0; r < n; ++r)
    for (uint32_t c = 0; c < k; ++c)
      wt[c * n + r] = w[r * k + c];
  const uint32_t filter = transposed ? g.constant({k, n}, wt) : g.constant({n, k}, w);
  const uint32_t bias_id = bias ? g.constant({n}, b) : kNone;
  const uint32_t out = g.value(out_shape, 1, true);
  auto* p = new fb::XNNFullyConnectedT();
  p->input1_id = in;
  p->filter_id = filter;
  p->bias_id = bias_id;
  p->output_id = out;
  p->flags = transposed ? 1 : 0;
  g.node(T::XNNFullyConnected, p);
  expect_near(run(g, {{in_shape, x}}, out_shape), contents(tout));
}

// The bias enters the GEMM as its C (beta 1) and output_min/max clamp afterwards: against a
// plain loop, with a size that takes SGEMM's tiled path and odd edges.
TEST(XnnpackNodes, FullyConnectedBiasAndClamp) {
  const uint32_t m = 37, k = 67, n = 45;
  const auto x = values(m * k, 4), w = values(n * k, 5), b = values(n, 6);
  for (const bool clamp : {false, true}) {
    SCOPED_TRACE(clamp ? "clamped" : "not clamped");
    const float lo = clamp ? -1.5f : -INFINITY, hi = clamp ? 2.0f : INFINITY;
    std::vector<float> want(m * n);
    for (uint32_t r = 0; r < m; ++r)
      for (uint32_t c = 0; c < n; ++c) {
        double acc = b[c];
        for (uint32_t i = 0; i < k; ++i)
          acc += static_cast<double>(x[r * k + i]) * w[c * k + i];
        want[r * n + c] = std::min(std::max(static_cast<float>(acc), lo), hi);
      }
    GraphWriter g;
    const uint32_t in = g.value({m, k}, 0), filter = g.constant({n, k}, w),
                   bias = g.constant({n}, b), out = g.value({m, n}, 1, true);
    auto* p = new fb::XNNFullyConnectedT();
    p->input1_id = in;
    p->filter_id = filter;
    p->bias_id = bias;
    p->output_id = out;
    auto* node = g.node(T::XNNFullyConnected, p);
    if (clamp)
      GraphWriter::clamp(node, lo, hi);
    expect_near(run(g, {{{m, k}, x}}, {m, n}), want, 1e-5f);
  }
}

TEST(XnnpackNodes, FullyConnected) {
  check_fully_connected({3, 7}, 5, false, true);
  check_fully_connected({2, 3, 7}, 5, false, false);
  check_fully_connected({1, 33}, 17, true, true);
  // Large enough for sgemm's tiled path, which reads the constant filter's prepacked panels.
  check_fully_connected({37, 67}, 45, false, true);
  check_fully_connected({2, 19, 67}, 45, true, false);
}

// ---- Convolutions ------------------------------------------------------------------------------

struct ConvCase {
  Shape in;  // NCHW
  uint32_t oc, kh, kw, sh, sw, ph, pw, dh, dw, groups;
};

std::vector<float> reference_conv(const ConvCase& c, const std::vector<float>& x,
                                  const std::vector<float>& w, const std::vector<float>& b,
                                  Shape* out_shape) {
  const uint32_t oh = (c.in[2] + 2 * c.ph - c.dh * (c.kh - 1) - 1) / c.sh + 1;
  const uint32_t ow = (c.in[3] + 2 * c.pw - c.dw * (c.kw - 1) - 1) / c.sw + 1;
  *out_shape = {c.in[0], c.oc, oh, ow};
  OwnedTensor tx = tensor(c.in, x), tw = tensor({c.oc, c.in[1] / c.groups, c.kh, c.kw}, w),
              tb = tensor({c.oc}, b), tout(ScalarType::Float, to_sizes(*out_shape));
  EValue ex(tx.tensor()), ew(tw.tensor()), eb(tb.tensor()), tr(false),
      g(static_cast<int64_t>(c.groups)), eo(tout.tensor());
  IntList s({c.sh, c.sw}), p({c.ph, c.pw}), d({c.dh, c.dw}), op({0, 0});
  EXPECT_EQ(call_op("aten::convolution.out",
                    {&ex, &ew, &eb, &s.ev, &p.ev, &d.ev, &tr, &op.ev, &g, &eo, &eo}),
            Error::Ok);
  return contents(tout);
}

fb::_XNNNodeConvT* conv_params(const ConvCase& c) {
  auto* p = new fb::_XNNNodeConvT();
  p->padding_top = p->padding_bottom = c.ph;
  p->padding_left = p->padding_right = c.pw;
  p->kernel_height = c.kh;
  p->kernel_width = c.kw;
  p->subsampling_height = c.sh;
  p->subsampling_width = c.sw;
  p->dilation_height = c.dh;
  p->dilation_width = c.dw;
  p->groups = c.groups;
  return p;
}

void check_conv(const ConvCase& c, float lo = -INFINITY, float hi = INFINITY) {
  const uint32_t icg = c.in[1] / c.groups, ocg = c.oc / c.groups;
  const auto x = values(numel(c.in), 4), w = values(c.oc * icg * c.kh * c.kw, 5),
             b = values(c.oc, 6);
  Shape ref_shape;
  std::vector<float> want = reference_conv(c, x, w, b, &ref_shape);
  clamp_all(want, lo, hi);
  // Filter [oc, kh, kw, icg] (OHWI).
  std::vector<float> filter(w.size());
  for (uint32_t o = 0; o < c.oc; ++o)
    for (uint32_t i = 0; i < icg; ++i)
      for (uint32_t r = 0; r < c.kh; ++r)
        for (uint32_t s = 0; s < c.kw; ++s)
          filter[((o * c.kh + r) * c.kw + s) * icg + i] = w[((o * icg + i) * c.kh + r) * c.kw + s];
  GraphWriter g;
  const Shape in_nhwc{c.in[0], c.in[2], c.in[3], c.in[1]};
  const Shape out_nhwc{ref_shape[0], ref_shape[2], ref_shape[3], ref_shape[1]};
  const uint32_t in = g.value(in_nhwc, 0);
  const uint32_t f = g.constant({c.oc, c.kh, c.kw, icg}, filter);
  const uint32_t bias = g.constant({c.oc}, b);
  const uint32_t out = g.value(out_nhwc, 1, true);
  auto* p = conv_params(c);
  p->group_input_channels = icg;
  p->group_output_channels = ocg;
  p->input1_id = in;
  p->filter_id = f;
  p->bias_id = bias;
  p->output_id = out;
  auto* node = g.node(T::XNNConv2d, p);
  if (lo != -INFINITY || hi != INFINITY)
    GraphWriter::clamp(node, lo, hi);
  const auto got = run(g, {{in_nhwc, nchw_to_nhwc(x, c.in)}}, out_nhwc);
  expect_near(nhwc_to_nchw(got, ref_shape), want);
}

TEST(XnnpackNodes, Conv2d) {
  check_conv({{2, 3, 7, 6}, 4, 3, 2, 2, 1, 1, 0, 1, 2, 1});
  check_conv({{1, 6, 5, 5}, 9, 3, 3, 1, 1, 1, 1, 1, 1, 3});        // grouped
  check_conv({{1, 4, 3, 5}, 3, 1, 1, 1, 1, 0, 0, 1, 1, 1}, 0, 6);  // 1x1 direct path, ReLU6
}

TEST(XnnpackNodes, DepthwiseConv2d) {
  for (uint32_t multiplier : {1u, 2u}) {
    const ConvCase c{{1, 5, 7, 6}, 5 * multiplier, 3, 3, 2, 2, 1, 1, 1, 1, 5};
    const auto x = values(numel(c.in), 7), w = values(c.oc * c.kh * c.kw, 8), b = values(c.oc, 9);
    Shape ref_shape;
    const std::vector<float> want = reference_conv(c, x, w, b, &ref_shape);
    // Filter [1, kh, kw, oc].
    std::vector<float> filter(w.size());
    for (uint32_t o = 0; o < c.oc; ++o)
      for (uint32_t r = 0; r < c.kh * c.kw; ++r)
        filter[r * c.oc + o] = w[o * c.kh * c.kw + r];
    GraphWriter g;
    const Shape in_nhwc{1, 7, 6, 5};
    const Shape out_nhwc{1, ref_shape[2], ref_shape[3], c.oc};
    const uint32_t in = g.value(in_nhwc, 0);
    const uint32_t f = g.constant({1, c.kh, c.kw, c.oc}, filter);
    const uint32_t bias = g.constant({c.oc}, b);
    const uint32_t out = g.value(out_nhwc, 1, true);
    auto* p = conv_params(c);
    p->group_input_channels = 1;
    p->group_output_channels = multiplier;
    p->input1_id = in;
    p->filter_id = f;
    p->bias_id = bias;
    p->output_id = out;
    g.node(T::XNNDepthwiseConv2d, p);
    const auto got = run(g, {{in_nhwc, nchw_to_nhwc(x, c.in)}}, out_nhwc);
    expect_near(nhwc_to_nchw(got, ref_shape), want);
  }
}

TEST(XnnpackNodes, ConvTranspose2d) {
  // [1, 4, 5, 3] NCHW, groups 2 (2 in / 3 out channels each), kernel 3x2, stride 2x3,
  // padding 1x0, dilation 1x1, output padding 1x2.
  const Shape in{1, 4, 5, 3};
  const uint32_t groups = 2, gic = 2, goc = 3, oc = groups * goc, kh = 3, kw = 2;
  const auto x = values(numel(in), 30), w = values(in[1] * goc * kh * kw, 31), b = values(oc, 32);
  const uint32_t oh = (5 - 1) * 2 - 2 + (kh - 1) + 1 + 1, ow = (3 - 1) * 3 - 0 + (kw - 1) + 1 + 2;
  const Shape out{1, oc, oh, ow};
  OwnedTensor tx = tensor(in, x), tw = tensor({in[1], goc, kh, kw}, w), tb = tensor({oc}, b),
              tout(ScalarType::Float, to_sizes(out));
  EValue ex(tx.tensor()), ew(tw.tensor()), eb(tb.tensor()), tr(true),
      eg(static_cast<int64_t>(groups)), eo(tout.tensor());
  IntList s({2, 3}), p({1, 0}), d({1, 1}), op({1, 2});
  ASSERT_EQ(call_op("aten::convolution.out",
                    {&ex, &ew, &eb, &s.ev, &p.ev, &d.ev, &tr, &op.ev, &eg, &eo, &eo}),
            Error::Ok);
  // Filter [oc, kh, kw, gic] from torch's [ic, goc, kh, kw].
  std::vector<float> filter(w.size());
  for (uint32_t g = 0; g < groups; ++g)
    for (uint32_t co = 0; co < goc; ++co)
      for (uint32_t ci = 0; ci < gic; ++ci)
        for (uint32_t r = 0; r < kh; ++r)
          for (uint32_t c = 0; c < kw; ++c)
            filter[(((g * goc + co) * kh + r) * kw + c) * gic + ci] =
                w[(((g * gic + ci) * goc + co) * kh + r) * kw + c];
  GraphWriter gw;
  const Shape in_nhwc{1, 5, 3, 4}, out_nhwc{1, oh, ow, oc};
  const uint32_t vin = gw.value(in_nhwc, 0);
  const uint32_t vf = gw.constant({oc, kh, kw, gic}, filter);
  const uint32_t vb = gw.constant({oc}, b);
  const uint32_t vout = gw.value(out_nhwc, 1, true);
  auto* pp = new fb::_XNNNodeConvT();
  pp->padding_top = pp->padding_bottom = 1;
  pp->kernel_height = kh;
  pp->kernel_width = kw;
  pp->subsampling_height = 2;
  pp->subsampling_width = 3;
  pp->dilation_height = pp->dilation_width = 1;
  pp->adjustment_height = 1;
  pp->adjustment_width = 2;
  pp->groups = groups;
  pp->group_input_channels = gic;
  pp->group_output_channels = goc;
  pp->input1_id = vin;
  pp->filter_id = vf;
  pp->bias_id = vb;
  pp->output_id = vout;
  gw.node(T::XNNConvTranspose2d, pp);
  expect_near(nhwc_to_nchw(run(gw, {{in_nhwc, nchw_to_nhwc(x, in)}}, out_nhwc), out),
              contents(tout));
}

// Bilinear resize against the mapping written out: half-pixel centres (PyTorch's
// align_corners=False) or aligned corners.
TEST(XnnpackNodes, StaticResizeBilinear2D) {
  for (bool align : {false, true}) {
    const uint32_t H = 3, W = 4, C = 2, OH = 5, OW = 7;
    const auto x = values(H * W * C, 33);
    auto src = [&](uint32_t o, uint32_t in, uint32_t out) {
      double s = align ? o * double(in - 1) / double(out - 1) : (o + 0.5) * double(in) / out - 0.5;
      return std::max(s, 0.0);
    };
    std::vector<float> want;
    for (uint32_t oy = 0; oy < OH; ++oy)
      for (uint32_t ox = 0; ox < OW; ++ox)
        for (uint32_t c = 0; c < C; ++c) {
          const double sy = src(oy, H, OH), sx = src(ox, W, OW);
          const uint32_t y0 = std::min<uint32_t>(uint32_t(sy), H - 1),
                         x0 = std::min<uint32_t>(uint32_t(sx), W - 1);
          const uint32_t y1 = std::min(y0 + 1, H - 1), x1 = std::min(x0 + 1, W - 1);
          const double fy = sy - y0, fx = sx - x0;
          auto at = [&](uint32_t yy, uint32_t xx) { return double(x[(yy * W + xx) * C + c]); };
          const double top = at(y0, x0) + (at(y0, x1) - at(y0, x0)) * fx;
          const double bottom = at(y1, x0) + (at(y1, x1) - at(y1, x0)) * fx;
          want.push_back(static_cast<float>(top + (bottom - top) * fy));
        }
    GraphWriter g;
    const uint32_t vin = g.value({1, H, W, C}, 0), vout = g.value({1, OH, OW, C}, 1, true);
    auto* p = new fb::XNNStaticResizeBilinear2DT();
    p->new_height = OH;
    p->new_width = OW;
    p->input_id = vin;
    p->output_id = vout;
    p->flags = align ? 0x8 : 0;
    g.node(T::XNNStaticResizeBilinear2D, p);
    expect_near(run(g, {{{1, H, W, C}, x}}, {1, OH, OW, C}), want);
  }
}

// ---- Pooling -----------------------------------------------------------------------------------

void check_pool(bool max) {
  const Shape in{2, 3, 5, 7};
  const Shape out{2, 3, 3, 4};  // kernel 3, stride 2, padding 1
  const auto x = values(numel(in), 10);
  OwnedTensor tx = tensor(in, x), tout(ScalarType::Float, to_sizes(out)),
              idx(ScalarType::Long, to_sizes(out));
  EValue ex(tx.tensor()), eo(tout.tensor()), ei(idx.tensor()), ceil(false), include_pad(false),
      none;
  IntList k({3, 3}), s({2, 2}), p({1, 1}), d({1, 1});
  if (max) {
    TList ret({tout.tensor(), idx.tensor()});
    ASSERT_EQ(call_op("aten::max_pool2d_with_indices.out",
                      {&ex, &k.ev, &s.ev, &p.ev, &d.ev, &ceil, &eo, &ei, &ret.ev}),
              Error::Ok);
  } else {
    ASSERT_EQ(call_op("aten::avg_pool2d.out",
                      {&ex, &k.ev, &s.ev, &p.ev, &ceil, &include_pad, &none, &eo, &eo}),
              Error::Ok);
  }
  GraphWriter g;
  const Shape in_nhwc{2, 5, 7, 3}, out_nhwc{2, 3, 4, 3};
  const uint32_t vin = g.value(in_nhwc, 0), vout = g.value(out_nhwc, 1, true);
  auto* pp = new fb::_XNNPooling2DT();
  pp->padding_top = pp->padding_bottom = pp->padding_left = pp->padding_right = 1;
  pp->pooling_height = pp->pooling_width = 3;
  pp->stride_height = pp->stride_width = 2;
  pp->dilation_height = pp->dilation_width = max ? 1 : 0;
  pp->input_id = vin;
  pp->output_id = vout;
  pp->flags = 0x40;
  g.node(max ? T::XNNMaxPooling2d : T::XNNAvgPooling2d, pp);
  expect_near(nhwc_to_nchw(run(g, {{in_nhwc, nchw_to_nhwc(x, in)}}, out_nhwc), out),
              contents(tout));
}

TEST(XnnpackNodes, MaxPooling2d) {
  check_pool(true);
}

TEST(XnnpackNodes, AvgPooling2dExcludesPadding) {
  check_pool(false);
}

TEST(XnnpackNodes, GlobalAvgPooling2d) {
  const Shape in{2, 3, 5, 7};
  const auto x = values(numel(in), 11);
  OwnedTensor tx = tensor(in, x), tout(ScalarType::Float, {2, 3, 1, 1});
  IntList dims({2, 3});
  EValue ex(tx.tensor()), keep(true), none, eo(tout.tensor());
  ASSERT_EQ(call_op("aten::mean.out", {&ex, &dims.ev, &keep, &none, &eo, &eo}), Error::Ok);
  GraphWriter g;
  const uint32_t vin = g.value({2, 5, 7, 3}, 0), vout = g.value({2, 1, 1, 3}, 1, true);
  g.unary(T::XNNGlobalAvgPooling2d, vin, vout)->xnode_union.AsXNNGlobalAvgPooling2d()->flags = 0x40;
  expect_near(run(g, {{{2, 5, 7, 3}, nchw_to_nhwc(x, in)}}, {2, 1, 1, 3}), contents(tout));
}

// ---- Elementwise -------------------------------------------------------------------------------

void check_binary(T type, const char* op, bool alpha, const Shape& a_shape, const Shape& b_shape,
                  const Shape& out_shape, float lo = -INFINITY, float hi = INFINITY) {
  auto a = values(numel(a_shape), 12), b = values(numel(b_shape), 13);
  if (type == T::XNNDiv) {
    for (auto& v : b)
      v = v >= 0 ? v + 0.5f : v - 0.5f;  // away from 0
  }
  OwnedTensor ta = tensor(a_shape, a), tb = tensor(b_shape, b),
              tout(ScalarType::Float, to_sizes(out_shape));
  EValue ea(ta.tensor()), eb(tb.tensor()), one(1.0), eo(tout.tensor());
  std::vector<EValue*> args{&ea, &eb};
  if (alpha)
    args.push_back(&one);
  args.push_back(&eo);
  args.push_back(&eo);
  ASSERT_EQ(call_op(op, args), Error::Ok);
  std::vector<float> want = contents(tout);
  clamp_all(want, lo, hi);
  GraphWriter g;
  const uint32_t va = g.value(a_shape, 0), vb = g.value(b_shape, 1),
                 vo = g.value(out_shape, 2, true);
  auto* node = g.binary(type, va, vb, vo);
  if (lo != -INFINITY || hi != INFINITY)
    GraphWriter::clamp(node, lo, hi);
  expect_near(run(g, {{a_shape, a}, {b_shape, b}}, out_shape), want);
}

TEST(XnnpackNodes, BinaryBroadcasting) {
  check_binary(T::XNNAdd, "aten::add.out", true, {2, 3, 5}, {3, 1}, {2, 3, 5});
  check_binary(T::XNNAdd, "aten::add.out", true, {3, 1}, {2, 1, 5}, {2, 3, 5}, -0.5f, 0.75f);
  check_binary(T::XNNSubtract, "aten::sub.out", true, {7}, {2, 7}, {2, 7});
  check_binary(T::XNNMultiply, "aten::mul.out", false, {2, 1, 3}, {1, 4, 1}, {2, 4, 3});
  check_binary(T::XNNDiv, "aten::div.out", false, {5, 3}, {5, 3}, {5, 3});
}

TEST(XnnpackNodes, Softmax) {
  const Shape s{3, 2, 7};
  const auto x = values(numel(s), 14);
  OwnedTensor tx = tensor(s, x), tout(ScalarType::Float, to_sizes(s));
  EValue ex(tx.tensor()), dim(static_cast<int64_t>(-1)), h2f(false), eo(tout.tensor());
  ASSERT_EQ(call_op("aten::_softmax.out", {&ex, &dim, &h2f, &eo, &eo}), Error::Ok);
  GraphWriter g;
  const uint32_t vin = g.value(s, 0), vout = g.value(s, 1, true);
  g.unary(T::XNNSoftmax, vin, vout);
  expect_near(run(g, {{s, x}}, s), contents(tout));
}

// Rows longer than the softmax's reduction lanes, with odd tails and a wide value range, against
// a plain double-precision softmax.
TEST(XnnpackNodes, SoftmaxWideRows) {
  for (const Shape& s : {Shape{3, 37}, Shape{2, 1, 8}, Shape{1, 197}, Shape{4, 9}, Shape{2, 1}}) {
    SCOPED_TRACE(testing::Message() << "row length " << s.back());
    auto x = values(numel(s), 21);
    for (auto& e : x)
      e *= 20.0f;
    const size_t cols = s.back();
    std::vector<float> want(x.size());
    for (size_t r = 0; r < x.size() / cols; ++r) {
      double max = -INFINITY, sum = 0;
      for (size_t c = 0; c < cols; ++c)
        max = std::max(max, static_cast<double>(x[r * cols + c]));
      for (size_t c = 0; c < cols; ++c)
        sum += std::exp(x[r * cols + c] - max);
      for (size_t c = 0; c < cols; ++c)
        want[r * cols + c] = static_cast<float>(std::exp(x[r * cols + c] - max) / sum);
    }
    GraphWriter g;
    const uint32_t vin = g.value(s, 0), vout = g.value(s, 1, true);
    g.unary(T::XNNSoftmax, vin, vout);
    expect_near(run(g, {{s, x}}, s), want, 1e-6f);
  }
}

// The exact (erf) GELU, against a plain double-precision one.
TEST(XnnpackNodes, Gelu) {
  const Shape s{3, 41};
  auto x = values(numel(s), 22);
  for (auto& e : x)
    e *= 3.0f;
  std::vector<float> want(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    want[i] = static_cast<float>(0.5 * x[i] * (1.0 + std::erf(x[i] / std::sqrt(2.0))));
  GraphWriter g;
  const uint32_t vin = g.value(s, 0), vout = g.value(s, 1, true);
  g.unary(T::XNNGelu, vin, vout);
  expect_near(run(g, {{s, x}}, s), want, 1e-6f);
}

// One unary node against a one-input portable kernel with extra scalar arguments.
void check_unary(const std::function<void(GraphWriter&, uint32_t, uint32_t)>& add_node,
                 const char* op, std::vector<EValue> extra) {
  const Shape s{3, 5, 2};
  const auto x = values(numel(s), 15);
  OwnedTensor tx = tensor(s, x), tout(ScalarType::Float, to_sizes(s));
  EValue ex(tx.tensor()), eo(tout.tensor());
  std::vector<EValue*> args{&ex};
  for (auto& e : extra)
    args.push_back(&e);
  args.push_back(&eo);
  args.push_back(&eo);
  ASSERT_EQ(call_op(op, args), Error::Ok) << op;
  GraphWriter g;
  const uint32_t vin = g.value(s, 0), vout = g.value(s, 1, true);
  add_node(g, vin, vout);
  expect_near(run(g, {{s, x}}, s), contents(tout));
}

TEST(XnnpackNodes, Unary) {
  check_unary([](GraphWriter& g, uint32_t i, uint32_t o) { g.unary(T::XNNAbs, i, o); },
              "aten::abs.out", {});
  check_unary([](GraphWriter& g, uint32_t i, uint32_t o) { g.unary(T::XNNNegate, i, o); },
              "aten::neg.out", {});
  check_unary([](GraphWriter& g, uint32_t i,
                 uint32_t o) { GraphWriter::clamp(g.unary(T::XNNClamp, i, o), -0.5f, 1.25f); },
              "aten::hardtanh.out", {EValue(-0.5), EValue(1.25)});
  check_unary(
      [](GraphWriter& g, uint32_t i, uint32_t o) {
        auto* p = new fb::XNNLeakyReLUT();
        p->negative_slope = 0.125f;
        p->input_id = i;
        p->output_id = o;
        g.node(T::XNNLeakyReLU, p);
      },
      "aten::leaky_relu.out", {EValue(0.125)});
}

// ---- Data movement and BatchMatrixMultiply -----------------------------------------------------

// StaticTranspose of shape s by perm against permute_copy.
void check_transpose(const Shape& s, const std::vector<uint32_t>& perm, uint32_t seed) {
  SCOPED_TRACE(testing::PrintToString(s) + " perm " + testing::PrintToString(perm));
  Shape o;
  for (uint32_t d : perm)
    o.push_back(s[d]);
  const auto x = values(numel(s), seed);
  OwnedTensor tx = tensor(s, x), tout(ScalarType::Float, to_sizes(o));
  IntList dims(std::vector<int64_t>(perm.begin(), perm.end()));
  EValue ex(tx.tensor()), eo(tout.tensor());
  ASSERT_EQ(call_op("aten::permute_copy.out", {&ex, &dims.ev, &eo, &eo}), Error::Ok);
  GraphWriter g;
  const uint32_t vin = g.value(s, 0), vout = g.value(o, 1, true);
  auto* p = new fb::XNNStaticTransposeT();
  p->num_dims = static_cast<uint32_t>(perm.size());
  p->perm = perm;
  p->input_id = vin;
  p->output_id = vout;
  g.node(T::XNNStaticTranspose, p);
  expect_near(run(g, {{s, x}}, o), contents(tout), 0.0f);
}

TEST(XnnpackNodes, StaticTranspose) {
  check_transpose({2, 3, 5}, {2, 0, 1}, 16);
  // NCHW to NHWC: a 3-channel image (the planes interleaved), a batch of them, 4 and 5
  // channels, and an image of one pixel.
  check_transpose({1, 3, 5, 7}, {0, 2, 3, 1}, 21);
  check_transpose({2, 3, 5, 7}, {0, 2, 3, 1}, 22);
  check_transpose({1, 4, 3, 2}, {0, 2, 3, 1}, 23);
  check_transpose({1, 5, 3, 3}, {0, 2, 3, 1}, 24);
  check_transpose({1, 3, 1, 1}, {0, 2, 3, 1}, 25);
  // NHWC back to NCHW, a swap of the two inner dims, unit dims among them.
  check_transpose({1, 5, 7, 3}, {0, 3, 1, 2}, 26);
  check_transpose({2, 3, 4, 5}, {0, 1, 3, 2}, 27);
  check_transpose({1, 6, 1, 4, 1}, {4, 3, 2, 0, 1}, 28);
}

TEST(XnnpackNodes, Concatenate3) {
  const Shape a{2, 3}, b{2, 4}, c{2, 1}, o{2, 8};
  const auto xa = values(6, 17), xb = values(8, 18), xc = values(2, 19);
  OwnedTensor ta = tensor(a, xa), tb = tensor(b, xb), tc = tensor(c, xc),
              tout(ScalarType::Float, to_sizes(o));
  TList list({ta.tensor(), tb.tensor(), tc.tensor()});
  EValue dim(static_cast<int64_t>(1)), eo(tout.tensor());
  ASSERT_EQ(call_op("aten::cat.out", {&list.ev, &dim, &eo, &eo}), Error::Ok);
  GraphWriter g;
  const uint32_t va = g.value(a, 0), vb = g.value(b, 1), vc = g.value(c, 2),
                 vo = g.value(o, 3, true);
  auto* p = new fb::_XNNCatT();
  p->axis = 1;
  p->input1_id = va;
  p->input2_id = vb;
  p->input3_id = vc;
  p->output_id = vo;
  g.node(T::XNNConcatenate3, p);
  expect_near(run(g, {{a, xa}, {b, xb}, {c, xc}}, o), contents(tout));
}

TEST(XnnpackNodes, StaticConstantPad) {
  const Shape s{2, 3, 4}, o{2, 4, 7};
  const auto x = values(numel(s), 20);
  OwnedTensor tx = tensor(s, x), tout(ScalarType::Float, to_sizes(o));
  IntList pad({1, 2, 0, 1});  // last dim (1, 2), middle dim (0, 1)
  EValue ex(tx.tensor()), value(0.5), eo(tout.tensor());
  ASSERT_EQ(call_op("aten::constant_pad_nd.out", {&ex, &pad.ev, &value, &eo, &eo}), Error::Ok);
  GraphWriter g;
  const uint32_t vin = g.value(s, 0), vout = g.value(o, 1, true);
  auto* p = new fb::XNNStaticConstantPadT();
  p->pre_paddings = {0, 0, 1};
  p->post_paddings = {0, 1, 2};
  p->padding_value = 0.5f;
  p->input_id = vin;
  p->output_id = vout;
  g.node(T::XNNStaticConstantPad, p);
  expect_near(run(g, {{s, x}}, o), contents(tout));
}

TEST(XnnpackNodes, StaticSliceAndReshape) {
  // slice [1:3, :, 2:5] of [4, 3, 6], then reshape to [6, 3]; reference: two narrow_copy.
  const Shape s{4, 3, 6}, mid{2, 3, 3}, o{6, 3};
  const auto x = values(numel(s), 21);
  OwnedTensor tx = tensor(s, x), t1(ScalarType::Float, {2, 3, 6}),
              t2(ScalarType::Float, to_sizes(mid));
  EValue ex(tx.tensor()), e1(t1.tensor()), e2(t2.tensor()), d0(static_cast<int64_t>(0)),
      d2(static_cast<int64_t>(2)), s1(static_cast<int64_t>(1)), s2(static_cast<int64_t>(2)),
      l2(static_cast<int64_t>(2)), l3(static_cast<int64_t>(3));
  ASSERT_EQ(call_op("aten::narrow_copy.out", {&ex, &d0, &s1, &l2, &e1, &e1}), Error::Ok);
  ASSERT_EQ(call_op("aten::narrow_copy.out", {&e1, &d2, &s2, &l3, &e2, &e2}), Error::Ok);
  GraphWriter g;
  const uint32_t vin = g.value(s, 0), vmid = g.value(mid), vout = g.value(o, 1, true);
  auto* p = new fb::XNNStaticSliceT();
  p->num_dims = 3;
  p->offsets = {1, 0, 2};
  p->sizes = {2, 3, 3};
  p->input_id = vin;
  p->output_id = vmid;
  g.node(T::XNNStaticSlice, p);
  auto* r = new fb::XNNStaticReshapeT();
  r->num_dims = 2;
  r->new_shape = {6, 3};
  r->input_id = vmid;
  r->output_id = vout;
  g.node(T::XNNStaticReshape, r);
  expect_near(run(g, {{s, x}}, o), contents(t2));
}

TEST(XnnpackNodes, BatchMatrixMultiply) {
  const Shape a{3, 2, 5}, b{3, 5, 7}, o{3, 2, 7};
  const auto xa = values(numel(a), 22), xb = values(numel(b), 23);
  OwnedTensor ta = tensor(a, xa), tb = tensor(b, xb), tout(ScalarType::Float, to_sizes(o));
  EValue ea(ta.tensor()), eb(tb.tensor()), eo(tout.tensor());
  ASSERT_EQ(call_op("aten::bmm.out", {&ea, &eb, &eo, &eo}), Error::Ok);
  GraphWriter g;
  const uint32_t va = g.value(a, 0), vb = g.value(b, 1), vo = g.value(o, 2, true);
  g.binary(T::XNNBatchMatrixMultiply, va, vb, vo);
  expect_near(run(g, {{a, xa}, {b, xb}}, o), contents(tout));
}

// ---- Splits across the thread pool ----------------------------------------------------------
// The elementwise, unary and pooling steps split their outputs across the threads. With every
// split forced (ET_KERNELS_MIN_PARALLEL_WORK=1, read once by the kernel library, set before
// any test runs in this binary) they must still match the portable kernels at 2 and 3 threads,
// and give the 1-thread bits.

::testing::Environment* const kSplitEverything = split_every_loop::install();

class XnnpackSplits : public ::testing::Test {
 protected:
  void TearDown() override {
    EXPECT_TRUE(executorch::extension::threadpool::set_num_threads(0));
  }
};

TEST_F(XnnpackSplits, BinaryUnaryAndPoolingMatchAtAnyThreadCount) {
  for (size_t threads : {1u, 2u, 3u}) {
    SCOPED_TRACE(testing::Message() << threads << " threads");
    ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(threads));
    // One contiguous run; runs with a broadcast operand; a broadcast inner run; a clamp.
    check_binary(T::XNNAdd, "aten::add.out", true, {1, 1037}, {1, 1037}, {1, 1037});
    check_binary(T::XNNAdd, "aten::add.out", true, {3, 7, 13}, {7, 1}, {3, 7, 13}, -0.5f, 0.75f);
    check_binary(T::XNNMultiply, "aten::mul.out", false, {5, 1, 9}, {1, 3, 1}, {5, 3, 9});
    check_unary([](GraphWriter& g, uint32_t i, uint32_t o) { g.unary(T::XNNAbs, i, o); },
                "aten::abs.out", {});
    check_pool(true);
    check_pool(false);
  }
  // The same bits at every thread count.
  const Shape a{3, 7, 13}, b{7, 1};
  const auto xa = values(numel(a), 31), xb = values(numel(b), 32);
  GraphWriter g;
  const uint32_t va = g.value(a, 0), vb = g.value(b, 1), vm = g.value(a), vo = g.value(a, 2, true);
  g.binary(T::XNNMultiply, va, vb, vm);
  g.unary(T::XNNAbs, vm, vo);
  ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(1));
  const std::vector<float> want = run(g, {{a, xa}, {b, xb}}, a);
  for (size_t threads : {2u, 3u}) {
    ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(threads));
    const std::vector<float> got = run(g, {{a, xa}, {b, xb}}, a);
    ASSERT_EQ(got.size(), want.size());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0) << threads;
  }
}

}  // namespace
