// SGEMM and convolution split across the thread pool: at 1, 2, 3 and 4 threads the outputs
// must be bit-identical (only the output is split, never a reduction), at every ISA level, on
// shapes that take each split (columns, rows, both; the skinny dot path over columns and over
// rows; depthwise planes, im2col channels, bias/clamp channels). A product that large must
// also really run on the workers.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/runtime/kernels/compute/conv.h>
#include <executorch/runtime/kernels/compute/gemm.h>

#include "test_util.h"

namespace {

using compute_test::IsaScope;
using compute_test::random_floats;
using executorch::kernels::compute::Conv2dParams;
using executorch::kernels::compute::Isa;
using executorch::kernels::compute::Trans;
namespace tp = executorch::extension::threadpool;

constexpr size_t kThreadCounts[] = {1, 2, 3, 4};

struct GemmShape {
  int64_t m, n, k;
  Trans ta, tb;
  float alpha, beta;
};

std::vector<float> run_gemm(const GemmShape& s, const std::vector<float>& a,
                            const std::vector<float>& b, const std::vector<float>& c0) {
  std::vector<float> c = c0;
  const int64_t lda = s.ta == Trans::kNo ? s.k : s.m;
  const int64_t ldb = s.tb == Trans::kNo ? s.n : s.k;
  executorch::kernels::compute::sgemm(s.ta, s.tb, s.m, s.n, s.k, s.alpha, a.data(), lda, b.data(),
                                      ldb, s.beta, c.data(), s.n);
  return c;
}

class ParallelTest : public ::testing::TestWithParam<Isa> {
 protected:
  void TearDown() override {
    EXPECT_TRUE(tp::set_num_threads(0));
  }
  std::mt19937 rng_{1234};
};

TEST_P(ParallelTest, SgemmIsBitIdenticalAtAnyThreadCount) {
  IsaScope isa(GetParam());
  const GemmShape shapes[] = {
      {512, 512, 512, Trans::kNo, Trans::kNo, 1.0f, 0.0f},     // both dims split
      {32, 12544, 27, Trans::kNo, Trans::kNo, 1.0f, 0.0f},     // conv-like: columns
      {1000, 20, 300, Trans::kNo, Trans::kYes, 1.0f, 1.0f},    // linear-like: rows
      {301, 257, 700, Trans::kYes, Trans::kNo, 0.5f, -0.75f},  // edge tiles, beta, k blocks
      {129, 1031, 129, Trans::kYes, Trans::kYes, 2.0f, 0.25f},
      {64, 40, 9000, Trans::kNo, Trans::kNo, 1.0f, 0.5f},  // skinny: dots over columns
      {4000, 1, 600, Trans::kNo, Trans::kNo, 1.0f, 0.0f},  // matrix-vector: dots over rows
  };
  for (const GemmShape& s : shapes) {
    SCOPED_TRACE(testing::Message() << "m=" << s.m << " n=" << s.n << " k=" << s.k);
    const std::vector<float> a = random_floats(static_cast<size_t>(s.m * s.k), rng_);
    const std::vector<float> b = random_floats(static_cast<size_t>(s.k * s.n), rng_);
    const std::vector<float> c0 = random_floats(static_cast<size_t>(s.m * s.n), rng_);
    ASSERT_TRUE(tp::set_num_threads(1));
    const std::vector<float> want = run_gemm(s, a, b, c0);
    for (size_t threads : kThreadCounts) {
      ASSERT_TRUE(tp::set_num_threads(threads));
      const std::vector<float> got = run_gemm(s, a, b, c0);
      ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
          << threads << " threads";
    }
  }
}

// A prepacked B holds the panels of the whole width, so a split product cuts only its rows; it
// must still give exactly the unsplit, unpacked product at every thread count.
TEST_P(ParallelTest, PrepackedSgemmIsBitIdenticalAtAnyThreadCount) {
  namespace compute = executorch::kernels::compute;
  IsaScope isa(GetParam());
  const GemmShape shapes[] = {
      {512, 512, 512, Trans::kNo, Trans::kNo, 1.0f, 0.0f},     // several jc and pc blocks
      {1000, 20, 300, Trans::kNo, Trans::kYes, 1.0f, 1.0f},    // linear-like weight
      {301, 257, 700, Trans::kYes, Trans::kNo, 0.5f, -0.75f},  // edge tiles, beta
  };
  for (const GemmShape& s : shapes) {
    SCOPED_TRACE(testing::Message() << "m=" << s.m << " n=" << s.n << " k=" << s.k);
    ASSERT_TRUE(compute::sgemm_packs_b(GetParam(), s.ta, s.tb, s.m, s.n, s.k));
    const std::vector<float> a = random_floats(static_cast<size_t>(s.m * s.k), rng_);
    const std::vector<float> b = random_floats(static_cast<size_t>(s.k * s.n), rng_);
    const std::vector<float> c0 = random_floats(static_cast<size_t>(s.m * s.n), rng_);
    const int64_t lda = s.ta == Trans::kNo ? s.k : s.m;
    const int64_t ldb = s.tb == Trans::kNo ? s.n : s.k;
    std::vector<uint8_t> blob(compute::sgemm_packed_b_size(GetParam(), s.k, s.n) + 64);
    void* packed = blob.data() + (64 - reinterpret_cast<uintptr_t>(blob.data()) % 64) % 64;
    compute::sgemm_pack_b(GetParam(), s.tb, s.k, s.n, b.data(), ldb, packed);
    ASSERT_TRUE(tp::set_num_threads(1));
    const std::vector<float> want = run_gemm(s, a, b, c0);
    for (size_t threads : kThreadCounts) {
      ASSERT_TRUE(tp::set_num_threads(threads));
      std::vector<float> got = c0;
      compute::sgemm_with_packed_b(s.ta, s.tb, s.m, s.n, s.k, s.alpha, a.data(), lda, b.data(), ldb,
                                   s.beta, got.data(), s.n, packed);
      ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
          << threads << " threads";
    }
  }
}

TEST_P(ParallelTest, LargeSgemmRunsOnTheWorkers) {
  IsaScope isa(GetParam());
  ASSERT_TRUE(tp::set_num_threads(3));  // workers stopped; the next region starts them
  ASSERT_EQ(tp::get_threadpool()->num_started_workers(), 0u);
  const GemmShape s{256, 256, 256, Trans::kNo, Trans::kNo, 1.0f, 0.0f};
  const std::vector<float> a = random_floats(256 * 256, rng_);
  run_gemm(s, a, a, a);
  EXPECT_EQ(tp::get_threadpool()->num_started_workers(), 2u);
  // A small product stays on the caller.
  ASSERT_TRUE(tp::set_num_threads(3));
  const GemmShape small{16, 16, 16, Trans::kNo, Trans::kNo, 1.0f, 0.0f};
  run_gemm(small, a, a, a);
  EXPECT_EQ(tp::get_threadpool()->num_started_workers(), 0u);
}

Conv2dParams conv(int64_t n, int64_t ci, int64_t hw, int64_t co, int64_t k, int64_t s, int64_t pad,
                  int64_t groups) {
  Conv2dParams p;
  p.batch = n;
  p.in_channels = ci;
  p.in_h = p.in_w = hw;
  p.out_channels = co;
  p.kernel_h = p.kernel_w = k;
  p.stride_h = p.stride_w = s;
  p.pad_h = p.pad_w = pad;
  p.groups = groups;
  return p;
}

TEST_P(ParallelTest, ConvIsBitIdenticalAtAnyThreadCount) {
  IsaScope isa(GetParam());
  Conv2dParams relu6 = conv(1, 32, 56, 64, 3, 1, 1, 1);
  relu6.clamp_min = 0.0f;
  relu6.clamp_max = 6.0f;
  const Conv2dParams cases[] = {
      conv(1, 3, 224, 32, 3, 2, 1, 1),      // stem: im2col + columns
      relu6,                                // fused clamp
      conv(2, 96, 56, 96, 3, 1, 1, 96),     // depthwise 3x3, batch 2
      conv(1, 144, 28, 144, 5, 2, 2, 144),  // depthwise 5x5 stride 2
      conv(1, 64, 28, 128, 1, 1, 0, 1),     // pointwise
      conv(1, 64, 14, 64, 3, 1, 1, 4),      // grouped
  };
  for (const Conv2dParams& p : cases) {
    SCOPED_TRACE(testing::Message()
                 << "Ci=" << p.in_channels << " HW=" << p.in_h << " Co=" << p.out_channels
                 << " k=" << p.kernel_h << " g=" << p.groups << " N=" << p.batch);
    const int64_t oh = executorch::kernels::compute::conv2d_out_h(p);
    const int64_t ow = executorch::kernels::compute::conv2d_out_w(p);
    const std::vector<float> x =
        random_floats(static_cast<size_t>(p.batch * p.in_channels * p.in_h * p.in_w), rng_);
    const std::vector<float> w = random_floats(
        static_cast<size_t>(p.out_channels * p.in_channels / p.groups * p.kernel_h * p.kernel_w),
        rng_);
    const std::vector<float> bias = random_floats(static_cast<size_t>(p.out_channels), rng_);
    const size_t out_size = static_cast<size_t>(p.batch * p.out_channels * oh * ow);
    auto run = [&] {
      std::vector<float> y(out_size, -1.0f);
      EXPECT_TRUE(
          executorch::kernels::compute::conv2d_nchw(p, x.data(), w.data(), bias.data(), y.data()));
      return y;
    };
    ASSERT_TRUE(tp::set_num_threads(1));
    const std::vector<float> want = run();
    for (size_t threads : kThreadCounts) {
      ASSERT_TRUE(tp::set_num_threads(threads));
      const std::vector<float> got = run();
      ASSERT_EQ(std::memcmp(got.data(), want.data(), out_size * sizeof(float)), 0)
          << threads << " threads";
    }
  }
}

TEST_P(ParallelTest, DepthwiseConvRunsOnTheWorkers) {
  IsaScope isa(GetParam());
  const Conv2dParams p = conv(1, 96, 56, 96, 3, 1, 1, 96);
  const std::vector<float> x = random_floats(96 * 56 * 56, rng_);
  const std::vector<float> w = random_floats(96 * 9, rng_);
  std::vector<float> y(96 * 56 * 56);
  ASSERT_TRUE(tp::set_num_threads(2));
  ASSERT_EQ(tp::get_threadpool()->num_started_workers(), 0u);
  ASSERT_TRUE(executorch::kernels::compute::conv2d_nchw(p, x.data(), w.data(), nullptr, y.data()));
  EXPECT_EQ(tp::get_threadpool()->num_started_workers(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Isa, ParallelTest, ::testing::ValuesIn(compute_test::supported_isas()),
                         compute_test::isa_param_name);

}  // namespace
