// Shapes at the edges of what a payload can declare: dims whose products overflow (also next
// to a 0 dim), ranks that differ between a node's operands, and values so large or so empty
// that planning work by their shape would exhaust memory. Each is refused at init with a typed
// error and a log line naming it, or loads without allocating by that shape; none aborts.
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
using xnn_test::kNone;
namespace fb = xnn_test::fb;
using T = fb::XNodeUnion;

namespace {

// init() on g's payload fails with `want` and logs `message`.
void expect_refused(const GraphWriter& g, Error want, const char* message) {
  test::clear_captured_logs();
  Delegate d(g.payload());
  EXPECT_EQ(d.init_error, want) << test::captured_logs();
  EXPECT_NE(test::captured_logs().find(message), std::string::npos) << test::captured_logs();
}

// y = concat(a, b) along `axis`.
GraphWriter concat_graph(std::vector<uint32_t> a, std::vector<uint32_t> b, std::vector<uint32_t> y,
                         uint32_t axis) {
  GraphWriter g;
  auto* p = new fb::_XNNCatT();
  p->input1_id = g.value(std::move(a), 0);
  p->input2_id = g.value(std::move(b), 1);
  p->input3_id = p->input4_id = p->input5_id = kNone;
  p->output_id = g.value(std::move(y), 2, true);
  p->axis = axis;
  g.node(T::XNNConcatenate2, p);
  return g;
}

TEST(XnnpackShapeBounds, ConcatenateInputsOfAnotherRankThanTheOutput) {
  // Rank 1 inputs into a rank 2 output along dim 1: dim 1 of the inputs does not exist.
  expect_refused(concat_graph({3}, {3}, {3, 2}, 1), Error::InvalidProgram,
                 "node 0 (XNNConcatenate2): input1_id 0 has rank 1, the output 2");
  // Rank 3 inputs into a rank 2 output whose dims are the inputs' leading ones: 48 elements
  // would be written into 12.
  expect_refused(concat_graph({2, 3, 4}, {2, 3, 4}, {4, 3}, 0), Error::InvalidProgram,
                 "node 0 (XNNConcatenate2): input1_id 0 has rank 3, the output 2");
  // Only the second input differs.
  expect_refused(concat_graph({2, 3}, {2, 3, 1}, {4, 3}, 0), Error::InvalidProgram,
                 "input2_id 1 has rank 3, the output 2");
}

TEST(XnnpackShapeBounds, ReshapeWhoseNewShapeProductOverflows) {
  // 2^31 * 2^31 * 4 is 2^64: a 64-bit product wraps to 0 and the inferred dim divides by it.
  GraphWriter g;
  auto* rs = new fb::XNNStaticReshapeT();
  rs->input_id = g.value({2, 3}, 0);
  rs->output_id = g.value({6, 1, 1, 1}, 1, true);
  rs->num_dims = 4;
  rs->new_shape = {0, 1u << 31, 1u << 31, 4};
  g.node(T::XNNStaticReshape, rs);
  expect_refused(g, Error::InvalidProgram,
                 "node 0 (XNNStaticReshape): new_shape's fixed entries overflow");
  // Without an inferred entry the wrapped product would equal an empty input's 0 elements.
  GraphWriter empty;
  auto* rs2 = new fb::XNNStaticReshapeT();
  rs2->input_id = empty.value({0, 3}, 0);
  rs2->output_id = empty.value({0, 1, 1}, 1, true);
  rs2->num_dims = 3;
  rs2->new_shape = {0, 1, 1};
  empty.node(T::XNNStaticReshape, rs2);
  Delegate ok(empty.payload());
  EXPECT_EQ(ok.init_error, Error::Ok);
  rs2->new_shape = {1u << 31, 1u << 31, 4};
  expect_refused(empty, Error::InvalidProgram, "new_shape's fixed entries overflow");
}

TEST(XnnpackShapeBounds, AZeroDimDoesNotHideAnOverflow) {
  // 0 elements, but 2^62 once the 0 is any other size: refused where values are read.
  GraphWriter g;
  auto* p = new fb::XNNStaticResizeBilinear2DT();
  p->input_id = g.value({0, 2, 2, 1}, 0);
  p->output_id = g.value({0, 1u << 31, 1u << 31, 1}, 1, true);
  p->new_height = p->new_width = 1u << 31;
  g.node(T::XNNStaticResizeBilinear2D, p);
  expect_refused(g, Error::InvalidProgram, "value 1: element count overflows (dim 2 = 2147483648)");
}

TEST(XnnpackShapeBounds, AnEmptyResizePlansNothingByItsHeight) {
  // An output of no elements but 2^31 - 1 rows: no per-row plan (51 GB of it) is made.
  constexpr uint32_t kRows = 0x7FFFFFFF;
  GraphWriter g;
  auto* p = new fb::XNNStaticResizeBilinear2DT();
  p->input_id = g.value({0, 2, 2, 1}, 0);
  p->output_id = g.value({0, kRows, 1, 1}, 1, true);
  p->new_height = kRows;
  p->new_width = 1;
  g.node(T::XNNStaticResizeBilinear2D, p);
  Delegate d(g.payload());
  ASSERT_EQ(d.init_error, Error::Ok);
  OwnedTensor x(ScalarType::Float, {0, 2, 2, 1});
  OwnedTensor y(ScalarType::Float, {0, static_cast<int32_t>(kRows), 1, 1});
  EValue ex(x.tensor()), ey(y.tensor());
  EXPECT_EQ(d.execute({&ex, &ey}), Error::Ok);
}

TEST(XnnpackShapeBounds, BatchMatrixMultiplyPlansNoPerBatchTables) {
  // 2^34 batches of 1 x 1 products, all of them arguments: nothing needs memory by the batch
  // count (two tables of 2^34 offsets would be 256 GB).
  GraphWriter g;
  const std::vector<uint32_t> dims = {1u << 17, 1u << 17, 1, 1};
  g.binary(T::XNNBatchMatrixMultiply, g.value(dims, 0), g.value(dims, 1), g.value(dims, 2, true));
  Delegate d(g.payload());
  EXPECT_EQ(d.init_error, Error::Ok);
}

TEST(XnnpackShapeBounds, FullyConnectedOutputSizeProductOverflow) {
  // m = 3 * 2863311531 = 2^33 + 1 rows, n = 2^31 channels (a run-time filter): m * n wraps to
  // 2^31, the element count of a [1, 2^31] output.
  GraphWriter g;
  auto* p = new fb::XNNFullyConnectedT();
  p->input1_id = g.value({3, 2863311531u, 1}, 0);
  p->filter_id = g.value({1u << 31, 1}, 1);
  p->bias_id = kNone;
  p->output_id = g.value({1, 1u << 31}, 2, true);
  g.node(T::XNNFullyConnected, p);
  expect_refused(g, Error::InvalidProgram,
                 "node 0 (XNNFullyConnected): output has 2147483648 elements (last dim "
                 "2147483648), expected 8589934593 x 2147483648");
}

}  // namespace
