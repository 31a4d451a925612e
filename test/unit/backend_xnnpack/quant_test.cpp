// Quantized datatypes: static per-tensor activations with per-channel weights and bias,
// dynamic per-row (qdint8) activations with 4-bit blockwise (qbint4) and channelwise (qcint4)
// weights, each against a reference written out here in double precision from the
// quantization formulas; and inconsistent quantization parameters refused at init.
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/runtime/core/exec_aten/exec_aten.h>

#include "../common/log_capture.h"
#include "xnn_test_util.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using xnn_test::Delegate;
using xnn_test::GraphWriter;
namespace fb = xnn_test::fb;
using T = fb::XNodeUnion;
using DT = fb::XNNDatatype;

namespace {

std::vector<float> ramp(size_t n, float step, float offset) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = offset + step * static_cast<float>((i * 7) % 23);
  return v;
}

// torch.round semantics (half to even), as the quantize formula uses.
double fake_quant(double x, double scale, int zp, int qmin, int qmax) {
  double q = std::nearbyint(x / scale) + zp;
  q = std::min<double>(std::max<double>(q, qmin), qmax);
  return (q - zp) * scale;
}

// Runs a one-input, one-output graph on x [rows, cols] giving [rows, n].
std::vector<float> run(const GraphWriter& g, std::vector<float> x, int32_t rows, int32_t cols,
                       int32_t n) {
  Delegate d(g.payload());
  EXPECT_EQ(d.init_error, Error::Ok) << test::captured_logs();
  if (d.init_error != Error::Ok)
    return {};
  std::vector<float> y(static_cast<size_t>(rows * n));
  int32_t xs[2] = {rows, cols}, ys[2] = {rows, n};
  TensorImpl xi(ScalarType::Float, 2, xs, x.data()), yi(ScalarType::Float, 2, ys, y.data());
  EValue ex{Tensor(&xi)}, ey{Tensor(&yi)};
  EXPECT_EQ(d.execute({&ex, &ey}), Error::Ok);
  return y;
}

fb::XNNFullyConnectedT* fully_connected(GraphWriter& g, uint32_t in, uint32_t w, uint32_t b,
                                        uint32_t out) {
  auto* p = new fb::XNNFullyConnectedT();
  p->input1_id = in;
  p->filter_id = w;
  p->bias_id = b;
  p->output_id = out;
  g.node(T::XNNFullyConnected, p);
  return p;
}

// x fp32 -> Convert -> qint8 -> FC(qcint8 weights, qcint32 bias) -> qint8 -> Convert -> fp32.
TEST(XnnpackQuant, StaticPerTensorActivationsPerChannelWeights) {
  const int M = 3, K = 7, N = 5;
  const double sx = 0.05, sy = 0.1;
  const int zx = 3, zy = -2;
  const std::vector<float> x = ramp(M * K, 0.09f, -1.0f);
  std::vector<int8_t> wq(N * K);
  for (int i = 0; i < N * K; ++i)
    wq[i] = static_cast<int8_t>((i * 37) % 255 - 127);
  std::vector<float> sw(N);
  for (int c = 0; c < N; ++c)
    sw[c] = 0.002f * static_cast<float>(c + 1);
  std::vector<int32_t> bq(N);
  for (int c = 0; c < N; ++c)
    bq[c] = (c - 2) * 400;

  GraphWriter g;
  const uint32_t in = g.value({3, 7}, 0);
  const uint32_t xq = g.value({3, 7});
  g.per_tensor(xq, DT::xnn_datatype_qint8, static_cast<float>(sx), zx);
  const uint32_t w = g.value({5, 7});
  g.tensor(w)->constant_buffer_idx = g.add_bytes(wq.data(), wq.size());
  auto* wp = new fb::PerChannelQuantT();
  wp->scale = sw;
  wp->channel_dim = 0;
  g.quantize(w, DT::xnn_datatype_qcint8, fb::XNNQuantParams::PerChannelQuant, wp);
  const uint32_t b = g.value({5});
  g.tensor(b)->constant_buffer_idx = g.add_bytes(bq.data(), bq.size() * 4);
  auto* bp = new fb::PerChannelQuantT();
  for (int c = 0; c < N; ++c)
    bp->scale.push_back(static_cast<float>(sx) * sw[c]);
  g.quantize(b, DT::xnn_datatype_qcint32, fb::XNNQuantParams::PerChannelQuant, bp);
  const uint32_t yq = g.value({3, 5});
  g.per_tensor(yq, DT::xnn_datatype_qint8, static_cast<float>(sy), zy);
  const uint32_t out = g.value({3, 5}, 1, true);
  g.unary(T::XNNConvert, in, xq);
  fully_connected(g, xq, w, b, yq);
  g.unary(T::XNNConvert, yq, out);

  const std::vector<float> got = run(g, x, M, K, N);
  ASSERT_EQ(got.size(), static_cast<size_t>(M * N));
  for (int m = 0; m < M; ++m) {
    for (int n = 0; n < N; ++n) {
      double acc = bq[n] * (sx * sw[n]);
      for (int k = 0; k < K; ++k) {
        acc += fake_quant(x[m * K + k], sx, zx, -128, 127) * (wq[n * K + k] * double{sw[n]});
      }
      const double want = fake_quant(acc, sy, zy, -128, 127);
      // Float accumulation may land on the other side of a rounding boundary: one step.
      EXPECT_NEAR(got[m * N + n], want, sy * 1.001) << m << "," << n;
      EXPECT_NEAR(std::remainder(got[m * N + n] / sy, 1.0), 0.0, 1e-4) << "not on the grid";
    }
  }
}

