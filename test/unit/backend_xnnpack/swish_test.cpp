// A Sigmoid whose only reader is a Multiply with the Sigmoid's own input (swish) runs as one
// x * sigmoid(x) step (fuse_sigmoid_multiply): the answers are bit for bit those of the two
// nodes run apart, and any other pattern is left as two steps.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "../../../runtime/backends/xnnpack/runtime/graph.h"
#include "../kernels_elementwise/kernel_test_util.h"
#include "xnn_test_util.h"

using executorch::aten::ScalarType;
using executorch::backends::xnnpack::Graph;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using kernel_test::OwnedTensor;
using xnn_test::bit_equal;
using xnn_test::Delegate;
using xnn_test::GraphWriter;
namespace fb = xnn_test::fb;
using T = fb::XNodeUnion;

namespace {

constexpr uint32_t kRows = 3, kCols = 37;  // odd sizes: vector tails on every row
constexpr uint32_t kN = kRows * kCols;

const Graph& graph_of(const Delegate& d) {
  return *static_cast<const Graph*>(d.handle);
}

std::vector<float> inputs(uint32_t seed) {
  std::vector<float> x(kN);
  for (uint32_t i = 0; i < kN; ++i)
    x[i] = std::sin(static_cast<float>(i * 7 + seed)) * 12.0f;
  return x;
}

// Runs the delegate on `ins`; returns its `num_outputs` outputs.
std::vector<std::vector<float>> run(Delegate& d, const std::vector<std::vector<float>>& ins,
                                    size_t num_outputs) {
  std::vector<OwnedTensor> owned;
  owned.reserve(ins.size() + num_outputs);
  for (const auto& x : ins) {
    owned.emplace_back(ScalarType::Float, std::vector<int32_t>{kRows, kCols});
    owned.back().set_logical(reinterpret_cast<const uint8_t*>(x.data()));
  }
  for (size_t i = 0; i < num_outputs; ++i)
    owned.emplace_back(ScalarType::Float, std::vector<int32_t>{kRows, kCols});
  std::vector<EValue> evs;
  evs.reserve(owned.size());
  for (auto& t : owned)
    evs.emplace_back(t.tensor());
  std::vector<EValue*> args;
  for (auto& e : evs)
    args.push_back(&e);
  EXPECT_EQ(d.execute(args), Error::Ok);
  std::vector<std::vector<float>> outs;
  for (size_t i = ins.size(); i < owned.size(); ++i) {
    const float* p = owned[i].tensor().const_data_ptr<float>();
    outs.emplace_back(p, p + kN);
  }
  return outs;
}

// y = x * sigmoid(x), the Multiply's operands in either order; with `keep_gate` the Sigmoid's
// output is also an external output, a second reader that must keep the two steps apart.
std::vector<std::vector<float>> swish(bool gate_first, bool keep_gate, size_t* steps) {
  GraphWriter g;
  const uint32_t x = g.value({kRows, kCols}, 0);
  const uint32_t s = keep_gate ? g.value({kRows, kCols}, 2, true) : g.value({kRows, kCols});
  const uint32_t y = g.value({kRows, kCols}, 1, true);
  g.unary(T::XNNSigmoid, x, s);
  if (gate_first)
    g.binary(T::XNNMultiply, s, x, y);
  else
    g.binary(T::XNNMultiply, x, s, y);
  Delegate d(g.payload());
  EXPECT_EQ(d.init_error, Error::Ok);
  if (d.init_error != Error::Ok)
    return {};
  *steps = graph_of(d).steps.size();
  return run(d, {inputs(1)}, keep_gate ? 2 : 1);
}

TEST(XnnpackSwish, RunsAsOneStepBitForBitTheTwoNodes) {
  size_t apart_steps = 0;
  const auto apart = swish(false, true, &apart_steps);
  ASSERT_EQ(apart.size(), 2u);
  EXPECT_EQ(apart_steps, 2u);
  const auto x = inputs(1);
  for (uint32_t i = 0; i < kN; ++i) {
    const double want = x[i] / (1.0 + std::exp(-static_cast<double>(x[i])));
    ASSERT_NEAR(apart[0][i], want, 1e-6 * (1.0 + std::fabs(want))) << i;
  }
  for (bool gate_first : {false, true}) {
    SCOPED_TRACE(gate_first ? "sigmoid(x) * x" : "x * sigmoid(x)");
    size_t steps = 0;
    const auto fused = swish(gate_first, false, &steps);
    ASSERT_EQ(fused.size(), 1u);
    EXPECT_EQ(steps, 1u);
    EXPECT_TRUE(bit_equal(fused[0], apart[0]));
  }
}

TEST(XnnpackSwish, OtherPatternsStayTwoSteps) {
  // sigmoid(x) * z: the other operand is not the Sigmoid's input.
  {
    GraphWriter g;
    const uint32_t x = g.value({kRows, kCols}, 0), z = g.value({kRows, kCols}, 1);
    const uint32_t s = g.value({kRows, kCols}), y = g.value({kRows, kCols}, 2, true);
    g.unary(T::XNNSigmoid, x, s);
    g.binary(T::XNNMultiply, z, s, y);
    Delegate d(g.payload());
    ASSERT_EQ(d.init_error, Error::Ok);
    EXPECT_EQ(graph_of(d).steps.size(), 2u);
    const auto xs = inputs(1), zs = inputs(2);
    const auto out = run(d, {xs, zs}, 1);
    ASSERT_EQ(out.size(), 1u);
    for (uint32_t i = 0; i < kN; ++i)
      ASSERT_NEAR(out[0][i], zs[i] / (1.0 + std::exp(-static_cast<double>(xs[i]))),
                  1e-5 * (1.0 + std::fabs(zs[i])))
          << i;
  }
  // x * sigmoid(x) clamped: the Multiply's output bounds must stay.
  {
    GraphWriter g;
    const uint32_t x = g.value({kRows, kCols}, 0);
    const uint32_t s = g.value({kRows, kCols}), y = g.value({kRows, kCols}, 1, true);
    g.unary(T::XNNSigmoid, x, s);
    GraphWriter::clamp(g.binary(T::XNNMultiply, x, s, y), -0.1f, 2.0f);
    Delegate d(g.payload());
    ASSERT_EQ(d.init_error, Error::Ok);
    EXPECT_EQ(graph_of(d).steps.size(), 2u);
    const auto xs = inputs(1);
    const auto out = run(d, {xs}, 1);
    ASSERT_EQ(out.size(), 1u);
    for (uint32_t i = 0; i < kN; ++i) {
      const double v = xs[i] / (1.0 + std::exp(-static_cast<double>(xs[i])));
      ASSERT_NEAR(out[0][i], std::min(std::max(v, -0.1), 2.0), 1e-5) << i;
    }
  }
  // A Sigmoid read by two Multiplies (x * s twice): neither may drop it.
  {
    GraphWriter g;
    const uint32_t x = g.value({kRows, kCols}, 0);
    const uint32_t s = g.value({kRows, kCols}), y1 = g.value({kRows, kCols}, 1, true),
                   y2 = g.value({kRows, kCols}, 2, true);
    g.unary(T::XNNSigmoid, x, s);
    g.binary(T::XNNMultiply, x, s, y1);
    g.binary(T::XNNMultiply, s, x, y2);
    Delegate d(g.payload());
    ASSERT_EQ(d.init_error, Error::Ok);
    EXPECT_EQ(graph_of(d).steps.size(), 3u);
    const auto out = run(d, {inputs(1)}, 2);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_TRUE(bit_equal(out[0], out[1]));
  }
}

// swish -> Convert to qint8 -> Convert -> fp32 out (the int8 programs' SiLU between two
// quantized convolutions): the swish step writes the quantized value itself (fuse_converts), the
// rounding onto its grid stays a step of its own; with `keep_swish` the swish's output is also an
// external output, which keeps the first Convert apart.
std::vector<float> swish_then_quantized(bool keep_swish, size_t* steps) {
  GraphWriter g;
  const uint32_t x = g.value({kRows, kCols}, 0);
  const uint32_t s = keep_swish ? g.value({kRows, kCols}, 2, true) : g.value({kRows, kCols});
  const uint32_t q = g.value({kRows, kCols});
  g.per_tensor(q, fb::XNNDatatype::xnn_datatype_qint8, 0.05f, -7);
  const uint32_t y = g.value({kRows, kCols}, 1, true);
  const uint32_t gate = g.value({kRows, kCols});
  g.unary(T::XNNSigmoid, x, gate);
  g.binary(T::XNNMultiply, x, gate, s);
  g.unary(T::XNNConvert, s, q);
  g.unary(T::XNNConvert, q, y);
  Delegate d(g.payload());
  EXPECT_EQ(d.init_error, Error::Ok);
  if (d.init_error != Error::Ok)
    return {};
  *steps = graph_of(d).steps.size();
  const auto outs = run(d, {inputs(3)}, keep_swish ? 2 : 1);
  return outs.empty() ? std::vector<float>() : outs[0];
}

TEST(XnnpackSwish, ConvertToAQuantizedValueRunsInTheSwishStep) {
  size_t folded_steps = 0, apart_steps = 0;
  const auto folded = swish_then_quantized(false, &folded_steps);
  const auto apart = swish_then_quantized(true, &apart_steps);
  ASSERT_EQ(folded.size(), kN);
  // swish, the rounding onto the grid, the Convert back; the kept Convert is one more.
  EXPECT_EQ(folded_steps, 3u);
  EXPECT_EQ(apart_steps, 4u);
  EXPECT_TRUE(bit_equal(folded, apart));
  // On the grid: within half a step of swish(x), clamped to [-128, 127] + 7 steps.
  const auto x = inputs(3);
  for (uint32_t i = 0; i < kN; ++i) {
    const double want = x[i] / (1.0 + std::exp(-static_cast<double>(x[i])));
    const double lo = (-128 + 7) * 0.05, hi = (127 + 7) * 0.05;
    const double clamped = std::min(std::max(want, lo), hi);
    ASSERT_NEAR(folded[i], clamped, 0.025 + 1e-6) << i;
    const double steps_from_zero = folded[i] / 0.05;
    ASSERT_NEAR(steps_from_zero, std::nearbyint(steps_from_zero), 1e-3) << i;
  }
}

}  // namespace
