// An activation (swish as Sigmoid + Multiply, Hardswish) whose input only a convolution writes
// and only it reads runs inside the convolution (fuse_activations): the answers are bit for
// bit those of the steps run apart, and a convolution output with a second reader keeps its
// own step for the activation.
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

// A 5x6 image of 19 channels (vector tails everywhere), 3x3 windows with padding 1.
constexpr uint32_t kH = 5, kW = 6, kC = 19;
constexpr uint32_t kN = kH * kW * kC;

std::vector<float> wave(size_t n, uint32_t seed, float amplitude) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = std::sin(static_cast<float>(i * 13 + seed) * 0.37f) * amplitude;
  return v;
}

enum class Producer { kConv, kDepthwise };
enum class Activation { kSwish, kSwishGateFirst, kHardswish };
// kApart: the convolution's output is also an external output, so the activation stays a
// step of its own; kSecondReader: an Add reads it too.
enum class Shape { kFused, kApart, kSecondReader };

struct Result {
  std::vector<float> y;
  std::vector<float> t;  // the convolution's output (kApart only)
  size_t steps = 0;
};

Result run_graph(Producer producer, Activation activation, Shape shape, bool clamp) {
  GraphWriter g;
  const std::vector<uint32_t> dims{1, kH, kW, kC};
  const uint32_t x = g.value(dims, 0);
  const uint32_t t = shape == Shape::kApart ? g.value(dims, 2, true) : g.value(dims);
  const uint32_t y = g.value(dims, 1, true);
  auto* p = new fb::_XNNNodeConvT();
  p->padding_top = p->padding_bottom = p->padding_left = p->padding_right = 1;
  p->kernel_height = p->kernel_width = 3;
  p->subsampling_height = p->subsampling_width = 1;
  p->dilation_height = p->dilation_width = 1;
  p->input1_id = x;
  p->output_id = t;
  // Outputs of a few units either side of 0, so both ends of each activation are reached.
  if (producer == Producer::kConv) {
    p->groups = 1;
    p->group_input_channels = kC;
    p->group_output_channels = kC;
    p->filter_id = g.constant({kC, 3, 3, kC}, wave(kC * 9 * kC, 3, 0.4f));
  } else {
    p->groups = kC;
    p->group_input_channels = 1;
    p->group_output_channels = 1;
    p->filter_id = g.constant({1, 3, 3, kC}, wave(9 * kC, 3, 1.5f));
  }
  p->bias_id = g.constant({kC}, wave(kC, 4, 1.0f));
  auto* node = g.node(producer == Producer::kConv ? T::XNNConv2d : T::XNNDepthwiseConv2d, p);
  if (clamp)
    GraphWriter::clamp(node, -2.0f, 3.5f);
  uint32_t act_out = y;
  if (shape == Shape::kSecondReader)
    act_out = g.value(dims);
  if (activation == Activation::kHardswish) {
    g.unary(T::XNNHardswish, t, act_out);
  } else {
    const uint32_t s = g.value(dims);
    g.unary(T::XNNSigmoid, t, s);
    if (activation == Activation::kSwishGateFirst)
      g.binary(T::XNNMultiply, s, t, act_out);
    else
      g.binary(T::XNNMultiply, t, s, act_out);
  }
  if (shape == Shape::kSecondReader)
    g.binary(T::XNNAdd, act_out, t, y);

  Delegate d(g.payload());
  EXPECT_EQ(d.init_error, Error::Ok);
  if (d.init_error != Error::Ok)
    return {};
  Result r;
  r.steps = static_cast<const Graph*>(d.handle)->steps.size();
  const int outputs = shape == Shape::kApart ? 2 : 1;
  std::vector<OwnedTensor> owned;
  owned.reserve(1 + outputs);
  const std::vector<int32_t> sizes{1, kH, kW, kC};
  owned.emplace_back(ScalarType::Float, sizes);
  const std::vector<float> xs = wave(kN, 1, 2.0f);
  owned.back().set_logical(reinterpret_cast<const uint8_t*>(xs.data()));
  for (int i = 0; i < outputs; ++i)
    owned.emplace_back(ScalarType::Float, sizes);
  std::vector<EValue> evs;
  evs.reserve(owned.size());
  for (auto& o : owned)
    evs.emplace_back(o.tensor());
  std::vector<EValue*> args;
  for (auto& e : evs)
    args.push_back(&e);
  EXPECT_EQ(d.execute(args), Error::Ok);
  const float* py = owned[1].tensor().const_data_ptr<float>();
  r.y.assign(py, py + kN);
  if (outputs == 2) {
    const float* pt = owned[2].tensor().const_data_ptr<float>();
    r.t.assign(pt, pt + kN);
  }
  return r;
}

TEST(XnnpackConvActivation, RunsInsideTheConvolutionBitForBit) {
  for (Producer producer : {Producer::kConv, Producer::kDepthwise}) {
    for (Activation activation :
         {Activation::kSwish, Activation::kSwishGateFirst, Activation::kHardswish}) {
      for (bool clamp : {false, true}) {
        SCOPED_TRACE(testing::Message()
                     << "producer " << static_cast<int>(producer) << " activation "
                     << static_cast<int>(activation) << " clamp " << clamp);
        const Result apart = run_graph(producer, activation, Shape::kApart, clamp);
        const Result fused = run_graph(producer, activation, Shape::kFused, clamp);
        EXPECT_EQ(apart.steps, 2u);
        EXPECT_EQ(fused.steps, 1u);
        ASSERT_EQ(fused.y.size(), kN);
        EXPECT_TRUE(bit_equal(fused.y, apart.y));
        // And it is the activation of the convolution's output, in double.
        ASSERT_EQ(apart.t.size(), kN);
        for (uint32_t i = 0; i < kN; ++i) {
          const double t = apart.t[i];
          const double want = activation == Activation::kHardswish
                                  ? t * std::min(std::max(t + 3.0, 0.0), 6.0) / 6.0
                                  : t / (1.0 + std::exp(-t));
          ASSERT_NEAR(fused.y[i], want, 1e-6 * (1.0 + std::fabs(want))) << i;
        }
      }
    }
  }
}

TEST(XnnpackConvActivation, ASecondReaderKeepsTheActivationApart) {
  for (Activation activation : {Activation::kSwish, Activation::kHardswish}) {
    const Result r = run_graph(Producer::kConv, activation, Shape::kSecondReader, false);
    // Convolution, activation, Add.
    EXPECT_EQ(r.steps, 3u);
    ASSERT_EQ(r.y.size(), kN);
  }
}

}  // namespace