// 4-bit weights [3, 64]: q in [-8, 7] (*wq), stored as q + 8, two per byte, low nibble first,
// with per-block (group 32) bf16 scales or per-channel float scales (*scales).
uint32_t add_4bit_weights(GraphWriter& g, bool blockwise, int group, std::vector<int>* wq,
                          std::vector<float>* scales) {
  const int K = 64, N = 3;
  wq->assign(N * K, 0);
  for (int i = 0; i < N * K; ++i)
    (*wq)[i] = (i * 5) % 16 - 8;
  std::vector<uint8_t> packed(N * K / 2);
  for (int i = 0; i < N * K; i += 2) {
    packed[i / 2] = static_cast<uint8_t>(((*wq)[i] + 8) | (((*wq)[i + 1] + 8) << 4));
  }
  const int blocks = blockwise ? K / group : 1;
  scales->assign(N * blocks, 0.0f);
  for (size_t i = 0; i < scales->size(); ++i)
    (*scales)[i] = 0.0625f * static_cast<float>(i + 1);
  const uint32_t w = g.value({3, 64});
  g.tensor(w)->constant_buffer_idx = g.add_bytes(packed.data(), packed.size());
  if (blockwise) {
    // bf16 scales (these values are exact in bf16).
    std::vector<uint16_t> bf16(scales->size());
    for (size_t i = 0; i < scales->size(); ++i) {
      uint32_t bits;
      std::memcpy(&bits, &(*scales)[i], 4);
      bf16[i] = static_cast<uint16_t>(bits >> 16);
    }
    auto* p = new fb::PerChannelGroupQuantT();
    p->channel_dim = 0;
    p->group_size = group;
    p->scale_buffer_idx = g.add_bytes(bf16.data(), bf16.size() * 2);
    p->num_scales = static_cast<uint32_t>(bf16.size());
    g.quantize(w, DT::xnn_datatype_qbint4, fb::XNNQuantParams::PerChannelGroupQuant, p);
  } else {
    auto* p = new fb::PerChannelQuantT();
    p->channel_dim = 0;
    p->scale = *scales;
    g.quantize(w, DT::xnn_datatype_qcint4, fb::XNNQuantParams::PerChannelQuant, p);
  }
  return w;
}

// A [2, 64] qdint8 value quantized per row.
uint32_t dynamic_rows(GraphWriter& g) {
  const uint32_t xq = g.value({2, 64});
  auto* dq = new fb::PerTokenDynamicQuantT();
  dq->num_nonbatch_dims = 1;
  g.quantize(xq, DT::xnn_datatype_qdint8, fb::XNNQuantParams::PerTokenDynamicQuant, dq);
  return xq;
}

