// The exported spans (vmath_span.h) give exactly the vector math table's results for the active
// level, in place or not, at any length (across the chunks they are split into) and at any
// thread count.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/runtime/kernels/compute/vmath.h>
#include <executorch/runtime/kernels/compute/vmath_span.h>

#include "test_util.h"

namespace {

namespace compute = executorch::kernels::compute;
namespace tp = executorch::extension::threadpool;
using compute::Isa;

class VmathSpanTest : public testing::TestWithParam<Isa> {
 protected:
  std::mt19937 rng_{11};
};

TEST_P(VmathSpanTest, MatchesTheTableAtAnyLengthAndThreadCount) {
  compute_test::IsaScope isa(GetParam());
  using Span = void (*)(const float*, float*, int64_t);
  struct Case {
    const char* name;
    Span span;
    void (*table)(const float*, float*, int64_t);
  };
  const compute::VmathKernels& vm = compute::vmath();
  const Case cases[] = {{"exp", compute::span_exp, vm.exp},
                        {"sigmoid", compute::span_sigmoid, vm.sigmoid},
                        {"tanh", compute::span_tanh, vm.tanh},
                        {"gelu", compute::span_gelu, vm.gelu},
                        {"sigmoid_mul", compute::span_sigmoid_mul, vm.sigmoid_mul}};
  for (const Case& c : cases) {
    for (int64_t n : {0, 1, 17, 4095, 4096, 4097, 40000}) {
      SCOPED_TRACE(testing::Message() << c.name << " n " << n);
      const std::vector<float> x = compute_test::random_floats(static_cast<size_t>(n), rng_, -9, 9);
      std::vector<float> want(x.size());
      c.table(x.data(), want.data(), n);
      for (size_t threads : {1, 2, 3}) {
        ASSERT_TRUE(tp::set_num_threads(threads));
        std::vector<float> got(x.size(), -1.0f);
        c.span(x.data(), got.data(), n);
        EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0) << threads;
        std::vector<float> in_place = x;
        c.span(in_place.data(), in_place.data(), n);
        EXPECT_EQ(std::memcmp(in_place.data(), want.data(), want.size() * sizeof(float)), 0)
            << threads << " threads, in place";
      }
      ASSERT_TRUE(tp::set_num_threads(1));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Isa, VmathSpanTest, testing::ValuesIn(compute_test::supported_isas()),
                         compute_test::isa_param_name);

}  // namespace
