// qd8 x qb4w (dynamically quantized int8 rows x 4-bit blockwise weights) against a plain loop
// written from XNNPACK's formulas (compute/qd8_qb4w.h) on the unpacked weights, at every ISA
// level: bit-equal outputs for odd shapes (n not a multiple of the 16-column panel, several
// block sizes, m = 1 and m > 1), with and without bias and clamping; and the row quantization
// against XNNPACK's parameter choice, including the rows its nudged zero point clamps.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/runtime/kernels/compute/qd8_qb4w.h>

#include "test_util.h"

namespace {

namespace compute = executorch::kernels::compute;
using compute::Isa;

struct Weights {
  int64_t n, k, block;
  std::vector<int> w;            // [n][k], in [-8, 7]
  std::vector<uint8_t> nibbles;  // upstream's storage: w + 8, two per byte, low nibble first
  std::vector<float> scales;     // [n][k / block], bf16-exact
};

Weights random_weights(int64_t n, int64_t k, int64_t block, std::mt19937& rng) {
  Weights ws{n, k, block, {}, {}, {}};
  std::uniform_int_distribution<int> d(-8, 7);
  ws.w.resize(static_cast<size_t>(n * k));
  for (int& x : ws.w)
    x = d(rng);
  ws.nibbles.assign(static_cast<size_t>((n * k + 1) / 2), 0);
  for (int64_t i = 0; i < n * k; ++i)
    ws.nibbles[i / 2] |= static_cast<uint8_t>((ws.w[i] + 8) << (i % 2 == 0 ? 0 : 4));
  std::uniform_real_distribution<float> s(0.001f, 0.05f);
  for (int64_t i = 0; i < n * (k / block); ++i) {
    float f = s(rng);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits &= 0xFFFF0000u;  // bf16-exact, as upstream serializes them
    std::memcpy(&f, &bits, 4);
    ws.scales.push_back(f);
  }
  return ws;
}

// XNNPACK's dynamic quantization of one row, written out from its parameter formula.
void reference_quantize(const float* x, int64_t k, std::vector<int>* q, int* zp, float* scale) {
  float mn = 0, mx = 0;
  for (int64_t i = 0; i < k; ++i) {
    mn = std::fmin(mn, x[i]);
    mx = std::fmax(mx, x[i]);
  }
  const float mult = mn == mx ? 1.0f : 255.0f / (mx - mn);
  const float from_min = -128.0f - mn * mult, from_max = 127.0f - mx * mult;
  float z = (-128.0f + mn * mult) + (127.0f + mx * mult) > 0 ? from_min : from_max;
  z = std::fmin(std::fmax(z, -128.0f), 127.0f);
  *zp = static_cast<int>(std::lrint(z));
  *scale = 1.0f / mult;
  q->resize(static_cast<size_t>(k));
  for (int64_t i = 0; i < k; ++i) {
    const long v = std::lrint(x[i] * mult) + *zp;
    (*q)[i] = static_cast<int>(v < -128 ? -128 : (v > 127 ? 127 : v));
  }
}

// XNNPACK's qdu8 x qb4w fully connected for one output, from the unpacked weights.
float reference_output(const std::vector<int>& q, int zp, float scale, const Weights& ws,
                       int64_t col, float bias, float lo, float hi) {
  const int64_t blocks = ws.k / ws.block;
  float t = 0.0f;
  for (int64_t k0 = 0; k0 < ws.k; k0 += 16) {
    int sum = 0;
    for (int64_t i = k0; i < k0 + 16; ++i)
      sum += ws.w[col * ws.k + i];
    t = t - static_cast<float>(sum) * ws.scales[col * blocks + k0 / ws.block];
  }
  float v = t * static_cast<float>(zp + 128);
  for (int64_t b = 0; b < blocks; ++b) {
    int32_t acc = 0;
    for (int64_t i = b * ws.block; i < (b + 1) * ws.block; ++i)
      acc += (q[i] + 128) * ws.w[col * ws.k + i];
    v = std::fma(static_cast<float>(acc), ws.scales[col * blocks + b], v);
  }
  const float y = v * scale + bias;
  return std::fmin(std::fmax(y, lo), hi);
}

class Qd8Qb4wTest : public testing::TestWithParam<Isa> {
 protected:
  std::mt19937 rng_{11};

