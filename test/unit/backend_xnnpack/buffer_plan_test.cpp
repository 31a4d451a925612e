// The intermediate values share one arena by liveness (plan_intermediate_buffers): values whose
// lifetimes do not overlap share bytes, values alive at the same time never do, and the answers
// are those of one buffer per value.
#include <cmath>
#include <cstdint>
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
using xnn_test::Delegate;
using xnn_test::GraphWriter;
namespace fb = xnn_test::fb;
using T = fb::XNodeUnion;

namespace {

constexpr uint32_t kN = 64;  // elements per value: 256 bytes, a multiple of the alignment
constexpr size_t kValueBytes = kN * sizeof(float);

std::vector<float> run(Delegate& d, const std::vector<float>& x) {
  OwnedTensor in(ScalarType::Float, {static_cast<int32_t>(kN)});
  in.set_logical(reinterpret_cast<const uint8_t*>(x.data()));
  OwnedTensor out(ScalarType::Float, {static_cast<int32_t>(kN)});
  EValue ein(in.tensor()), eout(out.tensor());
  EXPECT_EQ(d.execute({&ein, &eout}), Error::Ok);
  const float* p = out.tensor().const_data_ptr<float>();
  return std::vector<float>(p, p + kN);
}

std::vector<float> inputs() {
  std::vector<float> x(kN);
  for (uint32_t i = 0; i < kN; ++i)
    x[i] = static_cast<float>(i) / kN - 0.5f;
  return x;
}

const Graph& graph_of(const Delegate& d) {
  return *static_cast<const Graph*>(d.handle);
}

TEST(XnnpackBufferPlan, AChainReusesTheBuffersOfDeadValues) {
  // y = tanh(tanh(tanh(tanh(tanh(x))))): a, b, c, d in between; a and c, b and d never live
  // at the same time, so two buffers hold all four.
  GraphWriter g;
  uint32_t prev = g.value({kN}, 0);
  for (int i = 0; i < 4; ++i) {
    const uint32_t next = g.value({kN});
    g.unary(T::XNNTanh, prev, next);
    prev = next;
  }
  g.unary(T::XNNTanh, prev, g.value({kN}, 1, true));
  Delegate d(g.payload());
  ASSERT_EQ(d.init_error, Error::Ok);
  EXPECT_EQ(graph_of(d).intermediate_bytes_unshared, 4 * kValueBytes);
  EXPECT_EQ(graph_of(d).intermediate_bytes, 2 * kValueBytes);
  const auto x = inputs();
  const auto y = run(d, x);
  for (uint32_t i = 0; i < kN; ++i) {
    float want = x[i];
    for (int k = 0; k < 5; ++k)
      want = std::tanh(want);
    ASSERT_FLOAT_EQ(y[i], want) << i;
  }
}

TEST(XnnpackBufferPlan, ValuesAliveTogetherKeepTheirOwnBuffers) {
  // a = tanh(x), b = -a, c = b * b, y = a + c: a is read last, so a, b and c overlap.
  GraphWriter g;
  const uint32_t x = g.value({kN}, 0);
  const uint32_t a = g.value({kN}), b = g.value({kN}), c = g.value({kN});
  g.unary(T::XNNTanh, x, a);
  g.unary(T::XNNNegate, a, b);
  g.binary(T::XNNMultiply, b, b, c);
  g.binary(T::XNNAdd, a, c, g.value({kN}, 1, true));
  Delegate d(g.payload());
  ASSERT_EQ(d.init_error, Error::Ok);
  EXPECT_EQ(graph_of(d).intermediate_bytes, 3 * kValueBytes);
  EXPECT_EQ(graph_of(d).intermediate_bytes_unshared, 3 * kValueBytes);
  const auto xs = inputs();
  const auto y = run(d, xs);
  for (uint32_t i = 0; i < kN; ++i) {
    const float av = std::tanh(xs[i]);
    ASSERT_FLOAT_EQ(y[i], av + av * av) << i;
  }
}

}  // namespace

namespace {

// Every buffer the graph owns (intermediates in the arena, constants) starts on a 64-byte
// boundary, whatever the sizes before it: the compute core's vector loads then never straddle
// two cache lines.
TEST(XnnpackBufferPlan, OwnedBuffersAreCacheLineAligned) {
  GraphWriter g;
  const uint32_t x = g.value({kN}, 0);
  // Odd sizes before, between and after, so no alignment comes for free.
  const uint32_t c1 = g.constant({3}, {1.0f, 2.0f, 3.0f});
  const uint32_t a = g.value({kN});
  const uint32_t c2 = g.constant({kN}, inputs());
  const uint32_t b = g.value({kN});
  g.unary(T::XNNTanh, x, a);
  g.binary(T::XNNMultiply, a, c2, b);
  g.unary(T::XNNTanh, c1, g.value({3}));
  g.binary(T::XNNAdd, b, a, g.value({kN}, 1, true));
  Delegate d(g.payload());
  ASSERT_EQ(d.init_error, Error::Ok);
  const Graph& graph = graph_of(d);
  for (uint32_t id : {c1, a, c2, b}) {
    ASSERT_NE(graph.value(id).data, nullptr) << id;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(graph.value(id).data) % 64, 0u) << "value " << id;
  }
}

}  // namespace
