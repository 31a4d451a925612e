// Output sizes computed in int64 from file-controlled arguments used to be
// cut to the int32 SizesType before the resize check while the loops kept
// the int64 count: a [1] out then passed the check and the kernel wrote the
// real (2^32 + 1)-element result past it. Each call must now fail before it
// writes anything.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "safety_util.h"

namespace kernel_safety {
namespace {

constexpr int64_t k2Pow32Plus1 = (int64_t{1} << 32) + 1;

TEST(KernelSafetySizes, ArangeLengthBeyondInt32Fails) {
  ExactTensor out(ScalarType::Float, {1});
  EValue end(k2Pow32Plus1), eo(out.tensor());
  EXPECT_EQ(call("aten::arange.out", {&end, &eo, &eo}), Error::InvalidArgument);
  EXPECT_EQ(out.data<float>()[0], 0.0f);
}

TEST(KernelSafetySizes, ArangeExtremeIntegerBoundsDoNotWrap) {
  // end - start does not fit in int64: 2^64 - 1 over a step of 2^63 - 1 is
  // three elements.
  ExactTensor out(ScalarType::Long, {3});
  EValue start(INT64_MIN), end(INT64_MAX), step(INT64_MAX), eo(out.tensor());
  ASSERT_EQ(call("aten::arange.start_out", {&start, &end, &step, &eo, &eo}), Error::Ok);
  EXPECT_EQ(out.data<int64_t>()[0], INT64_MIN);
  EXPECT_EQ(out.data<int64_t>()[1], -1);
  EXPECT_EQ(out.data<int64_t>()[2], INT64_MAX - 1);
}

// convolution.out(input, weight, bias?, stride, padding, dilation, transposed,
//                 output_padding, groups, out)
Error conv(const ExactTensor& x, const ExactTensor& w, std::vector<int64_t> stride,
           std::vector<int64_t> padding, bool transposed, const ExactTensor& out) {
  EValue ex(x.tensor()), ew(w.tensor()), none, et(transposed), groups(int64_t{1});
  EValue eo(out.tensor());
  IntList s(std::move(stride)), p(std::move(padding)), d({1, 1}), op({0, 0});
  return call("aten::convolution.out",
              {&ex, &ew, &none, &s.ev, &p.ev, &d.ev, &et, &op.ev, &groups, &eo, &eo});
}

TEST(KernelSafetySizes, ConvolutionPaddingThatOverflowsOutputHeightFails) {
  ExactTensor x(ScalarType::Float, {1, 1, 3, 1}), w(ScalarType::Float, {1, 1, 1, 1});
  ExactTensor out(ScalarType::Float, {1, 1, 1, 1});
  // 3 + 2 * (2^31 - 1) - 1 + 1 = 2^32 + 1 output rows.
  EXPECT_EQ(conv(x, w, {1, 1}, {INT32_MAX, 0}, false, out), Error::InvalidArgument);
  EXPECT_EQ(conv(x, w, {1, 1}, {int64_t{1} << 31, 0}, false, out), Error::InvalidArgument);
  EXPECT_EQ(out.data<float>()[0], 0.0f);
}

TEST(KernelSafetySizes, TransposedConvolutionOutputBeyondInt32Fails) {
  ExactTensor x(ScalarType::Float, {1, 1, 5, 1}), w(ScalarType::Float, {1, 1, 1, 1});
  ExactTensor out(ScalarType::Float, {1, 1, 1, 1});
  // (5 - 1) * 2^30 + 1 = 2^32 + 1 output rows.
  EXPECT_EQ(conv(x, w, {int64_t{1} << 30, 1}, {0, 0}, true, out), Error::InvalidArgument);
  EXPECT_EQ(out.data<float>()[0], 0.0f);
}

TEST(KernelSafetySizes, CatTotalLengthBeyondInt32Fails) {
  // Two inputs claim 2^31 - 1 bytes each; their data must never be read.
  uint8_t fake[16] = {};
  ExactTensor a(ScalarType::Byte, {INT32_MAX}, fake), b(ScalarType::Byte, {INT32_MAX}, fake);
  ExactTensor c(ScalarType::Byte, {3}), out(ScalarType::Byte, {1});
  TList in({a.tensor(), b.tensor(), c.tensor()});
  EValue dim(int64_t{0}), eo(out.tensor());
  EXPECT_EQ(call("aten::cat.out", {&in.ev, &dim, &eo, &eo}), Error::InvalidArgument);
}

TEST(KernelSafetySizes, ExpandToSizeBeyondInt32Fails) {
  ExactTensor self(ScalarType::Float, {1}), out(ScalarType::Float, {1, 1});
  IntList size({k2Pow32Plus1, 1});
  EValue es(self.tensor()), implicit(false), eo(out.tensor());
  EXPECT_EQ(call("aten::expand_copy.out", {&es, &size.ev, &implicit, &eo, &eo}),
            Error::InvalidArgument);
}

TEST(KernelSafetySizes, AdaptiveAvgPoolOutputSizeBeyondInt32Fails) {
  ExactTensor self(ScalarType::Float, {1, 1, 2, 2}), out(ScalarType::Float, {1, 1, 1, 1});
  IntList size({k2Pow32Plus1, 1});
  EValue es(self.tensor()), eo(out.tensor());
  EXPECT_EQ(call("aten::_adaptive_avg_pool2d.out", {&es, &size.ev, &eo, &eo}),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace kernel_safety
