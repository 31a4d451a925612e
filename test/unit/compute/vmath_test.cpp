// Vector math (compute/vmath.h) on every ISA level this CPU has: the accuracy bounds vmath.h
// states, measured in ulp against double-precision references over sweeps of the float range,
// IEEE special values, and that an element's result does not depend on where it sits (body or
// tail of the loop).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <executorch/runtime/kernels/compute/vmath.h>

#include "test_util.h"

namespace {

using executorch::kernels::compute::Isa;
using executorch::kernels::compute::vmath_for;
using executorch::kernels::compute::VmathKernels;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kSentinel = 12345.0f;  // marks memory a routine must not write

// Distance from `got` to the exact value `ref`, in units of the float spacing at ref (the
// spacing of the subnormal grid below FLT_MIN).
double ulp_error(float got, double ref) {
  if (std::isnan(ref))
    return std::isnan(got) ? 0.0 : 1e30;
  if (std::isinf(ref) || std::isinf(got))
    return static_cast<double>(got) == ref ? 0.0 : 1e30;
  const double a = std::fabs(ref);
  int e = 0;
  std::frexp(a < 1.1754943508222875e-38 ? 1.1754943508222875e-38 : a, &e);
  const double ulp = std::ldexp(1.0, e - 24);
  return std::fabs(static_cast<double>(got) - ref) / ulp;
}

// Floats from lo to hi: every `stride`-th bit pattern of each sign, plus lo and hi.
std::vector<float> sweep(float lo, float hi, uint32_t stride) {
  std::vector<float> v;
  for (uint32_t bits = 0; bits < 0x7f800000u; bits += stride) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    if (f <= hi && f >= lo)
      v.push_back(f);
    if (-f <= hi && -f >= lo)
      v.push_back(-f);
  }
  v.push_back(lo);
  v.push_back(hi);
  return v;
}

using Routine = void (*)(const float*, float*, int64_t);

// The largest error relative to the allowed one, ulp + quad * x^2 for x < 0 (the gelus: there
// the float rounding of the argument of erf / tanh, which any float evaluation has, grows
// with x^2), ulp elsewhere. <= 1 means within bounds.
double max_error_ratio(Routine fn, double (*ref)(double), const std::vector<float>& xs, double ulp,
                       double quad, float* worst_x) {
  std::vector<float> y(xs.size());
  fn(xs.data(), y.data(), static_cast<int64_t>(xs.size()));
  double worst = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double x = xs[i];
    const double allowed = ulp + (x < 0 ? quad * x * x : 0.0);
    const double e = ulp_error(y[i], ref(xs[i])) / allowed;
    if (e > worst) {
      worst = e;
      *worst_x = xs[i];
    }
  }
  return worst;
}

double ref_exp(double x) {
  return std::exp(x);
}
double ref_sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}
double ref_tanh(double x) {
  return std::tanh(x);
}
double ref_silu(double x) {
  return x / (1.0 + std::exp(-x));
}
double ref_gelu(double x) {
  return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
}
// 0.5 x (1 + tanh(u)) written without its cancellation, so that the reference stays exact in
// the negative tail.
double ref_gelu_tanh(double x) {
  const double u = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
  return x / (1.0 + std::exp(-2.0 * u));
}

// hardswish / hardsigmoid exactly, and in float the way the export's decomposition (add, clamp,
// mul, div) computes them, one rounding per operation.
double ref_hardsigmoid(double x) {
  return std::fmin(std::fmax(x + 3.0, 0.0), 6.0) / 6.0;
}
double ref_hardswish(double x) {
  return x * ref_hardsigmoid(x);
}
float decomposed_hardsigmoid(float x) {
  volatile float t = x + 3.0f;  // volatile: one rounding per step, no contraction
  t = t < 0.0f ? 0.0f : t;
  t = t > 6.0f ? 6.0f : t;
  return t / 6.0f;
}
float decomposed_hardswish(float x) {
  volatile float t = x + 3.0f;
  t = t < 0.0f ? 0.0f : t;
  t = t > 6.0f ? 6.0f : t;
  volatile float m = x * t;
  return m / 6.0f;
}

class VmathTest : public testing::TestWithParam<Isa> {
 protected:
  const VmathKernels& k() const {
    return vmath_for(GetParam());
  }
};

struct Bound {
  const char* name;
  Routine VmathKernels::*fn;
  double (*ref)(double);
  float lo, hi;
  double ulp, quad;
};

