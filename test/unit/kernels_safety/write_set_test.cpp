// Which arguments the kernel library's kernels write, as their registration records it from
// the C++ signature (KernelWriteSet): every out tensor of a multi-output operator, the out
// lists of the operators returning nothing, the return slot; never an argument only read.
// Method load checks those places, so a crafted call that passes None as the return slot of
// a multi-output operator cannot hide its other outputs.
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/runtime/kernel/operator_registry.h>

#include "../common/log_capture.h"
#include "../method/program_builder.h"

namespace {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::Error;
using executorch::runtime::EValue;
namespace rt = executorch::runtime;

struct Case {
  const char* op;
  std::set<uint32_t> written;  // argument positions, the return slot included
};

// Positions from upstream's schemas (functions.yaml): schema arguments, then the return slot.
const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"aten::max.dim_max", {3, 4, 5}},
      {"aten::min.dim_min", {3, 4, 5}},
      {"aten::topk.values", {5, 6, 7}},
      {"aten::var_mean.correction_out", {4, 5, 6}},
      {"aten::native_dropout.out", {3, 4, 5}},
      {"aten::max_pool2d_with_indices.out", {6, 7, 8}},
      {"quantized_decomposed::choose_qparams.Tensor_out", {5, 6, 7}},
      {"quantized_decomposed::choose_qparams_per_token_asymmetric.out", {2, 3, 4}},
      {"aten::native_layer_norm.out", {5, 6, 7, 8}},
      {"aten::native_group_norm.out", {8, 9, 10, 11}},
      // running_mean and running_var are updated in place (Tensor(a!) in the schema).
      {"aten::_native_batch_norm_legit.out", {3, 4, 8, 9, 10, 11}},
      {"aten::_native_batch_norm_legit.no_stats_out", {6, 7, 8, 9}},
      {"aten::_native_batch_norm_legit_no_training.out", {7, 8, 9, 10}},
      {"aten::split_copy.Tensor_out", {3, 4}},
      {"aten::split_with_sizes_copy.out", {3, 4}},
      {"aten::unbind_copy.int_out", {2, 3}},
      {"aten::cat.out", {2, 3}},  // the input list is only read
      {"aten::add.out", {3, 4}},
  };
  return c;
}

class KernelWriteSets : public ::testing::TestWithParam<size_t> {};

TEST_P(KernelWriteSets, SignatureGivesTheWrittenArguments) {
  const Case& c = cases()[GetParam()];
  auto fn = rt::get_op_function_from_registry(c.op);
  ASSERT_TRUE(fn.ok()) << c.op;
  const rt::internal::KernelWriteSet* set = rt::internal::find_kernel_write_set(*fn);
  ASSERT_NE(set, nullptr) << c.op << " has no recorded write set";
  std::set<uint32_t> got;
  for (uint32_t a = 0; a < set->num_args; ++a) {
    if ((set->written >> a) & 1u) {
      got.insert(a);
    }
  }
  EXPECT_EQ(got, c.written) << c.op;
  EXPECT_EQ(set->num_args, *c.written.rbegin() + 1) << c.op << ": the return slot is last";
}

std::string case_name(const ::testing::TestParamInfo<size_t>& info) {
  std::string n = cases()[info.param].op;
  for (char& ch : n) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) {
      ch = '_';
    }
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(TupleAndListOutputs, KernelWriteSets,
                         ::testing::Range<size_t>(0, cases().size()), case_name);

// max.dim_max(self, dim, keepdim, max, max_values) with None as the return slot and `max` a
// dynamic input bound to the caller's 2 floats (bound 1000): the kernel would resize it to
// 1000 and write past the caller's buffer. The signature marks `max` written, so binding a
// buffer smaller than its capacity is refused before anything runs.
TEST(KernelWriteSetsEndToEnd, MaxDimWithANoneReturnSlotNeedsAFullBufferForItsOutput) {
  constexpr int32_t kRows = 1000;
  test::ProgramBuilder b;
  test::TensorSpec self_spec;
  self_spec.sizes = {kRows, 2};
  self_spec.mem_id = 1;
  const int self = b.tensor(self_spec);
  const int dim = b.int_value(1), keepdim = b.bool_value(false);
  test::TensorSpec max_spec;
  max_spec.sizes = {kRows};
  max_spec.dynamism = 1;  // DYNAMIC_BOUND, bound to the caller's buffer
  const int max = b.tensor(max_spec);
  test::TensorSpec idx_spec;
  idx_spec.dtype = 4;  // Long
  idx_spec.sizes = {kRows};
  idx_spec.mem_id = 1;
  idx_spec.offset = kRows * 2 * sizeof(float);
  const int indices = b.tensor(idx_spec);
  const int none = b.null_value();
  b.kernel(b.op("aten::max", "dim_max"), {self, dim, keepdim, max, indices, none});
  b.inputs = {max, self};
  b.outputs = {indices};
  b.buffer_sizes = {0, kRows * 2 * sizeof(float) + kRows * sizeof(int64_t)};
  test::clear_captured_logs();
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok) << test::captured_logs();
  EXPECT_TRUE(l->method->input_is_written(0));

  float two[2] = {0, 0};
  int32_t two_sizes[1] = {2};
  TensorImpl small(ScalarType::Float, 1, two_sizes, two);
  EXPECT_EQ(l->method->set_input(EValue(Tensor(&small)), 0), Error::InvalidArgument);
  EXPECT_NE(test::captured_logs().find("input 0 is written in place by the method"),
            std::string::npos)
      << test::captured_logs();

  // Bound to a buffer of its capacity, the call runs and writes the row maxima there.
  std::vector<float> maxima(kRows, -1.0f), rows(kRows * 2);
  for (int32_t r = 0; r < kRows; ++r) {
    rows[2 * r] = static_cast<float>(r);
    rows[2 * r + 1] = static_cast<float>(r) + 0.5f;
  }
  int32_t max_sizes[1] = {kRows};
  int32_t self_sizes[2] = {kRows, 2};
  TensorImpl max_impl(ScalarType::Float, 1, max_sizes, maxima.data());
  TensorImpl self_impl(ScalarType::Float, 2, self_sizes, rows.data());
  ASSERT_EQ(l->method->set_input(EValue(Tensor(&max_impl)), 0), Error::Ok);
  ASSERT_EQ(l->method->set_input(EValue(Tensor(&self_impl)), 1), Error::Ok);
  ASSERT_EQ(l->method->execute(), Error::Ok) << test::captured_logs();
  EXPECT_EQ(maxima[0], 0.5f);
  EXPECT_EQ(maxima[kRows - 1], kRows - 0.5f);
}

}  // namespace