// x fp32 -> Convert -> qdint8 (per row) -> FC(4-bit weights) -> fp32.
void check_dynamic_4bit(bool blockwise) {
  const int M = 2, K = 64, N = 3, group = 32;
  const std::vector<float> x = ramp(M * K, 0.13f, -1.4f);
  const int blocks = blockwise ? K / group : 1;
  std::vector<int> wq;
  std::vector<float> scales;

  GraphWriter g;
  const uint32_t in = g.value({2, 64}, 0);
  const uint32_t xq = dynamic_rows(g);
  const uint32_t w = add_4bit_weights(g, blockwise, group, &wq, &scales);
  const uint32_t out = g.value({2, 3}, 1, true);
  g.unary(T::XNNConvert, in, xq);
  fully_connected(g, xq, w, xnn_test::kNone, out);

  const std::vector<float> got = run(g, x, M, K, N);
  ASSERT_EQ(got.size(), static_cast<size_t>(M * N));
  for (int m = 0; m < M; ++m) {
    double lo = 0, hi = 0;
    for (int k = 0; k < K; ++k) {
      lo = std::min<double>(lo, x[m * K + k]);
      hi = std::max<double>(hi, x[m * K + k]);
    }
    const double scale = (hi - lo) / 255.0;
    const int zp = static_cast<int>(std::nearbyint(-128 - lo / scale));
    for (int n = 0; n < N; ++n) {
      double acc = 0;
      for (int k = 0; k < K; ++k) {
        const double s = scales[n * blocks + (blockwise ? k / group : 0)];
        acc += fake_quant(x[m * K + k], scale, zp, -128, 127) * wq[n * K + k] * s;
      }
      EXPECT_NEAR(got[m * N + n], acc, 1e-4 * (1 + std::fabs(acc))) << m << "," << n;
    }
  }
}

TEST(XnnpackQuant, DynamicRowsBlockwise4BitWeights) {
  check_dynamic_4bit(true);
}

TEST(XnnpackQuant, DynamicRowsChannelwise4BitWeights) {
  check_dynamic_4bit(false);
}

// One qbint4 weight read by an integer product (qdint8 input) and by a float one (fp32 input):
// the decoded floats the second one reads must stay (only weights no node reads as floats are
// freed at init).
TEST(XnnpackQuant, Blockwise4BitWeightsSharedByIntegerAndFloatProducts) {
  const int M = 2, K = 64, N = 3;
  const std::vector<float> x = ramp(M * K, 0.13f, -1.4f);
  std::vector<int> wq;
  std::vector<float> scales;
  GraphWriter g;
  const uint32_t in = g.value({2, 64}, 0);
  const uint32_t xq = dynamic_rows(g);
  const uint32_t w = add_4bit_weights(g, true, 32, &wq, &scales);
  const uint32_t out_int = g.value({2, 3}, 1, true), out_float = g.value({2, 3}, 2, true);
  g.unary(T::XNNConvert, in, xq);
  fully_connected(g, xq, w, xnn_test::kNone, out_int);
  fully_connected(g, in, w, xnn_test::kNone, out_float);

  Delegate d(g.payload());
  ASSERT_EQ(d.init_error, Error::Ok) << test::captured_logs();
  std::vector<float> xs = x, y_int(M * N, 0.0f), y_float(M * N, 0.0f);
  int32_t x_sizes[2] = {M, K}, y_sizes[2] = {M, N};
  TensorImpl xi(ScalarType::Float, 2, x_sizes, xs.data());
  TensorImpl yi(ScalarType::Float, 2, y_sizes, y_int.data());
  TensorImpl yf(ScalarType::Float, 2, y_sizes, y_float.data());
  EValue ex{Tensor(&xi)}, eyi{Tensor(&yi)}, eyf{Tensor(&yf)};
  ASSERT_EQ(d.execute({&ex, &eyi, &eyf}), Error::Ok);
  for (int m = 0; m < M; ++m) {
    for (int n = 0; n < N; ++n) {
      double acc = 0;
      for (int k = 0; k < K; ++k)
        acc += double{x[m * K + k]} * wq[n * K + k] * scales[n * 2 + k / 32];
      EXPECT_NEAR(y_float[m * N + n], acc, 1e-4 * (1 + std::fabs(acc))) << m << "," << n;
      // The integer product differs by the activations' quantization only.
      EXPECT_NEAR(y_int[m * N + n], acc, 0.05 * (1 + std::fabs(acc))) << m << "," << n;
    }
  }
}

// Inconsistent or unsupported quantization parameters are refused at init, named.
void expect_refused(const GraphWriter& g, Error want, const char* message) {
  test::clear_captured_logs();
  Delegate d(g.payload());
  EXPECT_EQ(d.init_error, want) << test::captured_logs();
  EXPECT_NE(test::captured_logs().find(message), std::string::npos) << test::captured_logs();
}

GraphWriter convert_graph(DT dtype, float scale, int32_t zero_point) {
  GraphWriter g;
  const uint32_t in = g.value({2, 3}, 0), q = g.value({2, 3}), out = g.value({2, 3}, 1, true);
  g.per_tensor(q, dtype, scale, zero_point);
  g.unary(T::XNNConvert, in, q);
  g.unary(T::XNNConvert, q, out);
  return g;
}