TEST_P(VmathTest, AccuracyWithinStatedUlp) {
  const Bound bounds[] = {
      {"exp", &VmathKernels::exp, ref_exp, -87.3f, 88.7f, 1.0, 0.0},
      {"exp (subnormal results)", &VmathKernels::exp, ref_exp, -103.9f, -87.4f, 1.0, 0.0},
      {"sigmoid", &VmathKernels::sigmoid, ref_sigmoid, -87.0f, 100.0f, 3.0, 0.0},
      {"tanh", &VmathKernels::tanh, ref_tanh, -20.0f, 20.0f, 3.0, 0.0},
      {"silu", &VmathKernels::silu, ref_silu, -87.0f, 100.0f, 4.0, 0.0},
      {"gelu", &VmathKernels::gelu, ref_gelu, -12.0f, 100.0f, 8.0, 2.5},
      {"gelu_tanh", &VmathKernels::gelu_tanh, ref_gelu_tanh, -12.0f, 100.0f, 8.0, 2.5},
      {"hardsigmoid", &VmathKernels::hardsigmoid, ref_hardsigmoid, -1e6f, 1e6f, 1.0, 0.0},
      {"hardswish", &VmathKernels::hardswish, ref_hardswish, -1e6f, 1e6f, 2.0, 0.0},
  };
  for (const Bound& b : bounds) {
    float worst_x = 0;
    const double e =
        max_error_ratio(k().*(b.fn), b.ref, sweep(b.lo, b.hi, 4099), b.ulp, b.quad, &worst_x);
    EXPECT_LE(e, 1.0) << b.name << " at x = " << worst_x;
  }
}

TEST_P(VmathTest, SpecialValues) {
  const float xs[] = {0.0f, -0.0f, kInf, -kInf, kNaN, 89.0f, -104.0f, -1e-30f, 1e-30f};
  const int n = static_cast<int>(sizeof xs / sizeof xs[0]);
  std::vector<float> y(n);
  k().exp(xs, y.data(), n);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], 1.0f);
  EXPECT_EQ(y[2], kInf);
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_TRUE(std::isnan(y[4]));
  EXPECT_EQ(y[5], kInf);
  EXPECT_EQ(y[6], 0.0f);
  k().sigmoid(xs, y.data(), n);
  EXPECT_EQ(y[0], 0.5f);
  EXPECT_EQ(y[2], 1.0f);
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_TRUE(std::isnan(y[4]));
  k().tanh(xs, y.data(), n);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_TRUE(std::signbit(y[1]));
  EXPECT_EQ(y[2], 1.0f);
  EXPECT_EQ(y[3], -1.0f);
  EXPECT_TRUE(std::isnan(y[4]));
  EXPECT_EQ(y[7], -1e-30f);
  for (Routine fn : {k().silu, k().gelu, k().gelu_tanh}) {
    fn(xs, y.data(), n);
    EXPECT_EQ(y[0], 0.0f);
    EXPECT_EQ(y[2], kInf);
    EXPECT_TRUE(std::isnan(y[4]));
  }
}

// sigmoid, silu and sigmoid_mul never return a subnormal (nor compute one on the way): 0 (with
// x's sign for the products) below -87.33654f, the smallest float whose e^x is normal, and the
// accurate normal value from it on. tanh, which uses the same flushing exp, stays +-1 there.
TEST_P(VmathTest, SigmoidFamilyFlushesWhereSigmoidIsSubnormal) {
  const float cutoff = -87.33654f;
  const float below = std::nextafter(cutoff, -kInf);
  std::vector<float> xs = {cutoff, below, -88.0f, -100.0f, -103.9f, -104.0f, -1e6f, -kInf};
  for (float x = -200.0f; x < -80.0f; x += 0.0137f) {
    xs.push_back(x);
  }
  const int64_t n = static_cast<int64_t>(xs.size());
  std::vector<float> s(xs.size()), si(xs.size()), sm(xs.size()), th(xs.size());
  k().sigmoid(xs.data(), s.data(), n);
  k().silu(xs.data(), si.data(), n);
  k().sigmoid_mul(xs.data(), sm.data(), n);
  k().tanh(xs.data(), th.data(), n);
  for (size_t i = 0; i < xs.size(); ++i) {
    const float x = xs[i];
    for (float y : {s[i], si[i], sm[i]}) {
      EXPECT_NE(std::fpclassify(y), FP_SUBNORMAL) << "at x = " << x;
    }
    EXPECT_EQ(th[i], -1.0f) << "tanh at x = " << x;
    if (x == -kInf) {  // -inf * 0, as the decomposed sigmoid and mul compute it in eager torch
      EXPECT_EQ(s[i], 0.0f);
      EXPECT_TRUE(std::isnan(si[i]));
      EXPECT_TRUE(std::isnan(sm[i]));
    } else if (x < cutoff) {
      EXPECT_EQ(s[i], 0.0f) << "sigmoid at x = " << x;
      EXPECT_TRUE(si[i] == 0.0f && std::signbit(si[i])) << "silu at x = " << x;
      EXPECT_TRUE(sm[i] == 0.0f && std::signbit(sm[i])) << "sigmoid_mul at x = " << x;
    } else {
      const double want = ref_sigmoid(x);
      EXPECT_GE(s[i], std::numeric_limits<float>::min()) << "sigmoid at x = " << x;
      EXPECT_LE(ulp_error(s[i], want), 3.0) << "sigmoid at x = " << x;
    }
  }
}

