// Int-list arguments whose arithmetic used to overflow int64: a wrapped
// product or sum matched the real size (so every check passed) and the kernel
// then addressed memory with the unwrapped values. Each call must now fail
// with InvalidArgument before touching data, or give PyTorch's result where
// the arguments are valid.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "safety_util.h"

namespace kernel_safety {
namespace {

constexpr int64_t k2Pow62 = int64_t{1} << 62;
constexpr int64_t k2Pow32 = int64_t{1} << 32;

TEST(KernelSafetyIntLists, RepeatCountWhoseProductWrapsFails) {
  // (2^62 + 1) * 4 wraps to 4 = the out size; 2^62 + 1 tiles would be written.
  ExactTensor self(ScalarType::Float, {4}), out(ScalarType::Float, {4});
  IntList repeats({k2Pow62 + 1});
  EValue es(self.tensor()), eo(out.tensor());
  EXPECT_EQ(call("aten::repeat.out", {&es, &repeats.ev, &eo, &eo}), Error::InvalidArgument);
}

TEST(KernelSafetyIntLists, ConstantPadNearInt64MaxFails) {
  // 2 + (2^63 - 1) + (2^63 - 1) wraps to 0; the copy would land 2^63 - 1
  // elements past (that is, just before) out.
  ExactTensor self(ScalarType::Float, {2}), out(ScalarType::Float, {0});
  IntList pad({INT64_MAX, INT64_MAX});
  EValue es(self.tensor()), value(1.0), eo(out.tensor());
  EXPECT_EQ(call("aten::constant_pad_nd.out", {&es, &pad.ev, &value, &eo, &eo}),
            Error::InvalidArgument);
}

TEST(KernelSafetyIntLists, ConstantPadNegativeBeyondTheInputFails) {
  ExactTensor self(ScalarType::Float, {2}), out(ScalarType::Float, {1});
  IntList pad({-3, 2});  // 2 - 3 + 2 = 1 element, but 3 cut from a dim of 2
  EValue es(self.tensor()), value(1.0), eo(out.tensor());
  EXPECT_EQ(call("aten::constant_pad_nd.out", {&es, &pad.ev, &value, &eo, &eo}),
            Error::InvalidArgument);
}

TEST(KernelSafetyIntLists, SplitSizesThatWrapToTheLengthFail) {
  // The three sizes sum to 2^64 + 4 (wraps to 4 = len); cut to int32 they
  // are 0, 0 and 4, and the last slice starts 2^33 elements before self.
  const int64_t big = INT64_MAX - k2Pow32 + 1;
  ExactTensor self(ScalarType::Float, {4});
  ExactTensor o1(ScalarType::Float, {0}), o2(ScalarType::Float, {0}), o3(ScalarType::Float, {4});
  IntList sizes({big, big, (int64_t{1} << 33) + 4});
  TList outs({o1.tensor(), o2.tensor(), o3.tensor()});
  EValue es(self.tensor()), dim(int64_t{0});
  EXPECT_EQ(call("aten::split_with_sizes_copy.out", {&es, &sizes.ev, &dim, &outs.ev, &outs.ev}),
            Error::InvalidArgument);
}

TEST(KernelSafetyIntLists, NarrowStartPlusLengthThatWrapsFails) {
  // 2^62 + (2^63 - 2^32 + 2) wraps negative, so it passed "<= len"; the
  // length cut to int32 is 2 and the copy started 2^62 elements in.
  ExactTensor self(ScalarType::Float, {4}), out(ScalarType::Float, {2});
  EValue es(self.tensor()), dim(int64_t{0}), start(k2Pow62), length(INT64_MAX - k2Pow32 + 1 + 2),
      eo(out.tensor());
  EXPECT_EQ(call("aten::narrow_copy.out", {&es, &dim, &start, &length, &eo, &eo}),
            Error::InvalidArgument);
}

TEST(KernelSafetyIntLists, SliceWithHugeStepTakesTheFirstElement) {
  ExactTensor self(ScalarType::Float, {4}), out(ScalarType::Float, {1});
  for (int i = 0; i < 4; ++i) {
    self.data<float>()[i] = static_cast<float>(i + 10);
  }
  EValue es(self.tensor()), dim(int64_t{0}), start(int64_t{0}), end(INT64_MAX), step(INT64_MAX),
      eo(out.tensor());
  ASSERT_EQ(call("aten::slice_copy.Tensor_out", {&es, &dim, &start, &end, &step, &eo, &eo}),
            Error::Ok);
  EXPECT_EQ(out.data<float>()[0], 10.0f);
}

TEST(KernelSafetyIntLists, ViewSizeWhoseProductWrapsFails) {
  // (2^62 + 1) * 4 wraps to 4 = numel(self).
  ExactTensor self(ScalarType::Float, {4}), out(ScalarType::Float, {1, 4});
  IntList size({k2Pow62 + 1, 4});
  EValue es(self.tensor()), eo(out.tensor());
  EXPECT_EQ(call("aten::view_copy.out", {&es, &size.ev, &eo, &eo}), Error::InvalidArgument);
}

// max_pool2d_with_indices.out(self, kernel, stride, padding, dilation, ceil_mode, out, indices)
Error max_pool(const ExactTensor& x, std::vector<int64_t> k, std::vector<int64_t> s,
               std::vector<int64_t> p, std::vector<int64_t> d, bool ceil_mode,
               const ExactTensor& out, const ExactTensor& idx) {
  IntList ek(std::move(k)), es(std::move(s)), ep(std::move(p)), ed(std::move(d));
  EValue ex(x.tensor()), ceil(ceil_mode), eo(out.tensor()), ei(idx.tensor());
  TList ret({out.tensor(), idx.tensor()});
  return call("aten::max_pool2d_with_indices.out",
              {&ex, &ek.ev, &es.ev, &ep.ev, &ed.ev, &ceil, &eo, &ei, &ret.ev});
}

TEST(KernelSafetyIntLists, MaxPoolWithHugeStrideHasOneWindow) {
  ExactTensor x(ScalarType::Float, {1, 1, 5, 5});
  for (int i = 0; i < 25; ++i) {
    x.data<float>()[i] = static_cast<float>(i);
  }
  ExactTensor out(ScalarType::Float, {1, 1, 1, 1}), idx(ScalarType::Long, {1, 1, 1, 1});
  // ceil_mode adds stride - 1 to the size numerator: that used to overflow.
  ASSERT_EQ(max_pool(x, {3, 3}, {INT64_MAX, INT64_MAX}, {0, 0}, {1, 1}, true, out, idx), Error::Ok);
  EXPECT_EQ(out.data<float>()[0], 12.0f);  // max of the top-left 3x3 window of the ramp
  EXPECT_EQ(idx.data<int64_t>()[0], 12);
}

TEST(KernelSafetyIntLists, MaxPoolKernelFarLargerThanTheInputVisitsOnlyTheInput) {
  // A 2^30 + 1 square kernel padded by 2^29 covers the whole [1, 4] input in
  // every window; walking all its 2^60 taps would never finish.
  ExactTensor x(ScalarType::Float, {1, 1, 1, 4});
  for (int i = 0; i < 4; ++i) {
    x.data<float>()[i] = static_cast<float>(i);
  }
  ExactTensor out(ScalarType::Float, {1, 1, 1, 4}), idx(ScalarType::Long, {1, 1, 1, 4});
  const int64_t k = (int64_t{1} << 30) + 1, pad = int64_t{1} << 29;
  ASSERT_EQ(max_pool(x, {k, k}, {1, 1}, {pad, pad}, {1, 1}, false, out, idx), Error::Ok);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(out.data<float>()[i], 3.0f);
    EXPECT_EQ(idx.data<int64_t>()[i], 3);
  }
}

TEST(KernelSafetyIntLists, MaxPoolHugeDilationOrPaddingFails) {
  ExactTensor x(ScalarType::Float, {1, 1, 4, 4});
  ExactTensor out(ScalarType::Float, {1, 1, 1, 1}), idx(ScalarType::Long, {1, 1, 1, 1});
  // dilation * (kernel - 1) and 2 * padding overflow int64.
  EXPECT_EQ(max_pool(x, {3, 3}, {1, 1}, {0, 0}, {k2Pow62, 1}, false, out, idx),
            Error::InvalidArgument);
  EXPECT_EQ(max_pool(x, {INT64_MAX, 3}, {1, 1}, {k2Pow62 + 1, 0}, {1, 1}, false, out, idx),
            Error::InvalidArgument);
}

TEST(KernelSafetyIntLists, AvgPoolHugeKernelFails) {
  ExactTensor x(ScalarType::Float, {1, 1, 4, 4}), out(ScalarType::Float, {1, 1, 1, 1});
  IntList k({INT64_MAX, 1}), s({1, 1}), p({k2Pow62, 0});
  EValue ex(x.tensor()), ceil(false), include_pad(true), none, eo(out.tensor());
  EXPECT_EQ(call("aten::avg_pool2d.out",
                 {&ex, &k.ev, &s.ev, &p.ev, &ceil, &include_pad, &none, &eo, &eo}),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace kernel_safety
