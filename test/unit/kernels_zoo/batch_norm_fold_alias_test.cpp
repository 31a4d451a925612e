// Load-time folding of a batch norm into the convolution before it when the memory plan put the
// batch norm's output in the convolution's input storage (dead once the convolution ran). The
// convolution keeps its own output and the batch norm's readers read that, but only when nothing
// else writes that storage before the last reader; hand-built plans cover both sides.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "../method/program_builder.h"

namespace {

using executorch::runtime::EValue;

constexpr int32_t kC = 2, kH = 4, kW = 4;
constexpr uint64_t kBytes = sizeof(float) * kC * kH * kW;  // one activation

test::TensorSpec planned(uint64_t offset, std::vector<int32_t> sizes = {1, kC, kH, kW}) {
  test::TensorSpec s;
  s.sizes = std::move(sizes);
  s.mem_id = 1;
  s.offset = offset;
  return s;
}

int constant(test::ProgramBuilder& b, const std::vector<float>& data) {
  test::TensorSpec s;
  s.sizes = {static_cast<int32_t>(data.size())};
  if (data.size() == kC * kC) {
    s.sizes = {kC, kC, 1, 1};
  }
  s.data_buffer_idx = b.constant(data.data(), data.size() * sizeof(float));
  return b.tensor(s);
}

// x (storage A) -> conv -> c (storage B) -> batch norm -> y (storage A: x is dead), then
// `readers` adds what reads y. Returns y's value index; x is input 0.
int conv_then_batch_norm(test::ProgramBuilder& b) {
  b.buffer_sizes = {0, static_cast<int64_t>(4 * kBytes)};
  const int x = b.tensor(planned(0));
  b.inputs.push_back(x);
  const int conv = b.op("aten::convolution", "out");
  const int bn = b.op("aten::_native_batch_norm_legit_no_training", "out");
  const int weight = constant(b, {0.5f, -1.0f, 2.0f, 0.25f});
  const int bias = constant(b, {0.1f, -0.2f});
  const int one = b.int_value(1), zero = b.int_value(0);
  const int ones = b.int_list({one, one}), zeros = b.int_list({zero, zero});
  const int c = b.tensor(planned(kBytes));
  b.kernel(conv, {x, weight, bias, ones, zeros, ones, b.bool_value(false), zeros, one, c, c});
  const int y = b.tensor(planned(0));
  const int save_mean = b.tensor(planned(4 * kBytes, {0}));
  const int save_invstd = b.tensor(planned(4 * kBytes, {0}));
  b.kernel(bn,
           {c, constant(b, {1.5f, 0.75f}), constant(b, {0.3f, -0.4f}), constant(b, {0.2f, -0.1f}),
            constant(b, {0.9f, 1.7f}), b.double_value(0.1), b.double_value(1e-5), y, save_mean,
            save_invstd, b.tensor_list({y, save_mean, save_invstd})});
  return y;
}

// Inputs of fixed values.
void fill(size_t input, float* data, size_t numel) {
  for (size_t k = 0; k < numel; ++k) {
    data[k] =
        static_cast<float>((static_cast<int>(k) * 7 + static_cast<int>(input) * 3) % 11) - 5.0f;
  }
}

// Runs the program with preparation off and on: the outputs agree to float rounding (the fold
// rounds differently); returns the prepared instruction count.
size_t prepared_and_agreeing(const test::ProgramBuilder& b) {
  const std::vector<uint8_t> bytes = b.finish();
  const test::PreparedRun off = test::run_with_prepare(bytes, false, fill);
  const test::PreparedRun on = test::run_with_prepare(bytes, true, fill);
  EXPECT_EQ(off.prepared, 0u);
  EXPECT_EQ(on.out.size(), off.out.size());
  EXPECT_FALSE(off.out.empty());
  for (size_t i = 0; i < on.out.size() && i < off.out.size(); ++i) {
    EXPECT_NEAR(on.out[i], off.out[i], 1e-5 + 1e-5 * std::fabs(off.out[i])) << "element " << i;
  }
  return on.prepared;
}

// The one reader (a relu writing over the convolution's dead output storage) fuses into the
// convolution: the batch norm is folded and the relu runs in the convolution.
TEST(BatchNormFoldAlias, FoldsWhenTheReaderFusesIntoTheConvolution) {
  test::ProgramBuilder b;
  const int y = conv_then_batch_norm(b);
  const int r = b.tensor(planned(kBytes));
  b.kernel(b.op("aten::relu", "out"), {y, r, r});
  b.outputs.push_back(r);
  EXPECT_EQ(prepared_and_agreeing(b), 2u);
}

// The same with a reader that has no fusion into the convolution (neg): it would write over its
// own input, so the fold is undone and the batch norm keeps running.
TEST(BatchNormFoldAlias, UndoneWhenTheReaderOverwritingItsInputDoesNotFuse) {
  test::ProgramBuilder b;
  const int y = conv_then_batch_norm(b);
  const int r = b.tensor(planned(kBytes));
  b.kernel(b.op("aten::neg", "out"), {y, r, r});
  b.outputs.push_back(r);
  EXPECT_EQ(prepared_and_agreeing(b), 0u);
}

// Two readers, their outputs in storage of their own: they read the convolution's output.
TEST(BatchNormFoldAlias, FoldsWhenTheConvolutionOutputStaysIntact) {
  test::ProgramBuilder b;
  const int y = conv_then_batch_norm(b);
  const int r = b.tensor(planned(2 * kBytes));
  b.kernel(b.op("aten::relu", "out"), {y, r, r});
  const int s = b.tensor(planned(3 * kBytes));
  b.kernel(b.op("aten::add", "out"), {y, r, b.int_value(1), s, s});
  b.outputs.push_back(s);
  EXPECT_GE(prepared_and_agreeing(b), 1u);
}

// A value planned in the convolution's output storage (dead after the batch norm) is written
// before the last reader of the batch norm's output: reading the convolution's output there
// would read that value, so the batch norm keeps running.
TEST(BatchNormFoldAlias, RefusesWhenTheConvolutionOutputIsOverwrittenFirst) {
  test::ProgramBuilder b;
  const int y = conv_then_batch_norm(b);
  const int z = b.tensor(planned(2 * kBytes));
  b.inputs.push_back(z);
  const int w = b.tensor(planned(kBytes));
  b.kernel(b.op("aten::relu", "out"), {z, w, w});
  const int s = b.tensor(planned(3 * kBytes));
  b.kernel(b.op("aten::add", "out"), {y, w, b.int_value(1), s, s});
  b.outputs.push_back(s);
  EXPECT_EQ(prepared_and_agreeing(b), 0u);
}

}  // namespace