TEST_P(VmathTest, ResultDoesNotDependOnPosition) {
  std::mt19937 rng(7);
  const std::vector<float> x = compute_test::random_floats(37, rng, -12.0f, 12.0f);
  for (Routine fn : {k().exp, k().sigmoid, k().tanh, k().silu, k().gelu, k().gelu_tanh,
                     k().hardswish, k().hardsigmoid}) {
    std::vector<float> whole(x.size());
    fn(x.data(), whole.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      float one;
      fn(&x[i], &one, 1);
      ASSERT_EQ(one, whole[i]) << i;
    }
    std::vector<float> inplace = x;  // y == x is allowed
    fn(inplace.data(), inplace.data(), static_cast<int64_t>(x.size()));
    EXPECT_EQ(inplace, whole);
  }
}

TEST_P(VmathTest, MaxPropagatesNaN) {
  std::vector<float> x(41);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i % 13) - 6.0f;
  EXPECT_EQ(k().max(x.data(), 41), 6.0f);
  EXPECT_EQ(k().max(x.data(), 0), -kInf);
  for (size_t at : {size_t{0}, size_t{17}, size_t{40}}) {
    std::vector<float> y = x;
    y[at] = kNaN;
    EXPECT_TRUE(std::isnan(k().max(y.data(), 41))) << at;
  }
}

TEST_P(VmathTest, MaxAndExpShiftSumAtEveryLengthAndPosition) {
  // Every row length up to past four vectors at every level (pairs of vectors, a single vector,
  // a partial tail in any lane count), the largest element or a NaN planted at every position.
  std::mt19937 rng(5);
  for (int64_t n = 1; n <= 70; ++n) {
    const std::vector<float> x = compute_test::random_floats(static_cast<size_t>(n), rng, -5, 5);
    for (int64_t at = 0; at < n; ++at) {
      std::vector<float> y = x;
      y[at] = 7.0f;
      ASSERT_EQ(k().max(y.data(), n), 7.0f) << "n=" << n << " at=" << at;
      y[at] = kNaN;
      ASSERT_TRUE(std::isnan(k().max(y.data(), n))) << "n=" << n << " at=" << at;
    }
    // exp_shift_sum's outputs are exp's of the rounded differences, bit for bit, its sum their
    // sum, and nothing past the row is written.
    std::vector<float> d(static_cast<size_t>(n)), want(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      d[i] = x[i] - 0.75f;
    k().exp(d.data(), want.data(), n);
    std::vector<float> y(static_cast<size_t>(n) + 1, kSentinel);
    const float sum = k().exp_shift_sum(x.data(), 0.75f, y.data(), n);
    double ref = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(y[i], want[i]) << "n=" << n << " i=" << i;
      ref += want[i];
    }
    EXPECT_EQ(y[n], kSentinel) << "n=" << n;
    EXPECT_NEAR(sum, ref, 1e-6 * ref) << "n=" << n;
  }
}

TEST_P(VmathTest, ExpShiftSumAndExpSub) {
  std::mt19937 rng(11);
  for (int64_t n : {0, 1, 5, 16, 33, 100}) {
    const std::vector<float> x = compute_test::random_floats(static_cast<size_t>(n), rng, -5, 5);
    const std::vector<float> shift = compute_test::random_floats(static_cast<size_t>(n), rng);
    std::vector<float> y(static_cast<size_t>(n)), z(static_cast<size_t>(n));
    const float sum = k().exp_shift_sum(x.data(), 1.5f, y.data(), n);
    k().exp_sub(x.data(), shift.data(), z.data(), n);
    double want = 0;
    for (int64_t i = 0; i < n; ++i) {
      // The difference is rounded to float before the exp, as the kernels do.
      const double d1 = static_cast<float>(x[i] - 1.5f);
      const double d2 = static_cast<float>(x[i] - shift[i]);
      want += std::exp(d1);
      EXPECT_LE(ulp_error(y[i], std::exp(d1)), 1.0);
      EXPECT_LE(ulp_error(z[i], std::exp(d2)), 1.0);
    }
    EXPECT_NEAR(sum, want, 1e-5 * (want + 1));
    const std::vector<float> before = y;
    k().scale(y.data(), n, 3.0f);
    for (int64_t i = 0; i < n; ++i)
      EXPECT_EQ(y[i], 3.0f * before[i]);
  }
}

