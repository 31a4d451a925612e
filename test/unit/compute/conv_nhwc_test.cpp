// conv2d_nhwc and depthwise_conv2d_nhwc against a plain double-accumulation loop, at every ISA
// level the CPU supports: 1x1 images, 1x1 kernels read in place and strided/padded ones
// gathered, K x K with padding (leading and trailing), stride and dilation, groups, channel
// counts that are not a multiple of any vector width, depthwise multipliers, several im2col
// blocks, fused bias, clamps and output grid rounding; and the same bits at any thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/runtime/kernels/compute/conv_nhwc.h>
#include <executorch/runtime/kernels/compute/vmath_span.h>

#include "test_util.h"

namespace {

namespace compute = executorch::kernels::compute;
namespace tp = executorch::extension::threadpool;
using compute::ConvNhwcParams;
using compute::Isa;
using compute_test::random_floats;

ConvNhwcParams make(int64_t n, int64_t ci, int64_t hw, int64_t co, int64_t k, int64_t s,
                    int64_t pad, int64_t dil, int64_t groups, int64_t extra = 0) {
  return compute_test::square_nhwc_params(n, ci, hw, co, k, s, pad, dil, groups, extra);
}

std::string describe(const ConvNhwcParams& p) {
  return testing::PrintToString(
             std::vector<int64_t>{p.batch, p.in_h, p.in_w, p.in_channels, p.out_h, p.out_w,
                                  p.out_channels, p.groups, p.kernel_h, p.kernel_w, p.stride_h,
                                  p.stride_w, p.dilation_h, p.dilation_w, p.pad_top, p.pad_left}) +
         " clamp [" + std::to_string(p.clamp_min) + ", " + std::to_string(p.clamp_max) + "]";
}

// The reference: y[n, oh, ow, oc] in double, with the summed magnitude for the tolerance.
// The filter is OHWI for the dense form ([co, kh, kw, ci/groups]) and [kh, kw, co] for
// depthwise (groups == input channels: output channel oc reads input channel oc / multiplier).
void check_against_reference(const ConvNhwcParams& p, bool depthwise, const std::vector<float>& x,
                             const std::vector<float>& w, const float* bias,
                             const std::vector<float>& y) {
  const int64_t gic = p.in_channels / p.groups, goc = p.out_channels / p.groups;
  int bad = 0;
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t oh = 0; oh < p.out_h; ++oh)
      for (int64_t ow = 0; ow < p.out_w; ++ow)
        for (int64_t oc = 0; oc < p.out_channels; ++oc) {
          const int64_t g = oc / goc;
          double s = bias != nullptr ? bias[oc] : 0.0, mag = std::fabs(s);
          for (int64_t r = 0; r < p.kernel_h; ++r) {
            const int64_t ih = oh * p.stride_h - p.pad_top + r * p.dilation_h;
            if (ih < 0 || ih >= p.in_h)
              continue;
            for (int64_t q = 0; q < p.kernel_w; ++q) {
              const int64_t iw = ow * p.stride_w - p.pad_left + q * p.dilation_w;
              if (iw < 0 || iw >= p.in_w)
                continue;
              for (int64_t ci = 0; ci < gic; ++ci) {
                const float xv =
                    x[((n * p.in_h + ih) * p.in_w + iw) * p.in_channels + g * gic + ci];
                const float wv = depthwise ? w[(r * p.kernel_w + q) * p.out_channels + oc]
                                           : w[((oc * p.kernel_h + r) * p.kernel_w + q) * gic + ci];
                const double t = static_cast<double>(xv) * wv;
                s += t;
                mag += std::fabs(t);
              }
            }
          }
          s = std::min<double>(std::max<double>(s, p.clamp_min), p.clamp_max);
          const double tol = 2.0 * (gic * p.kernel_h * p.kernel_w + 5) * 6e-8 * mag + 1e-7;
          const double got = y[((n * p.out_h + oh) * p.out_w + ow) * p.out_channels + oc];
          if (!(std::fabs(got - s) <= tol) && bad++ < 5) {
            ADD_FAILURE() << "y[" << n << "," << oh << "," << ow << "," << oc << "] = " << got
                          << ", want " << s;
          }
        }
}

