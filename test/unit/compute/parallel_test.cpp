// SGEMM and convolution split across the thread pool: at 1, 2, 3 and 4 threads the outputs
// must be bit-identical (only the output is split, never a reduction), at every ISA level, on
// shapes that take each split (columns, rows, both; the skinny dot path over columns and over
// rows; the few-row axpy path over column blocks; depthwise planes, im2col channels, bias/clamp
// channels). A product that large must also really run on the workers.
#include <gtest/gtest.h>

#include <cmath>
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
      {64, 40, 9000, Trans::kNo, Trans::kNo, 1.0f, 0.5f},   // skinny: dots over columns
      {4000, 1, 600, Trans::kNo, Trans::kNo, 1.0f, 0.0f},   // matrix-vector: dots over rows
      {1, 1000, 1280, Trans::kNo, Trans::kNo, 1.0f, 1.0f},  // linear at batch 1: axpys, columns
      {3, 1037, 900, Trans::kYes, Trans::kNo, 0.5f, 0.0f},  // axpys, a partial last block
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

// Random input, weight and bias for p, and the output's size.
struct ConvData {
  std::vector<float> x, w, bias;
  size_t out_size;
};

ConvData conv_data(const Conv2dParams& p, std::mt19937& rng) {
  ConvData d;
  d.x = random_floats(static_cast<size_t>(p.batch * p.in_channels * p.in_h * p.in_w), rng);
  d.w = random_floats(
      static_cast<size_t>(p.out_channels * p.in_channels / p.groups * p.kernel_h * p.kernel_w),
      rng);
  d.bias = random_floats(static_cast<size_t>(p.out_channels), rng);
  d.out_size =
      static_cast<size_t>(p.batch * p.out_channels * executorch::kernels::compute::conv2d_out_h(p) *
                          executorch::kernels::compute::conv2d_out_w(p));
  return d;
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
    const ConvData d = conv_data(p, rng_);
    const std::vector<float>&x = d.x, &w = d.w, &bias = d.bias;
    const size_t out_size = d.out_size;
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

// An A packed ahead of time (the convolution's weight) gives exactly sgemm's result at any
// thread count: shapes that cross the kc block, leave partial mr panels, and are split by rows
// (tall) or by columns (wide). So does no packed A: the tile is still picked for the shape (at
// AVX-512 the 8-row one for the last three) and the row-major A read in place, a short last
// row tile split in two (17 = 8 + 5 + 4, 33 = 3 * 8 + 5 + 4).
TEST_P(ParallelTest, PrepackedASgemmIsBitIdenticalAtAnyThreadCount) {
  namespace compute = executorch::kernels::compute;
  IsaScope isa(GetParam());
  const GemmShape shapes[] = {
      {301, 257, 700, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {1280, 49, 320, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {64, 3136, 576, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {17, 96, 5, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {30, 96, 300, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {33, 96, 500, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
  };
  for (const GemmShape& s : shapes) {
    SCOPED_TRACE(testing::Message() << "m=" << s.m << " n=" << s.n << " k=" << s.k);
    const std::vector<float> a = random_floats(static_cast<size_t>(s.m * s.k), rng_);
    const std::vector<float> b = random_floats(static_cast<size_t>(s.k * s.n), rng_);
    const std::vector<float> c0(static_cast<size_t>(s.m * s.n), std::nanf(""));
    std::vector<uint8_t> blob(compute::sgemm_packed_a_size(GetParam(), s.m, s.k) + 64);
    void* packed = blob.data() + (64 - reinterpret_cast<uintptr_t>(blob.data()) % 64) % 64;
    compute::sgemm_pack_a(GetParam(), s.m, s.k, a.data(), s.k, packed);
    ASSERT_TRUE(tp::set_num_threads(1));
    const std::vector<float> want = run_gemm(s, a, b, c0);
    for (const void* packed_a : {packed, static_cast<void*>(nullptr)})
      for (size_t threads : kThreadCounts) {
        ASSERT_TRUE(tp::set_num_threads(threads));
        std::vector<float> got = c0;
        compute::sgemm_with_packed_a(s.m, s.n, s.k, a.data(), s.k, b.data(), s.n, got.data(), s.n,
                                     packed_a);
        ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
            << threads << " threads" << (packed_a == nullptr ? ", A not packed" : "");
      }
    // A packed A that describes other operands (another lda) is not used: the A given is.
    std::vector<float> a2(a.size());
    for (size_t i = 0; i < a.size(); ++i)
      a2[i] = 2.0f * a[i];
    const std::vector<float> want2 = run_gemm(s, a2, b, c0);
    std::vector<float> padded_a2(static_cast<size_t>(s.m * (s.k + 1)));
    for (int64_t i = 0; i < s.m; ++i)
      std::memcpy(&padded_a2[static_cast<size_t>(i * (s.k + 1))], &a2[static_cast<size_t>(i * s.k)],
                  static_cast<size_t>(s.k) * sizeof(float));
    std::vector<float> got2 = c0;
    compute::sgemm_with_packed_a(s.m, s.n, s.k, padded_a2.data(), s.k + 1, b.data(), s.n,
                                 got2.data(), s.n, packed);
    ASSERT_EQ(std::memcmp(got2.data(), want2.data(), got2.size() * sizeof(float)), 0);
  }
}

// The bias + clamp epilogue, in the micro-kernel (full and edge tiles) or the driver, gives
// exactly the product followed by a separate pass over C, at any thread count: shapes with
// several k blocks (the epilogue goes with the last), partial tiles in both dims, and a clamp
// that the data crosses on both sides.
TEST_P(ParallelTest, SgemmEpilogueMatchesASeparatePass) {
  namespace compute = executorch::kernels::compute;
  IsaScope isa(GetParam());
  const GemmShape shapes[] = {
      {301, 257, 700, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {96, 1000, 32, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {3, 50, 9, Trans::kNo, Trans::kNo, 1.0f, 0.0f},  // a few rows: not the tiled path
  };
  for (const GemmShape& s : shapes) {
    SCOPED_TRACE(testing::Message() << "m=" << s.m << " n=" << s.n << " k=" << s.k);
    const std::vector<float> a = random_floats(static_cast<size_t>(s.m * s.k), rng_);
    const std::vector<float> b = random_floats(static_cast<size_t>(s.k * s.n), rng_);
    const std::vector<float> bias = random_floats(static_cast<size_t>(s.m), rng_);
    const std::vector<float> c0(static_cast<size_t>(s.m * s.n), std::nanf(""));
    const compute::SgemmEpilogue epi{bias.data(), -0.5f, 0.75f};
    ASSERT_TRUE(tp::set_num_threads(1));
    std::vector<float> want = run_gemm(s, a, b, c0);
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j) {
        float& v = want[static_cast<size_t>(i * s.n + j)];
        v += bias[static_cast<size_t>(i)];
        v = v < epi.lo ? epi.lo : (v > epi.hi ? epi.hi : v);
      }
    for (size_t threads : kThreadCounts) {
      ASSERT_TRUE(tp::set_num_threads(threads));
      std::vector<float> got = c0;
      compute::sgemm_with_packed_a(s.m, s.n, s.k, a.data(), s.k, b.data(), s.n, got.data(), s.n,
                                   nullptr, nullptr, 0, &epi);
      ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
          << threads << " threads";
    }
  }
}

// An A packed for the register tile that suits its product (the n hint: AVX-512 has a second,
// 8-row tile for products with few rows) gives exactly sgemm's result, with the epilogue, at
// any thread count: row counts that the tiles fill differently, edge tiles in both dims, and
// products deeper than one kc block.
TEST_P(ParallelTest, PackedAForEitherTileIsBitIdentical) {
  namespace compute = executorch::kernels::compute;
  IsaScope isa(GetParam());
  const GemmShape shapes[] = {
      {32, 500, 27, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {16, 97, 200, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {24, 49, 300, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {64, 3136, 576, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {42, 130, 64, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
  };
  for (const GemmShape& s : shapes) {
    const std::vector<float> a = random_floats(static_cast<size_t>(s.m * s.k), rng_);
    const std::vector<float> b = random_floats(static_cast<size_t>(s.k * s.n), rng_);
    const std::vector<float> bias = random_floats(static_cast<size_t>(s.m), rng_);
    const std::vector<float> c0(static_cast<size_t>(s.m * s.n), std::nanf(""));
    const compute::SgemmEpilogue epi{bias.data(), -0.5f, 0.75f};
    ASSERT_TRUE(tp::set_num_threads(1));
    std::vector<float> want = run_gemm(s, a, b, c0);
    for (float& v : want) {
      const size_t i = static_cast<size_t>(&v - want.data()) / static_cast<size_t>(s.n);
      v += bias[i];
      v = v < epi.lo ? epi.lo : (v > epi.hi ? epi.hi : v);
    }
    for (const int64_t n_hint : {int64_t{0}, s.n}) {
      SCOPED_TRACE(testing::Message()
                   << "m=" << s.m << " n=" << s.n << " k=" << s.k << " packed for n=" << n_hint);
      std::vector<uint8_t> blob(compute::sgemm_packed_a_size(GetParam(), s.m, s.k, n_hint) + 64);
      void* packed = blob.data() + (64 - reinterpret_cast<uintptr_t>(blob.data()) % 64) % 64;
      compute::sgemm_pack_a(GetParam(), s.m, s.k, a.data(), s.k, packed, n_hint);
      for (const void* packed_a :
           {static_cast<const void*>(nullptr), static_cast<const void*>(packed)}) {
        for (size_t threads : kThreadCounts) {
          ASSERT_TRUE(tp::set_num_threads(threads));
          std::vector<float> got = c0;
          compute::sgemm_with_packed_a(s.m, s.n, s.k, a.data(), s.k, b.data(), s.n, got.data(), s.n,
                                       packed_a, nullptr, 0, &epi);
          ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
              << threads << " threads, packed " << (packed_a != nullptr);
        }
      }
    }
  }
}

// A row-major k x n B handed to the SGEMM through an SgemmBPacker, written with plain loops from
// the packer's contract (gemm.h), independently of the driver's own pack_b.
struct RowMajorB {
  const float* b;
  int64_t ldb;
};

void pack_row_major_b(const void* ctx, int64_t p0, int64_t kc, int64_t j0, int64_t nc, int64_t nr,
                      float* dst) {
  const RowMajorB& src = *static_cast<const RowMajorB*>(ctx);
  for (int64_t jj = 0; jj < (nc + nr - 1) / nr * nr; ++jj)
    for (int64_t p = 0; p < kc; ++p)
      dst[jj / nr * kc * nr + p * nr + jj % nr] =
          jj < nc ? src.b[(p0 + p) * src.ldb + j0 + jj] : 0.0f;
}

// B from a packer (the convolution's im2col straight into panels) gives exactly the product on
// the stored B, with a packed or unpacked A and the epilogue, at any thread count: the splits
// hand the packer column offsets, and the shapes cross the kc block and leave edge tiles.
TEST_P(ParallelTest, BPackerIsBitIdenticalAtAnyThreadCount) {
  namespace compute = executorch::kernels::compute;
  IsaScope isa(GetParam());
  const GemmShape shapes[] = {
      {64, 3136, 576, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {37, 70, 300, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {9, 33, 17, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
  };
  for (const GemmShape& s : shapes) {
    SCOPED_TRACE(testing::Message() << "m=" << s.m << " n=" << s.n << " k=" << s.k);
    ASSERT_TRUE(compute::sgemm_packed_a_tiles(s.m, s.n, s.k));
    const std::vector<float> a = random_floats(static_cast<size_t>(s.m * s.k), rng_);
    const std::vector<float> b = random_floats(static_cast<size_t>(s.k * s.n), rng_);
    const std::vector<float> bias = random_floats(static_cast<size_t>(s.m), rng_);
    const std::vector<float> c0(static_cast<size_t>(s.m * s.n), std::nanf(""));
    const compute::SgemmEpilogue epi{bias.data(), -0.5f, 0.75f};
    std::vector<uint8_t> blob(compute::sgemm_packed_a_size(GetParam(), s.m, s.k) + 64);
    void* packed = blob.data() + (64 - reinterpret_cast<uintptr_t>(blob.data()) % 64) % 64;
    compute::sgemm_pack_a(GetParam(), s.m, s.k, a.data(), s.k, packed);
    const RowMajorB src{b.data(), s.n};
    const compute::SgemmBPacker packer{pack_row_major_b, &src};
    for (const void* packed_a :
         {static_cast<const void*>(nullptr), static_cast<const void*>(packed)}) {
      ASSERT_TRUE(tp::set_num_threads(1));
      std::vector<float> want = c0;
      compute::sgemm_with_packed_a(s.m, s.n, s.k, a.data(), s.k, b.data(), s.n, want.data(), s.n,
                                   packed_a, nullptr, 0, &epi);
      for (size_t threads : kThreadCounts) {
        ASSERT_TRUE(tp::set_num_threads(threads));
        std::vector<float> got = c0;
        compute::sgemm_with_packed_a_b_packer(s.m, s.n, s.k, a.data(), s.k, packer, got.data(), s.n,
                                              packed_a, nullptr, 0, &epi);
        ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
            << threads << " threads, packed A " << (packed_a != nullptr);
      }
    }
  }
}

// A convolution with its weight packed ahead of time gives exactly the unpacked result at any
// thread count; a packed weight that does not fit the call (other groups) is ignored.
TEST_P(ParallelTest, PackedWeightConvIsBitIdenticalAtAnyThreadCount) {
  namespace compute = executorch::kernels::compute;
  IsaScope isa(GetParam());
  Conv2dParams relu6 = conv(2, 32, 20, 40, 3, 2, 1, 1);
  relu6.clamp_min = 0.0f;
  relu6.clamp_max = 6.0f;
  const Conv2dParams cases[] = {
      conv(1, 3, 224, 32, 3, 2, 1, 1),    // stem: im2col in bands
      relu6,                              // batch 2, stride 2, fused clamp
      conv(1, 320, 7, 1280, 1, 1, 0, 1),  // pointwise, tall: split by rows
      conv(1, 40, 14, 90, 1, 1, 0, 1),    // pointwise, the last columns as dot products
      conv(1, 64, 14, 64, 3, 1, 1, 4),    // grouped
      conv(1, 24, 9, 30, 1, 2, 0, 3),     // 1x1 stride 2 through im2col, grouped
  };
  for (const Conv2dParams& p : cases) {
    SCOPED_TRACE(testing::Message() << "Ci=" << p.in_channels << " HW=" << p.in_h << " Co="
                                    << p.out_channels << " k=" << p.kernel_h << " g=" << p.groups);
    const ConvData d = conv_data(p, rng_);
    const std::vector<float>&x = d.x, &w = d.w, &bias = d.bias;
    const size_t out_size = d.out_size;
    const size_t bytes = compute::conv2d_packed_weight_size(p);
    ASSERT_GT(bytes, 0u);
    std::vector<uint8_t> blob(bytes + 64);
    void* packed = blob.data() + (64 - reinterpret_cast<uintptr_t>(blob.data()) % 64) % 64;
    ASSERT_TRUE(compute::conv2d_pack_weight(p, w.data(), packed));
    auto run = [&](const Conv2dParams& q, const void* pw) {
      std::vector<float> y(out_size, std::nanf(""));
      EXPECT_TRUE(compute::conv2d_nchw_packed(q, x.data(), w.data(), pw, bias.data(), y.data()));
      return y;
    };
    ASSERT_TRUE(tp::set_num_threads(1));
    const std::vector<float> want = run(p, nullptr);
    for (size_t threads : kThreadCounts) {
      ASSERT_TRUE(tp::set_num_threads(threads));
      const std::vector<float> got = run(p, packed);
      ASSERT_EQ(std::memcmp(got.data(), want.data(), out_size * sizeof(float)), 0)
          << threads << " threads";
    }
    if (p.groups == 1 && p.in_channels % 2 == 0 && p.out_channels % 2 == 0) {
      // The same weight read as two groups (half the input channels each, so the weight
      // tensor is the same size): the blob packed for one group must not be used.
      Conv2dParams q = p;
      q.groups = 2;
      q.in_channels = p.in_channels * 2;
      const std::vector<float> x2 =
          random_floats(static_cast<size_t>(q.batch * q.in_channels * q.in_h * q.in_w), rng_);
      std::vector<float> y_plain(out_size), y_blob(out_size);
      ASSERT_TRUE(compute::conv2d_nchw(q, x2.data(), w.data(), bias.data(), y_plain.data()));
      ASSERT_TRUE(
          compute::conv2d_nchw_packed(q, x2.data(), w.data(), packed, bias.data(), y_blob.data()));
      ASSERT_EQ(std::memcmp(y_blob.data(), y_plain.data(), out_size * sizeof(float)), 0);
    }
  }
}

// Convolutions whose im2col is cut into several bands run the bands across the threads, each
// band's im2col, SGEMM and epilogue on one thread. The same bits at any thread count, on odd
// shapes: a short last band, groups, batch 2, stride and padding, a fused activation applied
// band by band, and a packed weight.
TEST_P(ParallelTest, Im2colBandsAreBitIdenticalAtAnyThreadCount) {
  namespace compute = executorch::kernels::compute;
  IsaScope isa(GetParam());
  Conv2dParams silu = conv(1, 300, 29, 13, 3, 1, 1, 1);  // 10 bands of 3 rows, the last of 2
  silu.activation = executorch::kernels::compute::Activation::kSilu;
  Conv2dParams hardswish_clamped = conv(2, 2 * 150, 31, 2 * 7, 3, 2, 2, 2);  // groups, batch 2
  hardswish_clamped.activation = executorch::kernels::compute::Activation::kHardswish;
  hardswish_clamped.clamp_min = -0.5f;
  hardswish_clamped.clamp_max = 0.5f;
  // 128 channels at 33x33: bands straight into the SGEMM's panels, with the last columns past
  // whole tiles as dot products (AVX-512: bands of 3 rows, the last 3 of their 99 columns).
  const Conv2dParams cases[] = {silu, hardswish_clamped, conv(1, 64, 56, 64, 3, 1, 1, 1),
                                conv(1, 3, 225, 17, 7, 2, 3, 1), conv(1, 128, 33, 40, 3, 1, 1, 1)};
  for (const Conv2dParams& p : cases) {
    SCOPED_TRACE(testing::Message()
                 << "Ci=" << p.in_channels << " HW=" << p.in_h << " Co=" << p.out_channels
                 << " k=" << p.kernel_h << " g=" << p.groups << " N=" << p.batch);
    const ConvData d = conv_data(p, rng_);
    std::vector<uint8_t> blob(compute::conv2d_packed_weight_size(p) + 64);
    void* packed = blob.data() + (64 - reinterpret_cast<uintptr_t>(blob.data()) % 64) % 64;
    ASSERT_TRUE(compute::conv2d_pack_weight(p, d.w.data(), packed));
    auto run = [&](const void* pw) {
      std::vector<float> y(d.out_size, std::nanf(""));
      EXPECT_TRUE(
          compute::conv2d_nchw_packed(p, d.x.data(), d.w.data(), pw, d.bias.data(), y.data()));
      return y;
    };
    ASSERT_TRUE(tp::set_num_threads(1));
    const std::vector<float> want = run(nullptr);
    for (size_t threads : kThreadCounts) {
      ASSERT_TRUE(tp::set_num_threads(threads));
      for (const void* pw : {static_cast<const void*>(nullptr), static_cast<const void*>(packed)}) {
        const std::vector<float> got = run(pw);
        ASSERT_EQ(std::memcmp(got.data(), want.data(), d.out_size * sizeof(float)), 0)
            << threads << " threads, packed " << (pw != nullptr);
      }
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

INSTANTIATE_TEST_SUITE_P(Isa, ParallelTest, ::testing::ValuesIn(compute_test::float_isas()),
                         compute_test::isa_param_name);

}  // namespace
