// Dynamic shapes: the payload's dims are upper bounds. A call with smaller inputs gives the
// values (and output shapes) of the same graph exported at that exact size; an input larger
// than its bound, a rank change, or a node type whose shape is fixed is a typed error naming
// the problem; the graph keeps working after each.
#include <cmath>
#include <cstdint>
#include <cstring>
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

using Shape = std::vector<uint32_t>;
constexpr uint32_t kBatch = 2, kIn = 6, kHidden = 4;

// Deterministic weights and inputs in [-1, 1).
std::vector<float> ramp(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t x = seed * 747796405u + 2891336453u;
  for (auto& e : v) {
    x = x * 1664525u + 1013904223u;
    e = static_cast<float>(x >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return v;
}

// A small attention-like graph over a sequence of length `s` (the bound when exported with a
// dynamic sequence), exercising each node type that follows a new input shape:
//   h = tanh(x[2, s, 6] . W^T)       FullyConnected, Tanh            [2, s, 4]
//   p = softmax(h . h^T) . h         StaticTranspose, BatchMatrixMultiply, Softmax
//   c = concat(p + h, h)[.., 1:7]    Add, Concatenate2, StaticSlice   [2, s, 6]
//   y = reshape(pad(c), [-1, 7])     StaticConstantPad, StaticReshape [2 (s + 1), 7]
GraphWriter attention_graph(uint32_t s) {
  GraphWriter g;
  const uint32_t x = g.value({kBatch, s, kIn}, 0);
  const uint32_t w = g.constant({kHidden, kIn}, ramp(kHidden * kIn, 1));
  const uint32_t fc_out = g.value({kBatch, s, kHidden});
  const uint32_t h = g.value({kBatch, s, kHidden});
  const uint32_t ht = g.value({kBatch, kHidden, s});
  const uint32_t scores = g.value({kBatch, s, s});
  const uint32_t probs = g.value({kBatch, s, s});
  const uint32_t mixed = g.value({kBatch, s, kHidden});
  const uint32_t sum = g.value({kBatch, s, kHidden});
  const uint32_t cat = g.value({kBatch, s, 2 * kHidden});
  const uint32_t sliced = g.value({kBatch, s, 6});
  const uint32_t padded = g.value({kBatch, s + 1, 7});
  const uint32_t y = g.value({kBatch * (s + 1), 7}, 1, true);

  auto* fc = new fb::XNNFullyConnectedT();
  fc->input1_id = x;
  fc->filter_id = w;
  fc->bias_id = xnn_test::kNone;
  fc->output_id = fc_out;
  g.node(T::XNNFullyConnected, fc);
  g.unary(T::XNNTanh, fc_out, h);
  auto* tr = new fb::XNNStaticTransposeT();
  tr->num_dims = 3;
  tr->perm = {0, 2, 1};
  tr->input_id = h;
  tr->output_id = ht;
  g.node(T::XNNStaticTranspose, tr);
  g.binary(T::XNNBatchMatrixMultiply, h, ht, scores);
  g.unary(T::XNNSoftmax, scores, probs);
  g.binary(T::XNNBatchMatrixMultiply, probs, h, mixed);
  g.binary(T::XNNAdd, mixed, h, sum);
  auto* cc = new fb::_XNNCatT();
  cc->axis = 2;
  cc->input1_id = sum;
  cc->input2_id = h;
  cc->input3_id = xnn_test::kNone;
  cc->input4_id = xnn_test::kNone;
  cc->input5_id = xnn_test::kNone;
  cc->output_id = cat;
  g.node(T::XNNConcatenate2, cc);
  auto* sl = new fb::XNNStaticSliceT();
  sl->num_dims = 3;
  sl->offsets = {0, 0, 1};
  sl->sizes = {0, 0, 6};  // 0: to the end of the (dynamic) dim
  sl->input_id = cat;
  sl->output_id = sliced;
  g.node(T::XNNStaticSlice, sl);
  auto* pad = new fb::XNNStaticConstantPadT();
  pad->pre_paddings = {0, 1, 0};
  pad->post_paddings = {0, 0, 1};
  pad->padding_value = 0.5f;
  pad->input_id = sliced;
  pad->output_id = padded;
  g.node(T::XNNStaticConstantPad, pad);
  auto* rs = new fb::XNNStaticReshapeT();
  rs->num_dims = 2;
  rs->new_shape = {0, 7};  // PyTorch's -1
  rs->input_id = padded;
  rs->output_id = y;
  g.node(T::XNNStaticReshape, rs);
  return g;
}

struct Call {
  Error error = Error::Internal;
  std::vector<int32_t> out_sizes;
  std::vector<float> out;
};

// One execute with input x of `in_shape`; the output is a dynamic-bound tensor of
// `out_bound` that the backend resizes.
Call call(Delegate& d, const Shape& in_shape, const std::vector<float>& x, const Shape& out_bound) {
  OwnedTensor in(ScalarType::Float, std::vector<int32_t>(in_shape.begin(), in_shape.end()));
  in.set_logical(reinterpret_cast<const uint8_t*>(x.data()));
  OwnedTensor out(ScalarType::Float, std::vector<int32_t>(out_bound.begin(), out_bound.end()), {},
                  /*dynamic=*/true);
  EValue ein(in.tensor()), eout(out.tensor());
  Call c;
  c.error = d.execute({&ein, &eout});
  const auto t = out.tensor();
  c.out_sizes.assign(t.sizes().begin(), t.sizes().end());
  const float* p = t.const_data_ptr<float>();
  c.out.assign(p, p + t.numel());
  return c;
}

// The graph exported at sequence length s, run once.
Call exact(uint32_t s, const std::vector<float>& x) {
  Delegate d(attention_graph(s).payload());
  EXPECT_EQ(d.init_error, Error::Ok);
  return call(d, {kBatch, s, kIn}, x, {kBatch * (s + 1), 7});
}

TEST(XnnpackDynamic, SmallerInputsGiveTheExactSizeGraphsAnswer) {
  constexpr uint32_t kBound = 5;
  Delegate bounded(attention_graph(kBound).payload());
  ASSERT_EQ(bounded.init_error, Error::Ok);
  // Shrink, grow back to the bound, shrink again, repeat a shape: each call must match the
  // graph exported at exactly that size, values and output shape.
  for (uint32_t s : {3u, 5u, 1u, 1u, 4u}) {
    const auto x = ramp(kBatch * s * kIn, 10 + s);
    const Call want = exact(s, x);
    ASSERT_EQ(want.error, Error::Ok);
    const Call got = call(bounded, {kBatch, s, kIn}, x, {kBatch * (kBound + 1), 7});
    ASSERT_EQ(got.error, Error::Ok) << "s = " << s;
    EXPECT_EQ(got.out_sizes, (std::vector<int32_t>{static_cast<int32_t>(kBatch * (s + 1)), 7}))
        << "s = " << s;
    ASSERT_EQ(got.out.size(), want.out.size()) << "s = " << s;
    for (size_t i = 0; i < want.out.size(); ++i) {
      EXPECT_NEAR(got.out[i], want.out[i], 1e-5f) << "s = " << s << ", element " << i;
    }
  }
}

TEST(XnnpackDynamic, InputsBeyondTheBoundOrOfAnotherRankAreRefused) {
  Delegate d(attention_graph(4).payload());
  ASSERT_EQ(d.init_error, Error::Ok);
  const Shape out_bound{kBatch * 5, 7};
  test::clear_captured_logs();
  Call c = call(d, {kBatch, 5, kIn}, ramp(kBatch * 5 * kIn, 1), out_bound);
  EXPECT_EQ(c.error, Error::InvalidArgument);
  EXPECT_NE(test::captured_logs().find("dim 1 is 5, the graph allows at most 4"), std::string::npos)
      << test::captured_logs();
  test::clear_captured_logs();
  c = call(d, {kBatch * 4, kIn}, ramp(kBatch * 4 * kIn, 1), out_bound);
  EXPECT_EQ(c.error, Error::InvalidArgument);
  EXPECT_NE(test::captured_logs().find("has rank 2, the graph's value 3"), std::string::npos)
      << test::captured_logs();
  // A refused call leaves the graph usable, at a new shape and at the bound.
  for (uint32_t s : {2u, 4u}) {
    const auto x = ramp(kBatch * s * kIn, 3);
    c = call(d, {kBatch, s, kIn}, x, out_bound);
    ASSERT_EQ(c.error, Error::Ok);
    EXPECT_EQ(c.out, exact(s, x).out);
  }
}

// y = maxpool2x2(x) + 1 on an NHWC input: pooling runs only at its exported shape.
GraphWriter pooling_graph() {
  GraphWriter g;
  const uint32_t x = g.value({1, 4, 4, 2}, 0);
  const uint32_t pooled = g.value({1, 2, 2, 2});
  const uint32_t one = g.constant({1}, {1.0f});
  const uint32_t y = g.value({1, 2, 2, 2}, 1, true);
  auto* p = new fb::_XNNPooling2DT();
  p->pooling_height = p->pooling_width = 2;
  p->stride_height = p->stride_width = 2;
  p->dilation_height = p->dilation_width = 1;
  p->input_id = x;
  p->output_id = pooled;
  g.node(T::XNNMaxPooling2d, p);
  g.binary(T::XNNAdd, pooled, one, y);
  return g;
}

TEST(XnnpackDynamic, NodeTypesWithFixedShapesNameThemselves) {
  Delegate d(pooling_graph().payload());
  ASSERT_EQ(d.init_error, Error::Ok);
  test::clear_captured_logs();
  Call c = call(d, {1, 2, 4, 2}, ramp(16, 1), {1, 2, 2, 2});
  EXPECT_EQ(c.error, Error::NotSupported);
  EXPECT_NE(test::captured_logs().find("node 0 (XNNMaxPooling2d): this node type runs only at its "
                                       "exported shapes: input 0 is [1, 2, 4, 2], exported as "
                                       "[1, 4, 4, 2]"),
            std::string::npos)
      << test::captured_logs();
  // Back at the exported shape it runs (the failed reshape is redone, not half kept).
  std::vector<float> x(32);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i);
  c = call(d, {1, 4, 4, 2}, x, {1, 2, 2, 2});
  ASSERT_EQ(c.error, Error::Ok);
  // NHWC, window rows {0,1} x cols {0,1}: the max is at row 1, col 1 of each window.
  EXPECT_EQ(c.out, (std::vector<float>{11, 12, 15, 16, 27, 28, 31, 32}));
}

TEST(XnnpackDynamic, ReshapeWithFixedSizesRefusesAnotherElementCount) {
  // new_shape without an inferred (0) entry cannot follow a shorter input.
  GraphWriter g;
  const uint32_t x = g.value({3, 4}, 0);
  const uint32_t y = g.value({12}, 1, true);
  auto* rs = new fb::XNNStaticReshapeT();
  rs->num_dims = 1;
  rs->new_shape = {12};
  rs->input_id = x;
  rs->output_id = y;
  g.node(T::XNNStaticReshape, rs);
  Delegate d(g.payload());
  ASSERT_EQ(d.init_error, Error::Ok);
  test::clear_captured_logs();
  EXPECT_EQ(call(d, {2, 4}, ramp(8, 1), {12}).error, Error::InvalidArgument);
  EXPECT_NE(
      test::captured_logs().find("(XNNStaticReshape): input has 8 elements, new_shape has 12"),
      std::string::npos)
      << test::captured_logs();
  const auto full = ramp(12, 2);
  const Call c = call(d, {3, 4}, full, {12});
  ASSERT_EQ(c.error, Error::Ok);
  EXPECT_EQ(c.out, full);
}

TEST(XnnpackDynamic, ShapesThatDoNotPropagateAreRefusedAtExecute) {
  // y = a + b with a[4, 3] and b[4, 3], both dynamic in dim 0: a call with a[2, 3] and b[3, 3]
  // does not broadcast.
  GraphWriter g;
  const uint32_t a = g.value({4, 3}, 0);
  const uint32_t b = g.value({4, 3}, 1);
  const uint32_t y = g.value({4, 3}, 2, true);
  g.binary(T::XNNAdd, a, b, y);
  Delegate d(g.payload());
  ASSERT_EQ(d.init_error, Error::Ok);
  OwnedTensor ta(ScalarType::Float, {2, 3}), tb(ScalarType::Float, {3, 3}),
      ty(ScalarType::Float, {4, 3}, {}, true);
  EValue ea(ta.tensor()), eb(tb.tensor()), ey(ty.tensor());
  test::clear_captured_logs();
  EXPECT_EQ(d.execute({&ea, &eb, &ey}), Error::InvalidArgument);
  EXPECT_NE(test::captured_logs().find("(XNNAdd): input dims 2 and 3 do not broadcast"),
            std::string::npos)
      << test::captured_logs();
  // [2, 3] + [1, 3] broadcasts: y is resized to [2, 3].
  OwnedTensor tc(ScalarType::Float, {1, 3});
  EValue ec(tc.tensor());
  EXPECT_EQ(d.execute({&ea, &ec, &ey}), Error::Ok);
  EXPECT_EQ(ty.tensor().size(0), 2);
  EXPECT_EQ(ty.tensor().size(1), 3);
}

TEST(XnnpackDynamic, ARefusedCallDoesNotLeaveAStalePlan) {
  // y = a + b, both [4, 3] at most. A call whose a shrinks to [1, 3] but whose b is refused
  // (wrong dtype) must not leave the plan for the old shapes behind: the next call, with the
  // same a and a good b of unchanged shape, must broadcast a, not read 12 elements of it.
  GraphWriter g;
  const uint32_t a = g.value({4, 3}, 0);
  const uint32_t b = g.value({4, 3}, 1);
  const uint32_t y = g.value({4, 3}, 2, true);
  g.binary(T::XNNAdd, a, b, y);
  Delegate d(g.payload());
  ASSERT_EQ(d.init_error, Error::Ok);
  const std::vector<float> av = {1, 2, 3};
  std::vector<float> bv(12);
  for (size_t i = 0; i < bv.size(); ++i)
    bv[i] = 10.0f * static_cast<float>(i);
  OwnedTensor ta(ScalarType::Float, {1, 3}), tb(ScalarType::Float, {4, 3}),
      wrong(ScalarType::Int, {4, 3}), ty(ScalarType::Float, {4, 3}, {}, true);
  ta.set_logical(reinterpret_cast<const uint8_t*>(av.data()));
  tb.set_logical(reinterpret_cast<const uint8_t*>(bv.data()));
  EValue ea(ta.tensor()), eb(tb.tensor()), ew(wrong.tensor()), ey(ty.tensor());
  EXPECT_EQ(d.execute({&ea, &ew, &ey}), Error::InvalidArgument);
  ASSERT_EQ(d.execute({&ea, &eb, &ey}), Error::Ok);
  ASSERT_EQ(ty.tensor().numel(), 12);
  const float* out = ty.tensor().const_data_ptr<float>();
  for (size_t i = 0; i < 12; ++i)
    EXPECT_EQ(out[i], bv[i] + av[i % 3]) << i;
}

// x[2, s] -> Convert -> qdint8 with one row spanning both dims -> Convert -> y[2, s].
GraphWriter dynamic_quant_graph(uint32_t s) {
  GraphWriter g;
  const uint32_t x = g.value({2, s}, 0);
  const uint32_t q = g.value({2, s});
  auto* dq = new fb::PerTokenDynamicQuantT();
  dq->num_nonbatch_dims = 2;
  g.quantize(q, fb::XNNDatatype::xnn_datatype_qdint8, fb::XNNQuantParams::PerTokenDynamicQuant, dq);
  const uint32_t y = g.value({2, s}, 1, true);
  g.unary(T::XNNConvert, x, q);
  g.unary(T::XNNConvert, q, y);
  return g;
}

TEST(XnnpackDynamic, DynamicQuantizationRowsFollowTheShape) {
  // The row is the whole [2, s] value: at s = 3 it has 6 elements, not the bound's 8 (a stale
  // 8-element row would take the previous call's large values into its scale).
  Delegate bounded(dynamic_quant_graph(4).payload());
  ASSERT_EQ(bounded.init_error, Error::Ok);
  ASSERT_EQ(call(bounded, {2, 4}, {0, 0, 0, 0, 0, 0, 90, -90}, {2, 4}).error, Error::Ok);
  const std::vector<float> x = {0.3f, -0.7f, 0.05f, 1.1f, -0.2f, 0.9f};
  Delegate exact_size(dynamic_quant_graph(3).payload());
  ASSERT_EQ(exact_size.init_error, Error::Ok);
  const Call want = call(exact_size, {2, 3}, x, {2, 3});
  ASSERT_EQ(want.error, Error::Ok);
  const Call got = call(bounded, {2, 3}, x, {2, 4});
  ASSERT_EQ(got.error, Error::Ok);
  EXPECT_EQ(got.out_sizes, (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(got.out, want.out);
  // And the rounding is real: 1.1 - (-0.7) over 255 steps does not hold 0.05 exactly.
  EXPECT_NE(got.out[2], x[2]);
}

TEST(XnnpackDynamic, ReshapeWithTwoInferredDimsIsMalformed) {
  GraphWriter g;
  const uint32_t x = g.value({3, 4}, 0);
  const uint32_t y = g.value({3, 4}, 1, true);
  auto* rs = new fb::XNNStaticReshapeT();
  rs->num_dims = 2;
  rs->new_shape = {0, 0};
  rs->input_id = x;
  rs->output_id = y;
  g.node(T::XNNStaticReshape, rs);
  test::clear_captured_logs();
  Delegate d(g.payload());
  EXPECT_EQ(d.init_error, Error::InvalidProgram);
  EXPECT_NE(test::captured_logs().find("new_shape has 2 inferred (0) dims, at most 1"),
            std::string::npos)
      << test::captured_logs();
}

}  // namespace