struct Operands {
  std::vector<float> x, w, bias;
};

Operands operands(const ConvNhwcParams& p, bool depthwise, std::mt19937& rng) {
  const int64_t gic = p.in_channels / p.groups;
  Operands o;
  o.x = random_floats(static_cast<size_t>(p.batch * p.in_h * p.in_w * p.in_channels), rng);
  o.w = random_floats(
      static_cast<size_t>(p.out_channels * p.kernel_h * p.kernel_w * (depthwise ? 1 : gic)), rng);
  o.bias = random_floats(static_cast<size_t>(p.out_channels), rng);
  return o;
}

size_t out_numel(const ConvNhwcParams& p) {
  return static_cast<size_t>(p.batch * p.out_h * p.out_w * p.out_channels);
}

// Packs and runs conv2d_nhwc; NaN-filled output, so every element must be written.
std::vector<float> run_dense(const ConvNhwcParams& p, const Operands& o, bool with_bias,
                             bool use_workspace) {
  std::vector<unsigned char> packed(compute::conv2d_nhwc_packed_size(p));
  EXPECT_FALSE(packed.empty());
  EXPECT_TRUE(
      compute::conv2d_nhwc_pack(p, o.w.data(), with_bias ? o.bias.data() : nullptr, packed.data()));
  std::vector<unsigned char> ws(use_workspace ? compute::conv2d_nhwc_workspace_size(p) : 0);
  std::vector<float> y(out_numel(p), std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(compute::conv2d_nhwc(p, packed.data(), o.x.data(), y.data(),
                                   use_workspace ? ws.data() : nullptr, ws.size()));
  return y;
}

class ConvNhwcTest : public testing::TestWithParam<Isa> {
 protected:
  void SetUp() override {
    scope_.reset(new compute_test::IsaScope(GetParam()));
  }
  void TearDown() override {
    scope_.reset();
  }

  void check_dense(const ConvNhwcParams& p, bool with_bias = true, bool use_workspace = true) {
    SCOPED_TRACE(describe(p) + " bias " + std::to_string(with_bias));
    ASSERT_TRUE(compute::conv2d_nhwc_params_valid(p));
    const Operands o = operands(p, false, rng_);
    check_against_reference(p, false, o.x, o.w, with_bias ? o.bias.data() : nullptr,
                            run_dense(p, o, with_bias, use_workspace));
  }

  void check_depthwise(const ConvNhwcParams& p, bool with_bias = true) {
    SCOPED_TRACE(describe(p) + " bias " + std::to_string(with_bias));
    const Operands o = operands(p, true, rng_);
    std::vector<float> y(out_numel(p), std::numeric_limits<float>::quiet_NaN());
    ASSERT_TRUE(compute::depthwise_conv2d_nhwc_isa(
        GetParam(), p, o.w.data(), with_bias ? o.bias.data() : nullptr, o.x.data(), y.data()));
    check_against_reference(p, true, o.x, o.w, with_bias ? o.bias.data() : nullptr, y);
  }

  std::unique_ptr<compute_test::IsaScope> scope_;
  std::mt19937 rng_{7};
};

TEST_P(ConvNhwcTest, PointwiseReadsTheInputInPlace) {
  //                N  Ci  HW Co  k  s pad dil g
  check_dense(make(1, 16, 7, 24, 1, 1, 0, 1, 1));
  check_dense(make(2, 5, 3, 3, 1, 1, 0, 1, 1), false, false);
  check_dense(make(1, 3, 1, 1, 1, 1, 0, 1, 1));          // 1x1 image, one output
  check_dense(make(1, 37, 23, 45, 1, 1, 0, 1, 1));       // 529 pixels: several blocks
  check_dense(make(1, 300, 5, 33, 1, 1, 0, 1, 1));       // deeper than one kc block
  check_dense(make(1, 12, 6, 10, 1, 1, 0, 1, 2), true);  // two groups side by side
}

TEST_P(ConvNhwcTest, StridedOrPaddedPointwiseIsGathered) {
  check_dense(make(1, 19, 9, 21, 1, 2, 0, 1, 1));   // ResNet's downsampling shortcut
  check_dense(make(2, 8, 4, 5, 1, 1, 1, 1, 1));     // padding: border pixels are bias only
  check_dense(make(1, 7, 7, 9, 1, 3, 0, 1, 1, 1));  // one extra column in trailing padding
}

TEST_P(ConvNhwcTest, KxKWithPaddingStrideDilation) {
  check_dense(make(1, 3, 17, 8, 3, 2, 1, 1, 1));                 // a stem
  check_dense(make(1, 3, 23, 5, 7, 2, 3, 1, 1));                 // ResNet's 7x7 stem shape
  check_dense(make(2, 17, 9, 13, 3, 1, 1, 1, 1), false);         // batch 2, odd channels
  check_dense(make(1, 6, 11, 7, 3, 1, 2, 2, 1));                 // dilation 2
  check_dense(make(1, 4, 8, 6, 5, 2, 2, 1, 1, 1));               // trailing padding row/column
  check_dense(make(1, 9, 1, 11, 3, 1, 1, 1, 1));                 // 1x1 image, 3x3 kernel
  check_dense(make(1, 64, 19, 20, 3, 1, 1, 1, 1), true, false);  // several blocks, scratch
  check_dense(make(1, 12, 10, 18, 3, 2, 1, 1, 3));               // groups
  check_dense(make(3, 40, 9, 8, 3, 1, 1, 1, 1));  // a block starting inside the 3rd image
  check_dense(make(1, 2, 6, 4, 3, 1, 2, 3, 2));   // groups and dilation: one tap at a time
}

// KxK windows read in place from the input or its zero-padded copy, or gathered block by
// block: many output channels per group (more than 8 panels of 32), and a stride and padding
// far beyond the kernel's reach (a padded copy many times the input's size) take the gather.
TEST_P(ConvNhwcTest, KxKReadInPlaceOrGathered) {
  check_dense(make(1, 5, 13, 20, 3, 1, 0, 1, 1));               // no padding: the input itself
  check_dense(make(1, 5, 13, 20, 3, 1, 1, 1, 1), true, false);  // padded copy in scratch
  check_dense(make(2, 6, 9, 263, 3, 2, 1, 1, 1));               // 9 panels: gathered
  check_dense(make(1, 8, 7, 300, 3, 1, 1, 1, 2));               // 5 panels a group, 2 groups
  check_dense(make(1, 64, 8, 16, 2, 30, 14, 1, 1));             // huge stride: gathered
  check_dense(make(1, 64, 8, 16, 2, 30, 14, 1, 1), true, false);
}

TEST_P(ConvNhwcTest, AsymmetricWindowAndClamp) {
  ConvNhwcParams p = make(1, 5, 12, 11, 3, 1, 1, 1, 1);
  p.in_w = 9;
  p.kernel_w = 5;
  p.stride_w = 2;
  p.pad_left = 2;
  p.out_w = (9 + 4 - 5) / 2 + 1;
  p.clamp_min = 0.0f;
  p.clamp_max = 0.5f;
  check_dense(p);
}

TEST_P(ConvNhwcTest, Depthwise) {
  //                    N  C  HW Co  k  s pad dil  g
  check_depthwise(make(1, 32, 9, 32, 3, 1, 1, 1, 32));
  check_depthwise(make(1, 24, 8, 24, 3, 2, 1, 1, 24));      // 16 + 8 channel tail
  check_depthwise(make(2, 80, 7, 80, 5, 1, 2, 1, 80));      // a 64 block, then 16
  check_depthwise(make(1, 67, 6, 67, 5, 2, 2, 1, 67));      // 64 + 3 scalar channels
  check_depthwise(make(1, 7, 5, 7, 3, 1, 1, 1, 7), false);  // fewer channels than a vector
  check_depthwise(make(1, 19, 10, 19, 3, 1, 2, 2, 19));     // dilation 2
  check_depthwise(make(1, 40, 1, 40, 3, 1, 1, 1, 40));      // 1x1 image
  check_depthwise(make(1, 16, 6, 16, 3, 2, 1, 1, 16, 1));   // trailing padding
}

// Rows with many interior pixels: 8 at a time through the input-reuse loops (3x3 and 5x5,
// stride 1 and 2), then a group of 4, then one at a time; every channel block width, batch 2,
// a clamp.
TEST_P(ConvNhwcTest, DepthwiseWideRows) {
  for (int64_t k : {3, 5}) {
    for (int64_t s : {1, 2}) {
      check_depthwise(make(1, 43, 23, 43, k, s, k / 2, 1, 43));  // 32 + 8 + 3 channels
      check_depthwise(make(2, 20, 30, 20, k, s, k / 2, 1, 20));  // 16 + 4
      ConvNhwcParams clamped = make(1, 64, 21, 64, k, s, 0, 1, 64);
      clamped.clamp_min = -0.2f;
      clamped.clamp_max = 0.4f;
      check_depthwise(clamped);
    }
  }
  // Small images: every group of 8 reaches into the padding on one side or both.
  check_depthwise(make(1, 33, 7, 33, 5, 1, 2, 1, 33));
  check_depthwise(make(1, 48, 5, 48, 3, 2, 1, 1, 48));
  check_depthwise(make(1, 16, 3, 16, 5, 1, 2, 1, 16));
  check_depthwise(make(1, 24, 14, 24, 5, 2, 2, 1, 24, 1));  // an extra trailing column
  check_depthwise(make(1, 32, 25, 32, 3, 1, 2, 2, 32));     // dilation 2 keeps the plain loop
  check_depthwise(make(1, 16, 24, 16, 7, 1, 3, 1, 16));     // 7x7 too
}

// Windows whose kernel rows differ from their columns, or are dilated vertically only: the
// whole-window loops (every kernel row inside the image) apply only to square windows, and
// everything else takes the rows that fall inside the image.
TEST_P(ConvNhwcTest, DepthwiseNonSquareWindows) {
  for (int64_t kh : {1, 3, 5}) {
    for (int64_t kw : {3, 5}) {
      for (int64_t s : {1, 2}) {
        ConvNhwcParams p = make(1, 40, 19, 40, kw, s, kw / 2, 1, 40);  // 32 + 8 channels
        p.kernel_h = kh;
        p.pad_top = kh / 2;
        p.out_h = (p.in_h + 2 * p.pad_top - kh) / s + 1;
        check_depthwise(p);
      }
    }
  }
  ConvNhwcParams tall = make(1, 21, 20, 21, 3, 1, 1, 1, 21);  // 16 + 5 scalar channels
  tall.dilation_h = 3;
  tall.pad_top = 3;
  check_depthwise(tall);
}

TEST_P(ConvNhwcTest, DepthwiseMultiplierAndClamp) {
  check_depthwise(make(1, 8, 7, 16, 3, 1, 1, 1, 8));  // multiplier 2
  check_depthwise(make(1, 5, 6, 15, 5, 2, 2, 1, 5));  // multiplier 3
  ConvNhwcParams relu6 = make(1, 48, 9, 48, 3, 1, 1, 1, 48);
  relu6.clamp_min = 0.0f;
  relu6.clamp_max = 0.3f;
  check_depthwise(relu6);
}

// A fused activation gives exactly the bits of the convolution without it followed by the
// elementwise routine (the backend fuses them only because of this): pointwise in place and
// gathered, a partial panel, groups, depthwise over every channel path (vectors of 16 and 8,
// the scalar tail, a multiplier), a clamp before the activation.
TEST_P(ConvNhwcTest, FusedActivationIsTheElementwiseRoutineBitForBit) {
  ConvNhwcParams clamped = make(1, 7, 6, 45, 3, 1, 1, 1, 1);
  clamped.clamp_min = -1.5f;
  clamped.clamp_max = 2.5f;
  const ConvNhwcParams dense[] = {
      make(1, 16, 9, 45, 1, 1, 0, 1, 1),  // in place, 32 + 13 columns
      make(1, 3, 13, 16, 3, 2, 1, 1, 1),  // a stem
      make(1, 12, 5, 18, 3, 1, 1, 1, 3),  // groups
      make(1, 5, 1, 7, 1, 1, 0, 1, 1),    // one pixel
      clamped,
  };
  ConvNhwcParams dw_clamped = make(1, 67, 6, 67, 3, 1, 1, 1, 67);
  dw_clamped.clamp_min = -1.0f;
  dw_clamped.clamp_max = 1.0f;
  const ConvNhwcParams depthwise[] = {
      make(1, 27, 9, 27, 3, 1, 1, 1, 27),   // 16 + 8 + 3 channels
      make(1, 67, 8, 67, 5, 2, 2, 1, 67),   // 64 + 3, stride 2
      make(1, 4, 5, 8, 3, 1, 1, 1, 4),      // multiplier 2
      make(1, 24, 21, 24, 3, 1, 1, 1, 24),  // wide rows: the input-reuse loops
      dw_clamped,
  };
  const compute::ConvActivation acts[] = {compute::ConvActivation::kSigmoidMul,
                                          compute::ConvActivation::kHardswish};
  for (compute::ConvActivation act : acts) {
    auto apart = [act](std::vector<float> y) {
      const int64_t n = static_cast<int64_t>(y.size());
      if (act == compute::ConvActivation::kSigmoidMul)
        compute::span_sigmoid_mul(y.data(), y.data(), n);
      else
        compute::span_hardswish(y.data(), y.data(), n);
      return y;
    };
    for (ConvNhwcParams p : dense) {
      SCOPED_TRACE(describe(p) + " activation " + std::to_string(static_cast<int>(act)));
      // Wider values, so the outputs reach both saturated ends of each activation.
      Operands o = operands(p, false, rng_);
      for (float& v : o.x)
        v *= 4.0f;
      const std::vector<float> want = apart(run_dense(p, o, true, true));
      p.activation = act;
      ASSERT_TRUE(compute::conv2d_nhwc_params_valid(p));
      const std::vector<float> got = run_dense(p, o, true, true);
      ASSERT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(float)));
    }
    for (ConvNhwcParams p : depthwise) {
      SCOPED_TRACE(describe(p) + " activation " + std::to_string(static_cast<int>(act)));
      Operands o = operands(p, true, rng_);
      for (float& v : o.x)
        v *= 4.0f;
      std::vector<float> plain(out_numel(p)), got(out_numel(p));
      ASSERT_TRUE(compute::depthwise_conv2d_nhwc_isa(GetParam(), p, o.w.data(), o.bias.data(),
                                                     o.x.data(), plain.data()));
      p.activation = act;
      ASSERT_TRUE(compute::depthwise_conv2d_nhwc_isa(GetParam(), p, o.w.data(), o.bias.data(),
                                                     o.x.data(), got.data()));
      const std::vector<float> want = apart(plain);
      ASSERT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(float)));
    }
  }
}

