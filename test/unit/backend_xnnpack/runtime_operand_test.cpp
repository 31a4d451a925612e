// Operands that arrive at run time (a graph input used as a FullyConnected filter or bias) are
// checked against what the node reads at every execute: the payload's dims are only upper
// bounds, so a smaller tensor is accepted as an argument and must then be refused by the node,
// naming the field, instead of being read as if it had the bound's size.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../common/log_capture.h"
#include "../kernels_elementwise/kernel_test_util.h"
#include "xnn_test_util.h"

using executorch::aten::ScalarType;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using kernel_test::OwnedTensor;
using xnn_test::Delegate;
using xnn_test::GraphWriter;
namespace fb = xnn_test::fb;
using T = fb::XNodeUnion;

namespace {

constexpr int32_t kRows = 2, kIn = 4, kOut = 8;

// y[2, 8] = x[2, 4] . W + b with W and b graph inputs: W [8, 4] ([4, 8] when `kn`, the
// transposed-weights flag) and b [8]. The refused shapes below are small enough that reading
// them at the bound's size would overrun the tensors' storage (a sanitizer build reports it).
GraphWriter runtime_filter_graph(bool kn) {
  GraphWriter g;
  const uint32_t x = g.value({kRows, kIn}, 0);
  const uint32_t w = kn ? g.value({kIn, kOut}, 1) : g.value({kOut, kIn}, 1);
  const uint32_t b = g.value({kOut}, 2);
  const uint32_t y = g.value({kRows, kOut}, 3, true);
  auto* p = new fb::XNNFullyConnectedT();
  p->input1_id = x;
  p->filter_id = w;
  p->bias_id = b;
  p->output_id = y;
  p->flags = kn ? 1u : 0u;
  g.node(T::XNNFullyConnected, p);
  return g;
}

struct Args {
  OwnedTensor x, w, b, y;
  Args(std::vector<int32_t> w_shape, std::vector<int32_t> b_shape)
      : x(ScalarType::Float, {kRows, kIn}),
        w(ScalarType::Float, std::move(w_shape)),
        b(ScalarType::Float, std::move(b_shape)),
        y(ScalarType::Float, {kRows, kOut}, {}, /*dynamic=*/true) {}
  Error run(Delegate& d) {
    EValue ex(x.tensor()), ew(w.tensor()), eb(b.tensor()), ey(y.tensor());
    return d.execute({&ex, &ew, &eb, &ey});
  }
};

// Runs the graph with W and b of the shapes given; the error and what was logged.
void expect_refused(bool kn, std::vector<int32_t> w_shape, std::vector<int32_t> b_shape,
                    const char* message) {
  Delegate d(runtime_filter_graph(kn).payload());
  ASSERT_EQ(d.init_error, Error::Ok);
  Args args(std::move(w_shape), std::move(b_shape));
  test::clear_captured_logs();
  EXPECT_EQ(args.run(d), Error::InvalidArgument);
  EXPECT_NE(test::captured_logs().find(message), std::string::npos) << test::captured_logs();
}

TEST(XnnpackRuntimeOperands, FullyConnectedFilterSmallerThanItsBoundIsRefused) {
  // Fewer output channels ([1, 4] for [8, 4]): rows 1..7 of W are past the tensor.
  expect_refused(false, {1, kIn}, {kOut},
                 "node 0 (XNNFullyConnected): filter_id 1 is [1, 4], the node needs [8, 4]");
  // The transposed layout, [4, 1] for [4, 8].
  expect_refused(true, {kIn, 1}, {kOut},
                 "node 0 (XNNFullyConnected): filter_id 1 is [4, 1], the node needs [4, 8]");
  // Fewer input channels than the input has.
  expect_refused(false, {kOut, 1}, {kOut}, "filter_id 1 is [8, 1], the node needs [8, 4]");
}

TEST(XnnpackRuntimeOperands, FullyConnectedBiasSmallerThanItsBoundIsRefused) {
  expect_refused(false, {kOut, kIn}, {1},
                 "node 0 (XNNFullyConnected): bias_id 2 is [1], the node needs 8 elements");
}

TEST(XnnpackRuntimeOperands, FullyConnectedRunsAgainAtTheFullShapes) {
  for (bool kn : {false, true}) {
    Delegate d(runtime_filter_graph(kn).payload());
    ASSERT_EQ(d.init_error, Error::Ok);
    Args small(kn ? std::vector<int32_t>{kIn, 2} : std::vector<int32_t>{2, kIn}, {kOut});
    EXPECT_EQ(small.run(d), Error::InvalidArgument);
    // x = 1, W[o, i] = o + 1, b[o] = 10 o: y[r, o] = 4 (o + 1) + 10 o.
    Args full(kn ? std::vector<int32_t>{kIn, kOut} : std::vector<int32_t>{kOut, kIn}, {kOut});
    const std::vector<float> x(kRows * kIn, 1.0f);
    std::vector<float> w(kIn * kOut), b(kOut);
    for (int32_t o = 0; o < kOut; ++o) {
      b[o] = 10.0f * o;
      for (int32_t i = 0; i < kIn; ++i)
        w[kn ? i * kOut + o : o * kIn + i] = static_cast<float>(o + 1);
    }
    full.x.set_logical(reinterpret_cast<const uint8_t*>(x.data()));
    full.w.set_logical(reinterpret_cast<const uint8_t*>(w.data()));
    full.b.set_logical(reinterpret_cast<const uint8_t*>(b.data()));
    ASSERT_EQ(full.run(d), Error::Ok) << "kn = " << kn;
    const float* y = full.y.tensor().const_data_ptr<float>();
    for (int32_t r = 0; r < kRows; ++r)
      for (int32_t o = 0; o < kOut; ++o)
        EXPECT_EQ(y[r * kOut + o], 4.0f * (o + 1) + 10.0f * o) << "kn = " << kn;
  }
}

}  // namespace