  void check(int64_t m, int64_t n, int64_t k, int64_t block, bool with_bias, float lo, float hi) {
    const Weights ws = random_weights(n, k, block, rng_);
    std::vector<float> x = compute_test::random_floats(static_cast<size_t>(m * k), rng_, -3, 2);
    // One row all positive (its zero point is clamped to -128), one all zero.
    if (m > 2) {
      for (int64_t i = 0; i < k; ++i) {
        x[k + i] = std::fabs(x[k + i]) + 0.5f;
        x[2 * k + i] = 0.0f;
      }
    }
    const std::vector<float> bias = compute_test::random_floats(static_cast<size_t>(n), rng_);
    std::vector<uint8_t> packed(compute::qb4w_packed_size(n, k, block) + 64);
    uint8_t* aligned = reinterpret_cast<uint8_t*>(
        (reinterpret_cast<uintptr_t>(packed.data()) + 63) & ~uintptr_t{63});
    ASSERT_TRUE(compute::qb4w_pack(n, k, block, ws.nibbles.data(), ws.scales.data(), aligned));
    std::vector<uint8_t> u(static_cast<size_t>(m * k));
    std::vector<int32_t> zp(static_cast<size_t>(m));
    std::vector<float> scale(static_cast<size_t>(m));
    const compute_test::IsaScope isa_scope(GetParam());
    for (int64_t r = 0; r < m; ++r) {
      compute::qd8_quantize_row(k, &x[r * k], &u[r * k], &zp[r], &scale[r]);
      std::vector<int> q;
      int want_zp;
      float want_scale;
      reference_quantize(&x[r * k], k, &q, &want_zp, &want_scale);
      ASSERT_EQ(zp[r], want_zp + 128) << "row " << r;
      ASSERT_EQ(scale[r], want_scale) << "row " << r;
      for (int64_t i = 0; i < k; ++i)
        ASSERT_EQ(u[r * k + i], q[i] + 128) << "row " << r << " element " << i;
    }
    const int64_t ldy = n + 3;
    std::vector<float> y(static_cast<size_t>(m * ldy), -7.0f);
    compute::qd8_qb4w_gemm_isa(GetParam(), m, n, k, block, u.data(), k, zp.data(), scale.data(),
                               aligned, with_bias ? bias.data() : nullptr, lo, hi, y.data(), ldy);
    for (int64_t r = 0; r < m; ++r) {
      std::vector<int> q(u.begin() + r * k, u.begin() + (r + 1) * k);
      for (int& v : q)
        v -= 128;
      for (int64_t c = 0; c < n; ++c) {
        const float want =
            reference_output(q, zp[r] - 128, scale[r], ws, c, with_bias ? bias[c] : 0.0f, lo, hi);
        ASSERT_EQ(y[r * ldy + c], want) << "m=" << m << " n=" << n << " k=" << k
                                        << " block=" << block << " at " << r << "," << c;
      }
      for (int64_t c = n; c < ldy; ++c)
        ASSERT_EQ(y[r * ldy + c], -7.0f) << "wrote past the row";
    }
  }
};

TEST_P(Qd8Qb4wTest, OddShapesBitEqualToTheReference) {
  const float inf = INFINITY;
  for (int64_t m : {1, 2, 5, 9}) {
    for (int64_t n : {1, 15, 16, 17, 40}) {
      check(m, n, 64, 32, false, -inf, inf);
      check(m, n, 96, 32, true, -inf, inf);
    }
  }
  check(3, 33, 256, 128, true, -inf, inf);
  check(4, 7, 48, 8, false, -inf, inf);
  check(1, 300, 512, 32, false, -inf, inf);
}

// The thread pool splits the columns in whole panels (this size gives several chunks): the
// result is the reference's at any thread count.
TEST_P(Qd8Qb4wTest, SplitAcrossThreads) {
  namespace tp = executorch::extension::threadpool;
  for (size_t threads : {2, 3, 4}) {
    ASSERT_TRUE(tp::set_num_threads(threads));
    check(4, 300, 512, 32, true, -INFINITY, INFINITY);
    check(1, 1000, 256, 32, false, -INFINITY, INFINITY);
  }
  ASSERT_TRUE(tp::set_num_threads(1));
}

TEST_P(Qd8Qb4wTest, ClampsTheOutput) {
  check(5, 19, 64, 32, true, -0.05f, 0.04f);
}

// An infinite element makes the row's multiplier 0 and its products NaN, and a NaN element
// stays NaN: the zero point and every element still land on the grid (a NaN on its lowest
// point) instead of converting a NaN to an integer.
TEST_P(Qd8Qb4wTest, RowsWithInfinitiesAndNaNsStayOnTheGrid) {
  const compute_test::IsaScope isa_scope(GetParam());
  for (float bad : {INFINITY, -INFINITY, NAN}) {
    std::vector<float> x = {0.5f, -1.0f, bad, 2.0f};
    std::vector<uint8_t> u(x.size(), 77);
    int32_t zp = -1;
    float scale = 0.0f;
    compute::qd8_quantize_row(static_cast<int64_t>(x.size()), x.data(), u.data(), &zp, &scale);
    EXPECT_GE(zp, 0) << bad;
    EXPECT_LE(zp, 255) << bad;
    if (std::isnan(bad)) {
      EXPECT_EQ(u[2], 0) << "a NaN element quantizes to the grid's lowest point";
    }
  }
}

TEST(Qd8Qb4wShapes, InvalidShapesAreRefused) {
  std::vector<uint8_t> nibbles(64), out(4096);
  std::vector<float> scales(16, 1.0f);
  EXPECT_EQ(compute::qb4w_packed_size(4, 64, 12), 0u);  // block not a multiple of 8
  EXPECT_EQ(compute::qb4w_packed_size(4, 60, 32), 0u);  // k not a multiple of the block
  EXPECT_EQ(compute::qb4w_packed_size(0, 64, 32), 0u);
  EXPECT_EQ(compute::qb4w_packed_size(4, 8192, 8192), 0u);  // block past the exact bound
  EXPECT_FALSE(compute::qb4w_pack(4, 60, 32, nibbles.data(), scales.data(), out.data()));
}

INSTANTIATE_TEST_SUITE_P(AllIsas, Qd8Qb4wTest, testing::ValuesIn(compute_test::supported_isas()),
                         compute_test::isa_param_name);

}  // namespace