// The grid rounding the int8 programs ask for, written the plain way.
float on_grid(float y, const ConvNhwcParams& p) {
  float q = std::nearbyint(y / p.out_scale) + p.out_zero_point;
  q = std::min(std::max(q, p.out_qmin), p.out_qmax);
  return (q - p.out_zero_point) * p.out_scale;
}

// With an output grid, every output is exactly the grid point of the output without one.
TEST_P(ConvNhwcTest, OutputGridRoundsEveryOutput) {
  struct Grid {
    float scale, zero_point, qmin, qmax;
  };
  // int8 with an offset zero point; uint8 around 128; a coarse one that clamps at both ends.
  const Grid grids[] = {{0.013f, 3, -128, 127}, {0.02f, 128, 0, 255}, {0.5f, -2, -4, 3}};
  const ConvNhwcParams shapes[] = {
      make(1, 13, 6, 19, 1, 1, 0, 1, 1),  // pointwise
      make(1, 5, 7, 21, 3, 2, 1, 1, 1),   // gathered
  };
  const ConvNhwcParams dw_shapes[] = {make(1, 83, 5, 83, 3, 1, 1, 1, 83),
                                      make(1, 4, 5, 8, 3, 1, 1, 1, 4)};
  for (const Grid& grid : grids) {
    auto with_grid = [&](ConvNhwcParams p) {
      p.clamp_min = -1.5f;
      p.out_scale = grid.scale;
      p.out_zero_point = grid.zero_point;
      p.out_qmin = grid.qmin;
      p.out_qmax = grid.qmax;
      return p;
    };
    auto expect_on_grid = [&](const ConvNhwcParams& p, const std::vector<float>& plain,
                              const std::vector<float>& rounded) {
      SCOPED_TRACE(describe(p) + " scale " + std::to_string(p.out_scale));
      int bad = 0;
      for (size_t i = 0; i < plain.size(); ++i) {
        const float want = on_grid(plain[i], p);
        if (std::memcmp(&rounded[i], &want, sizeof want) != 0 && bad++ < 5)
          ADD_FAILURE() << "y[" << i << "] = " << rounded[i] << ", want " << want;
      }
    };
    for (ConvNhwcParams p : shapes) {
      p.clamp_min = -1.5f;
      const Operands o = operands(p, false, rng_);
      const ConvNhwcParams q = with_grid(p);
      ASSERT_TRUE(compute::conv2d_nhwc_params_valid(q));
      expect_on_grid(q, run_dense(p, o, true, true), run_dense(q, o, true, true));
    }
    for (ConvNhwcParams p : dw_shapes) {
      p.clamp_min = -1.5f;
      const Operands o = operands(p, true, rng_);
      const ConvNhwcParams q = with_grid(p);
      std::vector<float> plain(out_numel(p)), rounded(out_numel(p));
      ASSERT_TRUE(compute::depthwise_conv2d_nhwc_isa(GetParam(), p, o.w.data(), o.bias.data(),
                                                     o.x.data(), plain.data()));
      ASSERT_TRUE(compute::depthwise_conv2d_nhwc_isa(GetParam(), q, o.w.data(), o.bias.data(),
                                                     o.x.data(), rounded.data()));
      expect_on_grid(q, plain, rounded);
    }
  }
}