TEST(XnnpackQuant, ConvertRoundTripRoundsOntoTheGrid) {
  const GraphWriter g = convert_graph(DT::xnn_datatype_quint8, 0.25f, 10);
  const std::vector<float> x = {-3.0f, -2.5f, 0.124f, 0.125f, 0.375f, 70.0f};
  const std::vector<float> got = run(g, x, 2, 3, 3);
  // q = clamp(round(x / 0.25) + 10, 0, 255): -2, 0 (ties to even), 10, 10 (0.5 -> 0), 12, 290.
  EXPECT_EQ(got, (std::vector<float>{-2.5f, -2.5f, 0.0f, 0.0f, 0.5f, 61.25f}));
}

// fp32 -> Convert -> qint8 -> Clamp -> qint8 (the same grid) -> Convert -> fp32: the int8
// programs' ReLU6. The Clamp clamps to its bounds' grid points instead of rounding after
// clamping; the values must be the formula's, ties and bounds off the grid included.
TEST(XnnpackQuant, ClampBetweenEqualGridsGivesTheRoundedClamp) {
  const float scale = 0.4f, lo = -1.0f, hi = 2.1f;
  const int32_t zp = 3;
  GraphWriter g;
  const uint32_t in = g.value({2, 4}, 0), xq = g.value({2, 4}), yq = g.value({2, 4}),
                 out = g.value({2, 4}, 1, true);
  g.per_tensor(xq, DT::xnn_datatype_qint8, scale, zp);
  g.per_tensor(yq, DT::xnn_datatype_qint8, scale, zp);
  g.unary(T::XNNConvert, in, xq);
  GraphWriter::clamp(g.unary(T::XNNClamp, xq, yq), lo, hi);
  g.unary(T::XNNConvert, yq, out);
  // Around both bounds (-1.0 is a tie on the grid: -2.5 steps), inside, and past the grid.
  const std::vector<float> x = {-1.1f, -1.0f, -0.9f, 0.5f, 2.0f, 2.1f, 2.3f, 80.0f};
  const std::vector<float> got = run(g, x, 2, 4, 4);
  ASSERT_EQ(got.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double q = fake_quant(x[i], scale, zp, -128, 127);
    const double want =
        fake_quant(std::min<double>(std::max<double>(q, lo), hi), scale, zp, -128, 127);
    EXPECT_FLOAT_EQ(got[i], static_cast<float>(want)) << "x = " << x[i];
  }
}

TEST(XnnpackQuant, BadParametersAreRefused) {
  expect_refused(convert_graph(DT::xnn_datatype_qint8, 0.0f, 0), Error::InvalidProgram,
                 "per-tensor scale 0");
  expect_refused(convert_graph(DT::xnn_datatype_qint8, 0.5f, 200), Error::InvalidProgram,
                 "zero point 200");
  expect_refused(convert_graph(DT::xnn_datatype_qint32, 0.5f, 0), Error::NotSupported,
                 "qint32 activations");
  expect_refused(convert_graph(DT::xnn_datatype_fp16, 0.5f, 0), Error::NotSupported,
                 "xnn_datatype_fp16");
  {
    // Per-channel weights with the wrong number of scales.
    GraphWriter g;
    const uint32_t in = g.value({2, 4}, 0), out = g.value({2, 3}, 1, true);
    const std::vector<int8_t> wq(12, 1);
    const uint32_t w = g.value({3, 4});
    g.tensor(w)->constant_buffer_idx = g.add_bytes(wq.data(), wq.size());
    auto* p = new fb::PerChannelQuantT();
    p->scale = {0.5f, 0.5f};
    g.quantize(w, DT::xnn_datatype_qcint8, fb::XNNQuantParams::PerChannelQuant, p);
    fully_connected(g, in, w, xnn_test::kNone, out);
    expect_refused(g, Error::InvalidProgram, "has 2 scales, the shape needs 3");
  }
  {
    // 4-bit weights whose bytes do not cover the rows (3 x 5 needs 3 x 3 bytes).
    GraphWriter g;
    const uint32_t in = g.value({2, 5}, 0), out = g.value({2, 3}, 1, true);
    const std::vector<uint8_t> packed(8, 0x88);
    const uint32_t w = g.value({3, 5});
    g.tensor(w)->constant_buffer_idx = g.add_bytes(packed.data(), packed.size());
    auto* p = new fb::PerChannelQuantT();
    p->scale = {0.5f, 0.5f, 0.5f};
    g.quantize(w, DT::xnn_datatype_qcint4, fb::XNNQuantParams::PerChannelQuant, p);
    fully_connected(g, in, w, xnn_test::kNone, out);
    expect_refused(g, Error::InvalidProgram, "holds 8 bytes, its shape needs 9");
  }
}

}  // namespace
