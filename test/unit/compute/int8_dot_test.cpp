// dot_s8 against an exact 64-bit reference at every ISA level the CPU supports: every depth
// around the vector widths (16 bytes, 64 for the unrolled SDOT loop), unaligned inputs, the
// extreme values, and the documented wrap-around past the exact depth.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include <executorch/runtime/kernels/compute/int8_dot.h>

#include "test_util.h"

namespace {

using executorch::kernels::compute::dot_s8;
using executorch::kernels::compute::dot_s8_isa;
using executorch::kernels::compute::Isa;
using executorch::kernels::compute::kDotS8ExactDepth;

int64_t reference(int64_t k, const int8_t* x, const int8_t* y) {
  int64_t s = 0;
  for (int64_t p = 0; p < k; ++p)
    s += int64_t{x[p]} * y[p];
  return s;
}

// The int32 two's-complement value of s modulo 2^32 (the documented result for any depth).
int32_t wrapped(int64_t s) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(s)));
}

std::vector<int8_t> random_bytes(size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (int8_t& b : v)
    b = static_cast<int8_t>(d(rng));
  return v;
}

class DotS8Test : public testing::TestWithParam<Isa> {
 protected:
  std::mt19937 rng_{7};
};

TEST_P(DotS8Test, EveryDepthAndAlignment) {
  const std::vector<int8_t> x = random_bytes(600, rng_), y = random_bytes(600, rng_);
  for (int64_t k = 0; k <= 200; ++k) {
    for (int64_t off = 0; off < 4; ++off) {
      const int8_t* xp = x.data() + off;
      const int8_t* yp = y.data() + 2 * off + 1;
      ASSERT_EQ(dot_s8_isa(GetParam(), k, xp, yp), reference(k, xp, yp))
          << "k=" << k << " offset=" << off;
    }
  }
  ASSERT_EQ(dot_s8_isa(GetParam(), 590, x.data(), y.data() + 3),
            reference(590, x.data(), y.data() + 3));
}

TEST_P(DotS8Test, ExtremeValues) {
  // -128 * -128 = 2^14 is the largest product: the int16 intermediate of the NEON path must
  // hold it, and a sum of two of them (2^15) must not be formed in int16.
  for (int64_t k : {1, 2, 15, 16, 17, 64, 100, 1000}) {
    std::vector<int8_t> x(k, -128), y(k, -128), z(k, 127);
    EXPECT_EQ(dot_s8_isa(GetParam(), k, x.data(), y.data()), k * 16384) << k;
    EXPECT_EQ(dot_s8_isa(GetParam(), k, x.data(), z.data()), -k * 128 * 127) << k;
  }
}

TEST_P(DotS8Test, ExactUpToTheDocumentedDepthThenWraps) {
  const int64_t exact = kDotS8ExactDepth;
  std::vector<int8_t> x(exact + 1000, -128);
  EXPECT_EQ(dot_s8_isa(GetParam(), exact, x.data(), x.data()), exact * 16384);
  // One more product overflows int32: every level gives the same wrapped value.
  const int64_t k = exact + 999;
  EXPECT_EQ(dot_s8_isa(GetParam(), k, x.data(), x.data()), wrapped(k * 16384));
}

TEST_P(DotS8Test, NonPositiveDepthReadsNothing) {
  EXPECT_EQ(dot_s8_isa(GetParam(), 0, nullptr, nullptr), 0);
  EXPECT_EQ(dot_s8_isa(GetParam(), -5, nullptr, nullptr), 0);
}

TEST_P(DotS8Test, PublicEntryPointFollowsOverride) {
  compute_test::IsaScope scope(GetParam());
  const std::vector<int8_t> x = random_bytes(333, rng_), y = random_bytes(333, rng_);
  EXPECT_EQ(dot_s8(333, x.data(), y.data()), reference(333, x.data(), y.data()));
}

INSTANTIATE_TEST_SUITE_P(Isa, DotS8Test, testing::ValuesIn(compute_test::supported_isas()),
                         compute_test::isa_param_name);

}  // namespace