// The rounding on its own, over lengths around the vector width and large enough to split
// across threads: exactly the plain loop, NaN and infinities included.
TEST_P(ConvNhwcTest, QuantizeToGridMatchesThePlainRounding) {
  ConvNhwcParams grid;
  grid.out_scale = 0.037f;
  grid.out_zero_point = -5;
  grid.out_qmin = -128;
  grid.out_qmax = 127;
  for (int64_t n : {0, 1, 15, 16, 17, 33, 5000}) {
    std::vector<float> x = random_floats(static_cast<size_t>(n), rng_, -6.0f, 6.0f);
    if (n > 3) {
      x[0] = std::numeric_limits<float>::quiet_NaN();
      x[1] = std::numeric_limits<float>::infinity();
      x[2] = -std::numeric_limits<float>::infinity();
      x[3] = 0.5f * grid.out_scale;  // a tie: to even
    }
    std::vector<float> want(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      want[i] = on_grid(x[i], grid);
    ASSERT_TRUE(compute::quantize_to_grid_isa(GetParam(), x.data(), n, grid.out_scale,
                                              grid.out_zero_point, grid.out_qmin, grid.out_qmax));
    for (size_t i = 0; i < x.size(); ++i) {
      if (std::isnan(want[i]))
        EXPECT_TRUE(std::isnan(x[i])) << i;
      else
        EXPECT_EQ(x[i], want[i]) << "n " << n << " i " << i;
    }
  }
  float v = 1.0f;
  EXPECT_FALSE(compute::quantize_to_grid(&v, 1, 0.1f, 0, -32768, 32767));
  EXPECT_FALSE(compute::quantize_to_grid(&v, 1, 0.0f, 0, -128, 127));
  EXPECT_FALSE(compute::quantize_to_grid(&v, 1, 0.1f, 0.5f, -128, 127));
  EXPECT_EQ(v, 1.0f);
}

TEST_P(ConvNhwcTest, RejectsInvalidParameters) {
  ConvNhwcParams p = make(1, 6, 5, 4, 3, 1, 1, 1, 4);  // 6 channels in 4 groups
  EXPECT_FALSE(compute::conv2d_nhwc_params_valid(p));
  EXPECT_EQ(compute::conv2d_nhwc_packed_size(p), 0u);
  float x = 0, y = 0;
  EXPECT_FALSE(compute::depthwise_conv2d_nhwc(p, &x, nullptr, &x, &y));
  p = make(1, 4, 5, 4, 3, 1, 1, 1, 1);
  p.stride_h = 0;
  EXPECT_FALSE(compute::conv2d_nhwc_params_valid(p));
  p = make(1, 4, 5, 4, 3, 1, 1, 1, 1);
  p.pad_top = -1;
  EXPECT_FALSE(compute::conv2d_nhwc_params_valid(p));
  p = make(1, 4, 5, 4, 3, 1, 1, 1, 1);
  p.out_h = int64_t{1} << 40;
  EXPECT_FALSE(compute::conv2d_nhwc_params_valid(p));
  // A grid wider than 8 bits (its rounding would not be exact), or a bad scale.
  p = make(1, 4, 5, 4, 3, 1, 1, 1, 1);
  p.out_scale = 0.1f;
  p.out_qmin = -32768;
  p.out_qmax = 32767;
  EXPECT_FALSE(compute::conv2d_nhwc_params_valid(p));
  p.out_qmin = -128;
  p.out_qmax = 127;
  EXPECT_TRUE(compute::conv2d_nhwc_params_valid(p));
  p.out_scale = -0.1f;
  EXPECT_FALSE(compute::conv2d_nhwc_params_valid(p));
  // An activation on a grid output, or one that does not exist.
  p = make(1, 4, 5, 4, 3, 1, 1, 1, 1);
  p.activation = compute::ConvActivation::kHardswish;
  EXPECT_TRUE(compute::conv2d_nhwc_params_valid(p));
  p.out_scale = 0.1f;
  p.out_qmin = -128;
  p.out_qmax = 127;
  EXPECT_FALSE(compute::conv2d_nhwc_params_valid(p));
  p.out_scale = 0.0f;
  p.activation = static_cast<compute::ConvActivation>(7);
  EXPECT_FALSE(compute::conv2d_nhwc_params_valid(p));
  // Not depthwise: groups must equal the input channels.
  p = make(1, 4, 5, 8, 3, 1, 1, 1, 2);
  EXPECT_TRUE(compute::conv2d_nhwc_params_valid(p));
  EXPECT_FALSE(compute::depthwise_conv2d_nhwc(p, &x, nullptr, &x, &y));
}

TEST_P(ConvNhwcTest, SameBitsAtAnyThreadCount) {
  const ConvNhwcParams dense[] = {
      // Large enough that the SGEMM splits each block across the threads.
      make(1, 64, 56, 64, 1, 1, 0, 1, 1),  // pointwise, several blocks
      make(1, 32, 60, 48, 3, 2, 1, 1, 1),  // read in place from a padded copy
      // One block's rows (a 7x7 or 14x14 image) split into smaller blocks per thread.
      make(1, 576, 7, 160, 1, 1, 0, 1, 1), make(1, 96, 14, 64, 3, 1, 1, 1, 1),
      make(1, 64, 9, 300, 3, 1, 1, 1, 1),  // 10 panels: gathered, panels cut into parts
  };
  const ConvNhwcParams dw = make(1, 40, 28, 40, 5, 1, 2, 1, 40);
  for (const ConvNhwcParams& p : dense) {
    SCOPED_TRACE(describe(p));
    const Operands o = operands(p, false, rng_);
    ASSERT_TRUE(tp::set_num_threads(1));
    const std::vector<float> want = run_dense(p, o, true, true);
    for (size_t threads : {2, 3, 4}) {
      ASSERT_TRUE(tp::set_num_threads(threads));
      const std::vector<float> got = run_dense(p, o, true, true);
      ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0) << threads;
    }
  }
  const Operands o = operands(dw, true, rng_);
  auto run_dw = [&] {
    std::vector<float> y(out_numel(dw));
    EXPECT_TRUE(
        compute::depthwise_conv2d_nhwc(dw, o.w.data(), o.bias.data(), o.x.data(), y.data()));
    return y;
  };
  ASSERT_TRUE(tp::set_num_threads(1));
  const std::vector<float> want = run_dw();
  for (size_t threads : {2, 3, 4}) {
    ASSERT_TRUE(tp::set_num_threads(threads));
    const std::vector<float> got = run_dw();
    ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0) << threads;
  }
  ASSERT_TRUE(tp::set_num_threads(1));
}

