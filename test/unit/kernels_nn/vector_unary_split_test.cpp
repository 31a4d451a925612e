// The float32 vector path of the unary kernels (exp, tanh, sigmoid through the compute core's
// vector math) split across the thread pool: at 2 and 3 threads the output must be bit-identical
// to the one at 1 thread, for a length that is no multiple of any vector width or block, also
// when the output aliases the input. The chunk minimum is one item in this binary
// (pooling_paths_test.cpp sets it), so the split is taken.
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/extension/threadpool/threadpool.h>

#include "../kernels_elementwise/kernel_test_util.h"

using executorch::aten::ScalarType;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using kernel_test::call_op;
using kernel_test::OwnedTensor;

namespace {

std::vector<uint8_t> run_unary(const char* op, const std::vector<float>& x, bool in_place) {
  const int32_t n = static_cast<int32_t>(x.size());
  OwnedTensor in(ScalarType::Float, {3, n / 3});
  in.set_logical(reinterpret_cast<const uint8_t*>(x.data()));
  OwnedTensor out(ScalarType::Float, {3, n / 3});
  EValue ein(in.tensor()), eout(in_place ? in.tensor() : out.tensor());
  EXPECT_EQ(call_op(op, {&ein, &eout, &eout}), Error::Ok) << op;
  return kernel_test::logical_bytes(in_place ? in.tensor() : out.tensor());
}

TEST(VectorUnarySplit, OutputsDoNotDependOnTheThreadCount) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> d(-12.0f, 12.0f);
  std::vector<float> x(3 * 1237);
  for (float& v : x) {
    v = d(rng);
  }
  for (const char* op : {"aten::exp.out", "aten::tanh.out", "aten::sigmoid.out"}) {
    for (bool in_place : {false, true}) {
      SCOPED_TRACE(testing::Message() << op << (in_place ? " in place" : ""));
      ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(1));
      const std::vector<uint8_t> want = run_unary(op, x, in_place);
      for (size_t threads : {2, 3}) {
        ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(threads));
        EXPECT_TRUE(run_unary(op, x, in_place) == want) << threads << " threads";
      }
    }
  }
  EXPECT_TRUE(executorch::extension::threadpool::set_num_threads(0));
}

}  // namespace