INSTANTIATE_TEST_SUITE_P(Isa, VmathTest, testing::ValuesIn(compute_test::supported_isas()),
                         compute_test::isa_param_name);

}  // namespace

namespace {

// The normalization pieces against double references, on sizes around the vector width.
TEST_P(VmathTest, NormalizationPieces) {
  std::mt19937 rng(3);
  for (int64_t n : {0, 1, 7, 16, 33, 200, 1000}) {
    const size_t un = static_cast<size_t>(n);
    const std::vector<float> x = compute_test::random_floats(un, rng, -4.0f, 6.0f);
    const std::vector<float> w = compute_test::random_floats(un, rng);
    const std::vector<float> b = compute_test::random_floats(un, rng);
    double sum = 0, sq = 0;
    for (float v : x)
      sum += v;
    const float mean = n > 0 ? static_cast<float>(sum / n) : 0.0f;
    for (float v : x)
      sq += (static_cast<double>(v) - mean) * (static_cast<double>(v) - mean);
    EXPECT_NEAR(k().sum(x.data(), n), sum, 1e-6 * (std::fabs(sum) + n)) << n;
    EXPECT_NEAR(k().sum_sq_dev(x.data(), n, mean), sq, 1e-6 * (sq + n)) << n;
    std::vector<float> y(un), z(un), u(un);
    k().scale_shift(x.data(), y.data(), n, 0.75f, -2.0f);
    k().normalize(x.data(), z.data(), n, mean, 0.5f, w.data(), b.data());
    k().normalize(x.data(), u.data(), n, mean, 0.5f, nullptr, nullptr);
    for (size_t i = 0; i < un; ++i) {
      EXPECT_NEAR(y[i], x[i] * 0.75 - 2.0, 1e-6 * (std::fabs(x[i]) + 2)) << i;
      const double d = (static_cast<double>(x[i]) - mean) * 0.5;
      EXPECT_NEAR(z[i], d * w[i] + b[i], 1e-6 * (std::fabs(d) + 1)) << i;
      EXPECT_NEAR(u[i], d, 1e-6 * (std::fabs(d) + 1)) << i;
    }
  }
}

// The epilogue of a fused convolution / GEMM must give what the decomposed operators give: every
// value of a dense sweep (and the special values) bit for bit.
TEST_P(VmathTest, HardActivationsMatchTheirDecompositionBitForBit) {
  std::vector<float> xs = sweep(-1e6f, 1e6f, 40961);
  for (float v = -7.0f; v <= 7.0f; v += 0.001953125f) {
    xs.push_back(v);  // dense around the clamp's corners
  }
  for (float v : {0.0f, -0.0f, -3.0f, 3.0f, kInf, -kInf, kNaN}) {
    xs.push_back(v);
  }
  const int64_t n = static_cast<int64_t>(xs.size());
  std::vector<float> hs(xs.size()), hg(xs.size());
  k().hardswish(xs.data(), hs.data(), n);
  k().hardsigmoid(xs.data(), hg.data(), n);
  for (size_t i = 0; i < xs.size(); ++i) {
    const float want_s = decomposed_hardswish(xs[i]), want_g = decomposed_hardsigmoid(xs[i]);
    if (std::isnan(want_s)) {
      EXPECT_TRUE(std::isnan(hs[i])) << xs[i];
    } else {
      ASSERT_EQ(std::memcmp(&hs[i], &want_s, sizeof want_s), 0) << "hardswish at " << xs[i];
    }
    if (std::isnan(want_g)) {
      EXPECT_TRUE(std::isnan(hg[i])) << xs[i];
    } else {
      ASSERT_EQ(std::memcmp(&hg[i], &want_g, sizeof want_g), 0) << "hardsigmoid at " << xs[i];
    }
  }
}

// sigmoid_mul is the decomposed SiLU (sigmoid, then mul by x) bit for bit.
TEST_P(VmathTest, SigmoidMulMatchesSigmoidThenMulBitForBit) {
  std::vector<float> xs = sweep(-100.0f, 100.0f, 40961);
  for (float v : {0.0f, -0.0f, kInf, -kInf, kNaN}) {
    xs.push_back(v);
  }
  const int64_t n = static_cast<int64_t>(xs.size());
  std::vector<float> got(xs.size()), s(xs.size());
  k().sigmoid_mul(xs.data(), got.data(), n);
  k().sigmoid(xs.data(), s.data(), n);
  for (size_t i = 0; i < xs.size(); ++i) {
    volatile float want = xs[i] * s[i];
    const float w = want;
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(got[i])) << xs[i];
    } else {
      ASSERT_EQ(std::memcmp(&got[i], &w, sizeof w), 0) << "at " << xs[i];
    }
  }
}

}  // namespace