// The dense convolution splits its pixel blocks (and, when there are few blocks, each block's
// panels) across the threads; a unit of that split gathers its block into its own thread's
// buffer, or the caller's workspace on the calling thread. At 2, 3 and 4 threads the output
// must match the reference and be the 1-thread bits, with and without a workspace: odd
// channel counts and partial panels, a short last block, batch 2, groups, and a 1x1 read in
// place with its panels as the units.
TEST_P(ConvNhwcTest, SplitUnitsMatchTheReferenceAtAnyThreadCount) {
  const ConvNhwcParams cases[] = {
      make(2, 24, 33, 40, 3, 1, 1, 1, 1),   // 13 blocks, the last one short
      make(1, 48, 20, 200, 3, 1, 1, 1, 1),  // 3 blocks, 7 panels cut into parts
      make(1, 36, 23, 30, 3, 2, 1, 1, 3),   // groups, one block each
      make(1, 64, 9, 100, 3, 1, 1, 1, 1),   // one block, its 4 panels cut into one part per thread
      make(1, 40, 30, 100, 1, 1, 0, 1, 1),  // read in place: units are single panels
  };
  for (const ConvNhwcParams& p : cases) {
    SCOPED_TRACE(describe(p));
    const Operands o = operands(p, false, rng_);
    ASSERT_TRUE(tp::set_num_threads(1));
    const std::vector<float> want = run_dense(p, o, true, false);
    check_against_reference(p, false, o.x, o.w, o.bias.data(), want);
    for (size_t threads : {2, 3, 4}) {
      ASSERT_TRUE(tp::set_num_threads(threads));
      for (bool use_workspace : {false, true}) {
        const std::vector<float> got = run_dense(p, o, true, use_workspace);
        ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
            << threads << " threads, workspace " << use_workspace;
      }
    }
  }
  ASSERT_TRUE(tp::set_num_threads(1));
}

INSTANTIATE_TEST_SUITE_P(Isa, ConvNhwcTest, testing::ValuesIn(compute_test::supported_isas()),
                         compute_test::isa_param_name);

}  // namespace
