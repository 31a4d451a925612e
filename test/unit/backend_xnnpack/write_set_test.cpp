// What an XNNPACK delegate writes is decided by its payload: the graph's outputs, wherever the
// DelegateCall puts them. XnnpackBackend reports them from init, and Method load checks those
// places: a constant there is refused, a caller-bound input there needs a buffer of its whole
// capacity (the backend resizes an output to the graph's shape before writing it).
#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "../common/log_capture.h"
#include "../method/program_builder.h"
#include "xnn_test_util.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using xnn_test::GraphWriter;
using T = xnn_test::fb::XNodeUnion;

namespace {

constexpr int8_t kDynamicBound = 1;
constexpr uint32_t kBound = 1000;

// y = tanh(x) with y as external 0 and x as external 1: the call's FIRST argument is the one
// the delegate writes, its last one is only read.
std::vector<uint8_t> first_argument_is_output() {
  GraphWriter g;
  const uint32_t y = g.value({kBound}, 0, /*output=*/true);
  const uint32_t x = g.value({kBound}, 1);
  g.unary(T::XNNTanh, x, y);
  return g.payload();
}

test::TensorSpec planned_f32(uint32_t n, uint64_t offset) {
  test::TensorSpec s;
  s.sizes = {static_cast<int32_t>(n)};
  s.mem_id = 1;
  s.offset = offset;
  return s;
}

// A constant of kBound floats, all `value` (the builder copies the data).
int constant_f32(test::ProgramBuilder& b, float value) {
  std::vector<float> data(kBound, value);
  test::TensorSpec cs;
  cs.sizes = {static_cast<int32_t>(kBound)};
  cs.data_buffer_idx = b.constant(data.data(), data.size() * sizeof(float));
  return b.tensor(cs);
}

bool logged(const std::string& needle) {
  return test::captured_logs().find(needle) != std::string::npos;
}

// The confirmed overflow: the caller binds a 2-float buffer to a dynamic input whose bound is
// 1000 floats, and the payload makes that argument its output.
TEST(XnnpackWriteSet, CallerBoundInputWrittenByThePayloadNeedsItsCapacity) {
  test::ProgramBuilder b;
  test::TensorSpec in_spec;
  in_spec.sizes = {static_cast<int32_t>(kBound)};
  in_spec.dynamism = kDynamicBound;
  const int a = b.tensor(in_spec);  // unplanned: the caller's buffer
  const int x = b.tensor(planned_f32(kBound, 0));
  b.delegate_call(b.delegate("XnnpackBackend", first_argument_is_output()), {a, x});
  b.inputs = {a, x};
  b.outputs = {x};
  b.buffer_sizes = {0, kBound * sizeof(float)};
  test::clear_captured_logs();
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok) << test::captured_logs();
  EXPECT_TRUE(l->method->input_is_written(0));
  EXPECT_FALSE(l->method->input_is_written(1));

  float two[2] = {5, 6};
  int32_t two_sizes[1] = {2};
  TensorImpl small(ScalarType::Float, 1, two_sizes, two);
  EXPECT_EQ(l->method->set_input(EValue(Tensor(&small)), 0), Error::InvalidArgument);
  EXPECT_TRUE(logged("input 0 is written in place by the method and may grow to 4000 bytes"))
      << test::captured_logs();

  std::vector<float> full(kBound, 0.0f), xs(kBound);
  for (uint32_t i = 0; i < kBound; ++i) {
    xs[i] = static_cast<float>(i) / kBound - 0.5f;
  }
  int32_t full_sizes[1] = {static_cast<int32_t>(kBound)};
  TensorImpl full_impl(ScalarType::Float, 1, full_sizes, full.data());
  TensorImpl x_impl(ScalarType::Float, 1, full_sizes, xs.data());
  ASSERT_EQ(l->method->set_input(EValue(Tensor(&full_impl)), 0), Error::Ok);
  ASSERT_EQ(l->method->set_input(EValue(Tensor(&x_impl)), 1), Error::Ok);
  ASSERT_EQ(l->method->execute(), Error::Ok) << test::captured_logs();
  for (uint32_t i = 0; i < kBound; i += 97) {
    EXPECT_NEAR(full[i], std::tanh(xs[i]), 1e-6f) << i;
  }
}

TEST(XnnpackWriteSet, ConstantWrittenByThePayloadIsRefusedAtLoad) {
  test::ProgramBuilder b;
  const int c = constant_f32(b, 1.0f);
  const int x = b.tensor(planned_f32(kBound, 0));
  b.delegate_call(b.delegate("XnnpackBackend", first_argument_is_output()), {c, x});
  b.inputs = {x};
  b.outputs = {x};
  b.buffer_sizes = {0, kBound * sizeof(float)};
  test::clear_captured_logs();
  auto l = test::load(b.finish());
  EXPECT_EQ(l->method_error, Error::InvalidProgram);
  EXPECT_TRUE(
      logged("DelegateCall (XnnpackBackend) args[0]: writes value 0, a constant tensor "
             "(written arguments from the backend's report)"))
      << test::captured_logs();
}

// The reported outputs replace the position rule: a constant in the last place of the call,
// which this payload only reads, is fine.
TEST(XnnpackWriteSet, ConstantThePayloadOnlyReadsLoads) {
  test::ProgramBuilder b;
  const int c = constant_f32(b, 0.25f);
  const int y = b.tensor(planned_f32(kBound, 0));
  b.delegate_call(b.delegate("XnnpackBackend", first_argument_is_output()), {y, c});
  b.inputs = {};
  b.outputs = {y};
  b.buffer_sizes = {0, kBound * sizeof(float)};
  test::clear_captured_logs();
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok) << test::captured_logs();
  ASSERT_EQ(l->method->execute(), Error::Ok) << test::captured_logs();
  EXPECT_NEAR(l->method->get_output(0).toTensor().const_data_ptr<float>()[7], std::tanh(0.25f),
              1e-6f);
}

}  // namespace
