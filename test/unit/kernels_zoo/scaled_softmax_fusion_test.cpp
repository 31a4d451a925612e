// Load-time fusion of attention's scale and softmax (runtime/kernels/ops/softmax.cpp): a mul by
// a one-element tensor, a softmax over the last dim and an expand_copy to the same shape run as
// one instruction, and give the bytes the three operators give. Hand-built programs cover the
// run with and without the expand, and a softmax over another dim (not fused).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "../method/program_builder.h"

namespace {

// Scores [2, 3, 5, 37]: rows of 37 floats, past two AVX-512 vectors and a partial one.
const std::vector<int32_t> kShape = {2, 3, 5, 37};
constexpr int kNumel = 2 * 3 * 5 * 37;
constexpr uint64_t kBytes = sizeof(float) * kNumel;

test::TensorSpec planned(uint64_t offset, std::vector<int32_t> sizes = kShape) {
  test::TensorSpec s;
  s.sizes = std::move(sizes);
  s.mem_id = 1;
  s.offset = offset;
  return s;
}

// x -> mul(x, 0.125) -> softmax(dim) [-> expand_copy to the same shape]; returns the builder
// with the last value as output.
// out_offset: where the run's output is planned (0: in x's storage, dead after the mul).
test::ProgramBuilder attention_scores(int64_t dim, bool expand, uint64_t out_offset = 3 * kBytes) {
  test::ProgramBuilder b;
  b.buffer_sizes = {0, static_cast<int64_t>(4 * kBytes)};
  const int x = b.tensor(planned(0));
  b.inputs.push_back(x);
  const float scale = 0.125f;
  test::TensorSpec s;
  s.sizes = {};
  s.data_buffer_idx = b.constant(&scale, sizeof scale);
  const int scale_value = b.tensor(s);
  const int m = b.tensor(planned(kBytes));
  b.kernel(b.op("aten::mul", "out"), {x, scale_value, m, m});
  const int y = b.tensor(planned(2 * kBytes));
  b.kernel(b.op("aten::_softmax", "out"), {m, b.int_value(dim), b.bool_value(false), y, y});
  int last = y;
  if (expand) {
    const int e = b.tensor(planned(out_offset));
    std::vector<int64_t> sizes;  // value indices of the Int sizes
    for (int32_t d : kShape) {
      sizes.push_back(b.int_value(d));
    }
    b.kernel(b.op("aten::expand_copy", "out"), {y, b.int_list(sizes), b.bool_value(false), e, e});
    last = e;
  }
  b.outputs.push_back(last);
  return b;
}

// Scores of fixed values, one of them a large negative (as a mask gives).
void fill(size_t, float* data, size_t numel) {
  for (size_t k = 0; k < numel; ++k) {
    data[k] = static_cast<float>((static_cast<int>(k) * 37 + 11) % 101) * 0.37f - 18.0f;
  }
  data[5] = -1e30f;
}

// Returns the prepared instruction count after checking that preparation changes no byte.
size_t prepared_and_identical(const test::ProgramBuilder& b) {
  const std::vector<uint8_t> bytes = b.finish();
  const test::PreparedRun off = test::run_with_prepare(bytes, false, fill);
  const test::PreparedRun on = test::run_with_prepare(bytes, true, fill);
  EXPECT_EQ(off.prepared, 0u);
  EXPECT_EQ(off.out.size(), static_cast<size_t>(kNumel));
  EXPECT_EQ(on.out.size(), off.out.size());
  if (on.out.size() == off.out.size()) {
    EXPECT_EQ(std::memcmp(on.out.data(), off.out.data(), on.out.size() * sizeof(float)), 0);
  }
  return on.prepared;
}

TEST(ScaledSoftmaxFusion, MulSoftmaxAndSameShapeExpandRunAsOne) {
  EXPECT_EQ(prepared_and_identical(attention_scores(-1, true)), 2u);
}

TEST(ScaledSoftmaxFusion, MulAndSoftmaxOverTheLastDim) {
  EXPECT_EQ(prepared_and_identical(attention_scores(3, false)), 1u);
}

// The run's output planned over x: the fused kernel keeps the mul's own output and reads it.
TEST(ScaledSoftmaxFusion, OutputInTheInputsStorage) {
  EXPECT_EQ(prepared_and_identical(attention_scores(-1, true, 0)), 2u);
}

TEST(ScaledSoftmaxFusion, SoftmaxOverAnotherDimIsLeftAlone) {
  EXPECT_EQ(prepared_and_identical(attention_scores(2, true)), 0u);
}

}  // namespace
