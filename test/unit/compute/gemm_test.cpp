// SGEMM against a double-accumulation reference, at every ISA level the CPU supports.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include <executorch/runtime/kernels/compute/gemm.h>
#include <executorch/runtime/kernels/compute/isa.h>

#include "test_util.h"

namespace {

using compute_test::random_floats;
using executorch::kernels::compute::active_isa;
using executorch::kernels::compute::clear_isa_override;
using executorch::kernels::compute::detected_isa;
using executorch::kernels::compute::Isa;
using executorch::kernels::compute::parse_isa;
using executorch::kernels::compute::set_isa_override;
using executorch::kernels::compute::sgemm;
using executorch::kernels::compute::sgemm_isa;
using executorch::kernels::compute::sgemm_workspace_size;
using executorch::kernels::compute::Trans;

struct Case {
  int64_t m, n, k;
  Trans ta, tb;
  float alpha, beta;
  int64_t pad_a = 0, pad_b = 0, pad_c = 0;  // extra elements per stored row
};

constexpr float kSentinel = 12345.0f;

// Runs one case at `isa` and checks every element of C, plus that the padding between rows of
// C (beyond n) is untouched.
void check_case(Isa isa, const Case& cs, std::mt19937& rng, bool use_workspace,
                bool nan_c = false) {
  SCOPED_TRACE(testing::Message() << "m=" << cs.m << " n=" << cs.n << " k=" << cs.k << " ta="
                                  << int(cs.ta) << " tb=" << int(cs.tb) << " alpha=" << cs.alpha
                                  << " beta=" << cs.beta << " pads=" << cs.pad_a << "," << cs.pad_b
                                  << "," << cs.pad_c << " ws=" << use_workspace);
  // Stored shapes: A is m x k (or k x m transposed), B is k x n (or n x k).
  const int64_t a_rows = cs.ta == Trans::kNo ? cs.m : cs.k;
  const int64_t a_cols = cs.ta == Trans::kNo ? cs.k : cs.m;
  const int64_t b_rows = cs.tb == Trans::kNo ? cs.k : cs.n;
  const int64_t b_cols = cs.tb == Trans::kNo ? cs.n : cs.k;
  const int64_t lda = a_cols + cs.pad_a, ldb = b_cols + cs.pad_b, ldc = cs.n + cs.pad_c;
  std::vector<float> a = random_floats(static_cast<size_t>(a_rows * lda) + 1, rng);
  std::vector<float> b = random_floats(static_cast<size_t>(b_rows * ldb) + 1, rng);
  std::vector<float> c0 = random_floats(static_cast<size_t>(cs.m * ldc) + 1, rng);
  for (int64_t i = 0; i < cs.m; ++i)
    for (int64_t j = cs.n; j < ldc; ++j)
      c0[i * ldc + j] = kSentinel;
  if (nan_c) {
    for (int64_t i = 0; i < cs.m; ++i)
      for (int64_t j = 0; j < cs.n; ++j)
        c0[i * ldc + j] = std::numeric_limits<float>::quiet_NaN();
  }
  std::vector<float> c = c0;

  auto A = [&](int64_t i, int64_t p) {
    return cs.ta == Trans::kNo ? a[i * lda + p] : a[p * lda + i];
  };
  auto B = [&](int64_t p, int64_t j) {
    return cs.tb == Trans::kNo ? b[p * ldb + j] : b[j * ldb + p];
  };

  std::vector<unsigned char> ws;
  if (use_workspace)
    ws.resize(sgemm_workspace_size(cs.m, cs.n, cs.k));
  sgemm_isa(isa, cs.ta, cs.tb, cs.m, cs.n, cs.k, cs.alpha, a.data(), lda, b.data(), ldb, cs.beta,
            c.data(), ldc, use_workspace ? ws.data() : nullptr, ws.size());

  int bad = 0;
  for (int64_t i = 0; i < cs.m && bad < 5; ++i) {
    for (int64_t j = 0; j < cs.n && bad < 5; ++j) {
      double acc = 0.0, mag = 0.0;
      for (int64_t p = 0; p < cs.k; ++p) {
        acc += static_cast<double>(A(i, p)) * B(p, j);
        mag += std::fabs(static_cast<double>(A(i, p)) * B(p, j));
      }
      double c_in = c0[i * ldc + j];
      double ref = cs.alpha * acc + (cs.beta == 0.0f ? 0.0 : cs.beta * c_in);
      mag = std::fabs(cs.alpha) * mag + (cs.beta == 0.0f ? 0.0 : std::fabs(cs.beta * c_in));
      // Float summation of k terms: |error| <= ~k * 2^-24 * sum|terms| (plus alpha/beta
      // rounding); a factor of 2 of slack over that bound.
      double tol = 2.0 * (cs.k + 4) * 6e-8 * mag + 1e-7;
      double got = c[i * ldc + j];
      if (!(std::fabs(got - ref) <= tol)) {
        ADD_FAILURE() << "C(" << i << "," << j << ") = " << got << ", want " << ref << " (tol "
                      << tol << ")";
        ++bad;
      }
    }
    for (int64_t j = cs.n; j < ldc; ++j) {
      if (c[i * ldc + j] != kSentinel) {
        ADD_FAILURE() << "padding C(" << i << "," << j << ") overwritten";
        ++bad;
        break;
      }
    }
  }
}

class SgemmTest : public testing::TestWithParam<Isa> {
 protected:
  std::mt19937 rng_{1234};
};

TEST_P(SgemmTest, SmallShapesAllTransposes) {
  const int64_t dims[] = {1, 2, 3, 5, 7, 8, 13, 16, 17, 33};
  const Trans ts[] = {Trans::kNo, Trans::kYes};
  int count = 0;
  for (int64_t m : dims)
    for (int64_t n : dims)
      for (int64_t k : {1, 4, 9, 31}) {
        // All four transpose combinations, rotating through alpha/beta choices.
        for (Trans ta : ts)
          for (Trans tb : ts) {
            static const float ab[][2] = {
                {1.0f, 0.0f}, {0.5f, 1.0f}, {-2.0f, 0.25f}, {1.0f, -1.0f}};
            const float* x = ab[count++ % 4];
            check_case(GetParam(), {m, n, k, ta, tb, x[0], x[1]}, rng_, count % 2 == 0);
          }
      }
}

TEST_P(SgemmTest, SkinnyProducts) {
  // A few rows or columns: the driver's dot-product path (gemm.cpp, dots_pay). Shapes from the
  // zoo's late ResNet convolutions (64 x 1 and 32 x 4 outputs) and one-row linears, plus depths
  // past the 512-float chunk in which a strided B column is gathered, with padded rows.
  const Case cases[] = {
      {64, 1, 576, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {32, 4, 288, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {1, 10, 256, Trans::kNo, Trans::kYes, 1.0f, 0.0f},
      {1, 10, 64, Trans::kNo, Trans::kYes, 0.5f, 1.0f},
      {16, 3, 1300, Trans::kNo, Trans::kNo, -2.0f, 0.25f, 3, 5, 2},
      {2, 40, 1030, Trans::kNo, Trans::kYes, 1.0f, -1.0f, 1, 7, 0},
      {3, 2, 513, Trans::kNo, Trans::kNo, 1.0f, 1.0f, 0, 1, 4},
      {64, 2, 17, Trans::kYes, Trans::kNo, 1.0f, 0.0f},  // transposed A: always tiled
  };
  for (const Case& cs : cases) {
    check_case(GetParam(), cs, rng_, false);
    check_case(GetParam(), cs, rng_, true);
    if (cs.beta == 0.0f)
      check_case(GetParam(), cs, rng_, false, /*nan_c=*/true);
  }
}

TEST_P(SgemmTest, TilesAndBlockEdges) {
  // Sizes around every kernel's mr (6, 14) and nr (8, 16, 32), and across the cache blocks:
  // k past kc (192/256: several depth blocks, beta applied once), m past mc (264/448), n past
  // nc (4096).
  const Case cases[] = {
      {6, 8, 5, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {14, 32, 5, Trans::kNo, Trans::kNo, 1.0f, 1.0f},
      {15, 33, 7, Trans::kYes, Trans::kNo, 1.0f, 0.5f},
      {13, 31, 3, Trans::kNo, Trans::kYes, 2.0f, 0.0f},
      {28, 64, 100, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {37, 45, 513, Trans::kNo, Trans::kNo, 0.75f, 0.5f},
      {37, 45, 513, Trans::kYes, Trans::kYes, 1.0f, 1.0f},
      {450, 20, 70, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {451, 19, 300, Trans::kYes, Trans::kNo, -1.0f, 2.0f},
      {3, 4100, 5, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {2, 4133, 260, Trans::kNo, Trans::kYes, 1.0f, 0.5f},
      {1, 200, 300, Trans::kNo, Trans::kYes, 1.0f, 0.0f},  // linear with batch 1 (GEMV)
      {200, 1, 300, Trans::kNo, Trans::kNo, 1.0f, 0.0f},   // matrix-vector
      {64, 64, 64, Trans::kNo, Trans::kNo, 1.0f, 0.0f},
      {129, 127, 257, Trans::kYes, Trans::kNo, 1.0f, 0.0f},
  };
  for (const Case& cs : cases) {
    check_case(GetParam(), cs, rng_, true);
    check_case(GetParam(), cs, rng_, false);
  }
}

TEST_P(SgemmTest, LeadingDimensionsWiderThanRows) {
  const Trans ts[] = {Trans::kNo, Trans::kYes};
  for (Trans ta : ts)
    for (Trans tb : ts) {
      check_case(GetParam(), {19, 23, 29, ta, tb, 1.0f, 0.5f, 3, 5, 7}, rng_, true);
      check_case(GetParam(), {40, 70, 300, ta, tb, 1.5f, 0.0f, 1, 16, 1}, rng_, false);
    }
}

TEST_P(SgemmTest, BetaZeroNeverReadsC) {
  // C full of NaN (an uninitialized arena) must come out finite when beta == 0.
  check_case(GetParam(), {17, 35, 9, Trans::kNo, Trans::kNo, 1.0f, 0.0f}, rng_, true, true);
  check_case(GetParam(), {1, 1, 1, Trans::kYes, Trans::kYes, 1.0f, 0.0f}, rng_, false, true);
}

TEST_P(SgemmTest, DegenerateSizes) {
  const Isa isa = GetParam();
  std::vector<float> c = {1.0f, 2.0f, 3.0f, 4.0f};
  // k == 0: C = beta * C, A and B never read (null pointers are fine).
  sgemm_isa(isa, Trans::kNo, Trans::kNo, 2, 2, 0, 1.0f, nullptr, 1, nullptr, 2, 0.5f, c.data(), 2);
  EXPECT_EQ(c, (std::vector<float>{0.5f, 1.0f, 1.5f, 2.0f}));
  // alpha == 0, beta == 0: C = 0 even if it held NaN.
  c[3] = std::numeric_limits<float>::quiet_NaN();
  sgemm_isa(isa, Trans::kNo, Trans::kNo, 2, 2, 3, 0.0f, nullptr, 3, nullptr, 2, 0.0f, c.data(), 2);
  EXPECT_EQ(c, (std::vector<float>{0.0f, 0.0f, 0.0f, 0.0f}));
  // m == 0 or n == 0: nothing is touched.
  sgemm_isa(isa, Trans::kNo, Trans::kNo, 0, 2, 3, 1.0f, nullptr, 3, nullptr, 2, 0.0f, nullptr, 2);
  sgemm_isa(isa, Trans::kNo, Trans::kNo, 2, 0, 3, 1.0f, nullptr, 3, nullptr, 0, 0.0f, nullptr, 1);
}

TEST_P(SgemmTest, PublicEntryPointFollowsOverride) {
  compute_test::IsaScope scope(GetParam());
  EXPECT_EQ(active_isa(), GetParam());
  std::vector<float> a = random_floats(50 * 60, rng_), b = random_floats(60 * 70, rng_);
  std::vector<float> c(50 * 70), ref(50 * 70);
  sgemm(Trans::kNo, Trans::kNo, 50, 70, 60, 1.0f, a.data(), 60, b.data(), 70, 0.0f, c.data(), 70);
  sgemm_isa(Isa::kBaseline, Trans::kNo, Trans::kNo, 50, 70, 60, 1.0f, a.data(), 60, b.data(), 70,
            0.0f, ref.data(), 70);
  for (size_t i = 0; i < c.size(); ++i)
    ASSERT_NEAR(c[i], ref[i], 1e-4) << i;
}

TEST_P(SgemmTest, OddSizesMatchBaseline) {
  // Sizes that are multiples of no kernel's tile (mr 6/12/14, nr 8/16/32) nor of the depth
  // loops' unrolling, tiled and skinny, against the portable baseline kernel on the same data.
  // Each result is within check_case's bound of the exact product, so the two are within twice
  // that bound of each other.
  const Isa isa = GetParam();
  int count = 0;
  for (int64_t m : {5, 11, 13, 25, 37})
    for (int64_t n : {3, 7, 9, 15, 17, 23})
      for (int64_t k : {1, 3, 7, 17, 257, 259}) {
        SCOPED_TRACE(testing::Message() << "m=" << m << " n=" << n << " k=" << k);
        const Trans ta = count % 2 == 0 ? Trans::kNo : Trans::kYes;
        const Trans tb = count % 3 == 0 ? Trans::kYes : Trans::kNo;
        const float beta = count++ % 4 == 0 ? 0.0f : 0.5f;
        const int64_t lda = ta == Trans::kNo ? k : m, ldb = tb == Trans::kNo ? n : k;
        std::vector<float> a = random_floats(static_cast<size_t>(m * k), rng_);
        std::vector<float> b = random_floats(static_cast<size_t>(k * n), rng_);
        std::vector<float> c = random_floats(static_cast<size_t>(m * n), rng_);
        std::vector<float> ref = c;
        sgemm_isa(isa, ta, tb, m, n, k, 1.0f, a.data(), lda, b.data(), ldb, beta, c.data(), n);
        sgemm_isa(Isa::kBaseline, ta, tb, m, n, k, 1.0f, a.data(), lda, b.data(), ldb, beta,
                  ref.data(), n);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double mag = 0.0;
            for (int64_t p = 0; p < k; ++p) {
              const float av = ta == Trans::kNo ? a[i * lda + p] : a[p * lda + i];
              const float bv = tb == Trans::kNo ? b[p * ldb + j] : b[j * ldb + p];
              mag += std::fabs(static_cast<double>(av) * bv);
            }
            mag += 1.0;  // |beta * c| <= 0.5 for these inputs
            const double tol = 2.0 * (2.0 * (k + 4) * 6e-8 * mag + 1e-7);
            ASSERT_NEAR(c[i * n + j], ref[i * n + j], tol) << "C(" << i << "," << j << ")";
          }
      }
}

TEST_P(SgemmTest, RowMajorAReadInPlaceMatchesPackedBitForBit) {
  // A row-major A with alpha 1 is read where it is stored (a kernel's run_direct_a, full row
  // panels only); the same A stored transposed is always packed. Both feed the micro-kernel the
  // same values in the same order, so the products must agree to the bit: row counts around mr
  // (partial last panel, a single row), columns around nr, k across depth blocks, padded rows.
  // (Shapes wide enough for the tiled path: the dot-product path needs a row-major A, so the
  // two layouts could take different paths for a skinnier product.)
  const Isa isa = GetParam();
  for (int64_t m : {1, 14, 15, 27, 29, 197})
    for (int64_t n : {64, 109})
      for (int64_t k : {5, 64, 300})
        for (float beta : {0.0f, 1.0f}) {
          SCOPED_TRACE(testing::Message() << "m=" << m << " n=" << n << " k=" << k);
          const int64_t lda = k + 3;
          std::vector<float> a = random_floats(static_cast<size_t>(m * lda), rng_);
          std::vector<float> at(static_cast<size_t>(k * m));  // A^T, k x m
          for (int64_t i = 0; i < m; ++i)
            for (int64_t p = 0; p < k; ++p)
              at[p * m + i] = a[i * lda + p];
          std::vector<float> b = random_floats(static_cast<size_t>(k * n), rng_);
          std::vector<float> direct = random_floats(static_cast<size_t>(m * n), rng_);
          std::vector<float> packed = direct;
          sgemm_isa(isa, Trans::kNo, Trans::kNo, m, n, k, 1.0f, a.data(), lda, b.data(), n, beta,
                    direct.data(), n);
          sgemm_isa(isa, Trans::kYes, Trans::kNo, m, n, k, 1.0f, at.data(), m, b.data(), n, beta,
                    packed.data(), n);
          ASSERT_EQ(0, std::memcmp(direct.data(), packed.data(), direct.size() * sizeof(float)));
        }
}

INSTANTIATE_TEST_SUITE_P(Isa, SgemmTest, testing::ValuesIn(compute_test::float_isas()),
                         compute_test::isa_param_name);

TEST(SgemmWorkspace, BoundedAndMonotone) {
  EXPECT_EQ(sgemm_workspace_size(0, 5, 5), 0u);
  size_t small = sgemm_workspace_size(8, 8, 8);
  size_t big = sgemm_workspace_size(512, 512, 512);
  size_t huge = sgemm_workspace_size(100000, 100000, 100000);
  EXPECT_GT(small, 0u);
  EXPECT_LE(small, big);
  EXPECT_LE(big, huge);
  // Cache blocking caps the packed panels: a huge GEMM needs no more than a few MiB.
  EXPECT_LT(huge, size_t{8} << 20);
  EXPECT_EQ(huge, sgemm_workspace_size(5000, 5000, 5000));
}

// Every ET_KERNELS_ISA spelling of this architecture with its level, and a name that is valid
// only on the other architecture (rejected like any unknown name).
struct IsaSpelling {
  const char* name;
  Isa isa;
};
#if defined(__aarch64__)
const IsaSpelling kSpellings[] = {{"baseline", Isa::kBaseline},
                                  {"neon", Isa::kNeon},
                                  {"neondot", Isa::kNeonDot},
                                  {"sdot", Isa::kNeonDot}};
const char* const kForeignName = "avx2";
constexpr Isa kTopIsa = Isa::kNeonDot;
#else
const IsaSpelling kSpellings[] = {{"baseline", Isa::kBaseline},
                                  {"sse2", Isa::kBaseline},
                                  {"avx2", Isa::kAvx2},
                                  {"avx512", Isa::kAvx512}};
const char* const kForeignName = "neon";
constexpr Isa kTopIsa = Isa::kAvx512;
#endif

TEST(Isa, ParseAndClamp) {
  Isa isa;
  for (const IsaSpelling& sp : kSpellings) {
    EXPECT_TRUE(parse_isa(sp.name, &isa)) << sp.name;
    EXPECT_EQ(isa, sp.isa) << sp.name;
  }
  EXPECT_FALSE(parse_isa("avx1024", &isa));
  EXPECT_FALSE(parse_isa(kForeignName, &isa));
  EXPECT_FALSE(parse_isa("", &isa));
  // An override above the CPU's level is clamped: an ISA variant is never called unless the CPU
  // reports it.
  EXPECT_EQ(set_isa_override(kTopIsa), detected_isa());
  EXPECT_LE(static_cast<int>(active_isa()), static_cast<int>(detected_isa()));
  EXPECT_EQ(set_isa_override(Isa::kBaseline), Isa::kBaseline);
  EXPECT_EQ(active_isa(), Isa::kBaseline);
  clear_isa_override();
  // Without an override, ET_KERNELS_ISA (if set) can only lower the level.
  EXPECT_LE(static_cast<int>(active_isa()), static_cast<int>(detected_isa()));
}

#if defined(__aarch64__)
TEST(Isa, Aarch64AlwaysHasNeon) {
  // Advanced SIMD is part of the base architecture: the NEON kernels run on every AArch64 CPU.
  EXPECT_GE(static_cast<int>(detected_isa()), static_cast<int>(Isa::kNeon));
}
#endif

}  // namespace

namespace {

// ET_KERNELS_ISA is read once per process, so each value is checked in a fresh process (the
// threadsafe death-test style re-executes this binary for the one statement).
int isa_from_env(const char* value) {
  setenv("ET_KERNELS_ISA", value, 1);
  return static_cast<int>(active_isa());
}

TEST(IsaEnv, ForcesALowerLevelOnly) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const int best = static_cast<int>(detected_isa());
  for (const IsaSpelling& sp : kSpellings) {
    const int want = static_cast<int>(sp.isa) < best ? static_cast<int>(sp.isa) : best;
    EXPECT_EXIT(std::exit(isa_from_env(sp.name)), testing::ExitedWithCode(want), "") << sp.name;
  }
  EXPECT_EXIT(std::exit(isa_from_env(kForeignName)), testing::ExitedWithCode(best), "");
  EXPECT_EXIT(std::exit(isa_from_env("bogus")), testing::ExitedWithCode(best), "");
}

// The same rule for the environment this process started with, checked in-process (so it also
// runs where re-executing the binary is impossible, e.g. under qemu-user without binfmt_misc;
// run the binary with ET_KERNELS_ISA=baseline to see it force the portable path).
TEST(IsaEnv, StartupEnvironmentLowersTheLevel) {
  clear_isa_override();
  const char* env = std::getenv("ET_KERNELS_ISA");
  Isa want = detected_isa();
  Isa parsed;
  if (env != nullptr && parse_isa(env, &parsed) &&
      static_cast<int>(parsed) < static_cast<int>(want))
    want = parsed;
  EXPECT_EQ(active_isa(), want) << "ET_KERNELS_ISA=" << (env != nullptr ? env : "(unset)");
}

}  // namespace

namespace {

// A B packed ahead of time must give exactly sgemm's result (same panels, same order), at
// every level, for shapes that cross the kc/nc blocks and leave edge tiles; a packed B whose
// operands do not match (another ldb) must be ignored, not misread.
TEST_P(SgemmTest, PrepackedBIsBitIdentical) {
  const Isa isa = GetParam();
  compute_test::IsaScope scope(isa);
  std::mt19937 rng(5);
  struct Shape {
    int64_t m, n, k;
    Trans tb;
  };
  int tested = 0;
  for (const Shape& s : {Shape{37, 70, 300, Trans::kNo}, Shape{64, 4100, 40, Trans::kYes},
                         Shape{9, 33, 17, Trans::kYes}}) {
    if (!executorch::kernels::compute::sgemm_packs_b(isa, Trans::kNo, s.tb, s.m, s.n, s.k))
      continue;
    ++tested;
    const int64_t ldb = s.tb == Trans::kNo ? s.n : s.k;
    const std::vector<float> a = compute_test::random_floats(s.m * s.k, rng);
    const std::vector<float> b = compute_test::random_floats(s.k * s.n, rng);
    std::vector<float> want(s.m * s.n), got(s.m * s.n, -1.0f);
    executorch::kernels::compute::sgemm(Trans::kNo, s.tb, s.m, s.n, s.k, 1.0f, a.data(), s.k,
                                        b.data(), ldb, 0.0f, want.data(), s.n);
    std::vector<uint8_t> packed(executorch::kernels::compute::sgemm_packed_b_size(isa, s.k, s.n) +
                                64);
    void* dst = packed.data() + (64 - reinterpret_cast<uintptr_t>(packed.data()) % 64) % 64;
    executorch::kernels::compute::sgemm_pack_b(isa, s.tb, s.k, s.n, b.data(), ldb, dst);
    executorch::kernels::compute::sgemm_with_packed_b(Trans::kNo, s.tb, s.m, s.n, s.k, 1.0f,
                                                      a.data(), s.k, b.data(), ldb, 0.0f,
                                                      got.data(), s.n, dst);
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
        << s.m << "x" << s.n << "x" << s.k;
    // Another B (2 b, stored with another ldb) with the same packed blob: the blob does not
    // describe these operands and must be ignored, giving exactly 2 * want (scaling by 2 is
    // exact), not want.
    std::vector<float> wide_b(s.k * s.n * 2);
    for (int64_t r = 0; r < (s.tb == Trans::kNo ? s.k : s.n); ++r)
      for (int64_t c = 0; c < ldb; ++c)
        wide_b[r * 2 * ldb + c] = 2.0f * b[r * ldb + c];
    executorch::kernels::compute::sgemm_with_packed_b(Trans::kNo, s.tb, s.m, s.n, s.k, 1.0f,
                                                      a.data(), s.k, wide_b.data(), 2 * ldb, 0.0f,
                                                      got.data(), s.n, dst);
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i], 2.0f * want[i]) << i;
  }
  EXPECT_EQ(tested, 3) << "every shape should take the tiled path";
}

// The exported trio the backends use (at active_isa(), with sgemm's workspace) gives exactly
// sgemm's result, and a packed B from before an ISA change is ignored rather than misread.
TEST_P(SgemmTest, ColumnBiasMatchesFillingCWithItBitForBit) {
  // addmm / linear's bias: C starting from the bias row (the in-place A kernels add it as they
  // store the first depth block's tiles) must equal C filled with the bias and beta 1, on every
  // path: tiled with A read in place (rows around mr, columns around nr, k across depth
  // blocks), a transposed A (packed), a few rows (axpys), a skinny product (dots), k == 0;
  // with a prepacked B and without.
  const Isa isa = GetParam();
  compute_test::IsaScope scope(isa);
  std::mt19937 rng(9);
  struct Shape {
    int64_t m, n, k;
    Trans ta, tb;
  };
  for (const Shape& s :
       {Shape{197, 576, 192, Trans::kNo, Trans::kYes}, Shape{29, 109, 300, Trans::kNo, Trans::kYes},
        Shape{15, 64, 5, Trans::kNo, Trans::kNo}, Shape{29, 45, 70, Trans::kYes, Trans::kYes},
        Shape{3, 40, 17, Trans::kNo, Trans::kYes}, Shape{64, 1, 300, Trans::kNo, Trans::kNo},
        Shape{7, 9, 0, Trans::kNo, Trans::kYes}}) {
    SCOPED_TRACE(testing::Message() << s.m << "x" << s.n << "x" << s.k << " ta=" << int(s.ta));
    const int64_t lda = s.ta == Trans::kNo ? s.k + 1 : s.m;
    const int64_t ldb = s.tb == Trans::kNo ? s.n : s.k;
    const std::vector<float> a = compute_test::random_floats((s.m + 1) * (s.k + 1), rng);
    const std::vector<float> b = compute_test::random_floats(s.k * s.n + 1, rng);
    const std::vector<float> bias = compute_test::random_floats(s.n, rng);
    std::vector<uint8_t> packed(executorch::kernels::compute::sgemm_packed_b_size(isa, s.k, s.n) +
                                64);
    void* dst = packed.data() + (64 - reinterpret_cast<uintptr_t>(packed.data()) % 64) % 64;
    executorch::kernels::compute::sgemm_pack_b(isa, s.tb, s.k, s.n, b.data(), ldb, dst);
    for (const void* pb : {static_cast<const void*>(dst), static_cast<const void*>(nullptr)}) {
      const int64_t ldc = s.n + 2;
      std::vector<float> want(s.m * ldc, kSentinel), got(s.m * ldc, kSentinel);
      for (int64_t i = 0; i < s.m; ++i)
        std::memcpy(want.data() + i * ldc, bias.data(), s.n * sizeof(float));
      executorch::kernels::compute::sgemm_with_packed_b(s.ta, s.tb, s.m, s.n, s.k, 1.0f, a.data(),
                                                        lda, b.data(), ldb, 1.0f, want.data(), ldc,
                                                        pb);
      executorch::kernels::compute::sgemm_with_packed_b_col_bias(s.ta, s.tb, s.m, s.n, s.k,
                                                                 a.data(), lda, b.data(), ldb,
                                                                 bias.data(), got.data(), ldc, pb);
      ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
          << (pb != nullptr ? "prepacked" : "packed on the fly");
    }
  }
}

TEST_P(SgemmTest, ExportedPrepackedBWithWorkspaceIsBitIdentical) {
  namespace c = executorch::kernels::compute;
  const Isa isa = GetParam();
  std::mt19937 rng(6);
  for (const Trans tb : {Trans::kNo, Trans::kYes}) {
    const int64_t m = 37, n = 45, k = 67, ldb = tb == Trans::kNo ? n : k;
    const std::vector<float> a = random_floats(m * k, rng), b = random_floats(k * n, rng);
    std::vector<uint8_t> packed;
    void* dst = nullptr;
    {
      compute_test::IsaScope scope(isa);
      packed.resize(c::sgemm_prepacked_b_size(k, n) + 64);
      dst = packed.data() + (64 - reinterpret_cast<uintptr_t>(packed.data()) % 64) % 64;
      c::sgemm_prepack_b(tb, k, n, b.data(), ldb, dst);
    }
    for (const Isa run_isa : compute_test::supported_isas()) {
      SCOPED_TRACE(testing::Message()
                   << "packed at " << static_cast<int>(isa) << ", run at "
                   << static_cast<int>(run_isa) << ", tb " << static_cast<int>(tb));
      compute_test::IsaScope scope(run_isa);
      std::vector<float> want(m * n), got(m * n, -1.0f);
      sgemm(Trans::kNo, tb, m, n, k, 1.0f, a.data(), k, b.data(), ldb, 0.0f, want.data(), n);
      std::vector<uint8_t> ws(sgemm_workspace_size(m, n, k));
      c::sgemm_prepacked_b(Trans::kNo, tb, m, n, k, 1.0f, a.data(), k, b.data(), ldb, 0.0f,
                           got.data(), n, dst, ws.data(), ws.size());
      EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0);
    }
  }
}

}  // namespace
