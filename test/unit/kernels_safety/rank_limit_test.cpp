// Kernels that fill fixed [kMaxDim] (16) stack arrays must check the rank
// they are about to write before the first store: a rank-16 index on a
// rank-2 self (17 result dims) and stacking rank-16 tensors (17 dims) used
// to write one entry past the array.
#include <cstdint>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "safety_util.h"

namespace kernel_safety {
namespace {

const std::vector<int32_t> kRank16Ones(16, 1);

TEST(KernelSafetyRank, IndexResultRankAboveLimitFails) {
  ExactTensor self(ScalarType::Float, {2, 3}), index(ScalarType::Long, kRank16Ones);
  ExactTensor out(ScalarType::Float, {1});
  OptTList indices({std::optional<Tensor>(index.tensor())});
  EValue es(self.tensor()), eo(out.tensor());
  EXPECT_EQ(call("aten::index.Tensor_out", {&es, &indices.ev, &eo, &eo}), Error::InvalidArgument);
}

TEST(KernelSafetyRank, IndexPutResultRankAboveLimitFails) {
  ExactTensor self(ScalarType::Float, {2, 3}), index(ScalarType::Long, kRank16Ones);
  ExactTensor values(ScalarType::Float, {1}), out(ScalarType::Float, {2, 3});
  OptTList indices({std::optional<Tensor>(index.tensor())});
  EValue es(self.tensor()), ev(values.tensor()), acc(false), eo(out.tensor());
  EXPECT_EQ(call("aten::index_put.out", {&es, &indices.ev, &ev, &acc, &eo, &eo}),
            Error::InvalidArgument);
}

TEST(KernelSafetyRank, StackOfRank16TensorsFails) {
  ExactTensor a(ScalarType::Float, kRank16Ones), b(ScalarType::Float, kRank16Ones);
  ExactTensor out(ScalarType::Float, kRank16Ones);
  TList in({a.tensor(), b.tensor()});
  EValue dim(int64_t{0}), eo(out.tensor());
  EXPECT_EQ(call("aten::stack.out", {&in.ev, &dim, &eo, &eo}), Error::InvalidArgument);
}

}  // namespace
}  // namespace kernel_safety
