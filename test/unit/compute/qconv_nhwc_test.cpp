// qconv2d_nhwc and qdepthwise_conv2d_nhwc against a plain integer loop (bit for bit: the same
// int32 sum and the same float requantization) and against the float convolution rounding onto
// the output grid (within one output quantum), at every ISA level the CPU supports (the avx512
// level with and without VNNI): 1x1 images, 1x1 kernels, K x K windows read tap by tap in place
// with padding, stride and dilation, groups gathered into im2col rows, channel counts that are
// not a multiple of 4 or of the panel width, several blocks of output pixels, qint8 and quint8
// inputs with non-zero zero points, output clamps, depthwise multipliers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <executorch/runtime/kernels/compute/qconv_nhwc.h>
#include <executorch/runtime/kernels/compute/qconv_nhwc_kernels.h>

#include "test_util.h"

namespace {

namespace compute = executorch::kernels::compute;
using compute::ConvNhwcParams;
using compute::Isa;
using compute::QConvNhwcParams;

struct Variant {
  Isa isa;
  bool vnni;
};

std::vector<Variant> variants() {
  std::vector<Variant> v;
  for (Isa isa : compute_test::supported_isas()) {
    v.push_back({isa, true});
#if defined(__x86_64__)
    if (isa == Isa::kAvx512)
      v.push_back({isa, false});
#endif
  }
  return v;
}

std::string variant_name(const testing::TestParamInfo<Variant>& info) {
  const bool saved = compute::set_qconv_vnni_allowed(info.param.vnni);
  // The level and the kernels it runs (levels without variants of their own run baseline's).
  std::string name = std::string(compute::isa_name(info.param.isa)) + "_" +
                     compute::qconv_variant_name(info.param.isa);
  compute::set_qconv_vnni_allowed(saved);
  return name + (info.param.vnni ? "" : "_novnni");
}

// Square geometry (compute_test::square_nhwc_params) on grids with non-zero zero points.
QConvNhwcParams make(int64_t n, int64_t ci, int64_t hw, int64_t co, int64_t k, int64_t s,
                     int64_t pad, int64_t dil, int64_t groups) {
  QConvNhwcParams q;
  q.conv = compute_test::square_nhwc_params(n, ci, hw, co, k, s, pad, dil, groups);
  q.in_scale = 0.05f;
  q.in_zero_point = 3;
  q.out_scale = 0.11f;
  q.out_zero_point = -7;
  return q;
}

void use_quint8(QConvNhwcParams& q, int32_t in_zp, int32_t out_zp) {
  q.in_qmin = q.out_qmin = 0;
  q.in_qmax = q.out_qmax = 255;
  q.in_zero_point = in_zp;
  q.out_zero_point = out_zp;
}

// Integer operands: the input's integers (on its grid), int8 weights, per-channel scales and an
// int32 bias, and the input as the floats they stand for.
struct Operands {
  std::vector<int32_t> xq;
  std::vector<float> x;
  std::vector<int8_t> w;
  std::vector<float> w_scale;
  std::vector<int32_t> bias;
};

Operands operands(const QConvNhwcParams& q, bool depthwise, std::mt19937& rng) {
  const ConvNhwcParams& p = q.conv;
  Operands o;
  const size_t nx = static_cast<size_t>(p.batch * p.in_h * p.in_w * p.in_channels);
  std::uniform_int_distribution<int32_t> xd(q.in_qmin, q.in_qmax), wd(-128, 127), bd(-3000, 3000);
  std::uniform_real_distribution<float> sd(0.002f, 0.02f);
  for (size_t i = 0; i < nx; ++i) {
    o.xq.push_back(xd(rng));
    o.x.push_back(static_cast<float>(o.xq.back() - q.in_zero_point) * q.in_scale);
  }
  const int64_t gic = depthwise ? 1 : p.in_channels / p.groups;
  const size_t nw = static_cast<size_t>(p.out_channels * p.kernel_h * p.kernel_w * gic);
  for (size_t i = 0; i < nw; ++i)
    o.w.push_back(static_cast<int8_t>(wd(rng)));
  for (int64_t c = 0; c < p.out_channels; ++c) {
    o.w_scale.push_back(sd(rng));
    o.bias.push_back(bd(rng));
  }
  return o;
}

// The output grid narrowed by the clamp, relative to the zero point, as qconv_nhwc.h says.
void clamp_bounds(const QConvNhwcParams& q, float* lo, float* hi) {
  auto bound = [&](float b) {
    const float v = b / q.out_scale + static_cast<float>(q.out_zero_point);
    return std::nearbyint(
        std::min(std::max(v, static_cast<float>(q.out_qmin)), static_cast<float>(q.out_qmax)));
  };
  *lo = bound(q.conv.clamp_min) - static_cast<float>(q.out_zero_point);
  *hi = bound(q.conv.clamp_max) - static_cast<float>(q.out_zero_point);
}

// The plain loop: exact int64 sums of (q - zero point) * w + bias, requantized in float.
std::vector<float> reference(const QConvNhwcParams& q, bool depthwise, const Operands& o) {
  const ConvNhwcParams& p = q.conv;
  const int64_t gic = p.in_channels / p.groups, goc = p.out_channels / p.groups;
  float lo, hi;
  clamp_bounds(q, &lo, &hi);
  std::vector<float> y;
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t oh = 0; oh < p.out_h; ++oh)
      for (int64_t ow = 0; ow < p.out_w; ++ow)
        for (int64_t oc = 0; oc < p.out_channels; ++oc) {
          const int64_t g = oc / goc;
          int64_t acc = o.bias[oc];
          for (int64_t r = 0; r < p.kernel_h; ++r) {
            const int64_t ih = oh * p.stride_h - p.pad_top + r * p.dilation_h;
            if (ih < 0 || ih >= p.in_h)
              continue;
            for (int64_t s = 0; s < p.kernel_w; ++s) {
              const int64_t iw = ow * p.stride_w - p.pad_left + s * p.dilation_w;
              if (iw < 0 || iw >= p.in_w)
                continue;
              for (int64_t ci = 0; ci < gic; ++ci) {
                const int64_t xi = ((n * p.in_h + ih) * p.in_w + iw) * p.in_channels + g * gic + ci;
                const int64_t wi = depthwise ? (r * p.kernel_w + s) * p.out_channels + oc
                                             : ((oc * p.kernel_h + r) * p.kernel_w + s) * gic + ci;
                acc += static_cast<int64_t>(o.xq[xi] - q.in_zero_point) * o.w[wi];
              }
            }
          }
          const float scale = q.in_scale * o.w_scale[oc] / q.out_scale;
          float v = static_cast<float>(static_cast<int32_t>(acc)) * scale;
          v = std::min(std::max(v, lo), hi);
          y.push_back(std::nearbyint(v) * q.out_scale);
        }
  return y;
}

// The float convolution of the same values (dequantized weights and bias) rounding onto the
// output grid: the backend's float emulation.
std::vector<float> float_emulation(const QConvNhwcParams& q, bool depthwise, const Operands& o) {
  ConvNhwcParams p = q.conv;
  p.out_scale = q.out_scale;
  p.out_zero_point = static_cast<float>(q.out_zero_point);
  p.out_qmin = static_cast<float>(q.out_qmin);
  p.out_qmax = static_cast<float>(q.out_qmax);
  std::vector<float> w(o.w.size()), bias(o.bias.size());
  const size_t per_channel = depthwise ? 1 : w.size() / o.bias.size();
  for (size_t i = 0; i < w.size(); ++i) {
    const size_t oc = depthwise ? i % o.bias.size() : i / per_channel;
    w[i] = static_cast<float>(o.w[i]) * o.w_scale[oc];
  }
  for (size_t c = 0; c < bias.size(); ++c)
    bias[c] = static_cast<float>(o.bias[c]) * (q.in_scale * o.w_scale[c]);
  std::vector<float> y(static_cast<size_t>(p.batch * p.out_h * p.out_w * p.out_channels));
  if (depthwise) {
    EXPECT_TRUE(compute::depthwise_conv2d_nhwc(p, w.data(), bias.data(), o.x.data(), y.data()));
  } else {
    std::vector<unsigned char> packed(compute::conv2d_nhwc_packed_size(p));
    EXPECT_TRUE(compute::conv2d_nhwc_pack(p, w.data(), bias.data(), packed.data()));
    EXPECT_TRUE(compute::conv2d_nhwc(p, packed.data(), o.x.data(), y.data()));
  }
  // The emulation keeps (q - zero_point) * scale; the integer path writes the same form.
  return y;
}

class QConvNhwcTest : public testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    saved_vnni_ = compute::set_qconv_vnni_allowed(GetParam().vnni);
  }
  void TearDown() override {
    compute::set_qconv_vnni_allowed(saved_vnni_);
  }

  // Runs the integer convolution (NaN-filled output, so every element must be written) and
  // checks it against both references.
  void check(const QConvNhwcParams& q, bool depthwise, bool use_workspace = true) {
    const ConvNhwcParams& p = q.conv;
    SCOPED_TRACE(testing::PrintToString(std::vector<int64_t>{
        p.batch, p.in_h, p.in_channels, p.out_h, p.out_channels, p.groups, p.kernel_h, p.stride_h,
        p.dilation_h, p.pad_top, q.in_zero_point, q.out_zero_point, q.in_qmin}));
    ASSERT_TRUE(compute::qconv2d_nhwc_params_valid(q));
    const Operands o = operands(q, depthwise, rng_);
    const size_t packed_bytes = depthwise ? compute::qdepthwise_conv2d_nhwc_packed_size(q)
                                          : compute::qconv2d_nhwc_packed_size(q);
    const size_t ws_bytes = depthwise ? compute::qdepthwise_conv2d_nhwc_workspace_size(q)
                                      : compute::qconv2d_nhwc_workspace_size(q);
    ASSERT_GT(packed_bytes, 0u);
    std::vector<unsigned char> packed(packed_bytes), ws(use_workspace ? ws_bytes : 0);
    std::vector<float> y(static_cast<size_t>(p.batch * p.out_h * p.out_w * p.out_channels),
                         std::numeric_limits<float>::quiet_NaN());
    if (depthwise) {
      ASSERT_TRUE(compute::qdepthwise_conv2d_nhwc_pack(q, o.w.data(), o.w_scale.data(),
                                                       o.bias.data(), packed.data()));
      ASSERT_TRUE(compute::qdepthwise_conv2d_nhwc_isa(GetParam().isa, q, packed.data(), o.x.data(),
                                                      y.data(), use_workspace ? ws.data() : nullptr,
                                                      ws.size()));
    } else {
      ASSERT_TRUE(compute::qconv2d_nhwc_pack(q, o.w.data(), o.w_scale.data(), o.bias.data(),
                                             packed.data()));
      ASSERT_TRUE(compute::qconv2d_nhwc_isa(GetParam().isa, q, packed.data(), o.x.data(), y.data(),
                                            use_workspace ? ws.data() : nullptr, ws.size()));
    }
    const std::vector<float> want = reference(q, depthwise, o);
    const std::vector<float> emulated = float_emulation(q, depthwise, o);
    int bad = 0;
    for (size_t i = 0; i < y.size() && bad < 5; ++i) {
      if (!(y[i] == want[i])) {
        ++bad;
        ADD_FAILURE() << "y[" << i << "] = " << y[i] << ", the integer loop gives " << want[i];
      }
      if (!(std::fabs(y[i] - emulated[i]) <= q.out_scale * 1.001f)) {
        ++bad;
        ADD_FAILURE() << "y[" << i << "] = " << y[i] << ", the float emulation gives "
                      << emulated[i] << ": more than one quantum apart";
      }
    }
  }

  std::mt19937 rng_{11};
  bool saved_vnni_ = true;
};

TEST_P(QConvNhwcTest, PointwiseReadsTheInputInPlace) {
  check(make(1, 5, 7, 19, 1, 1, 0, 1, 1), false);
  check(make(2, 16, 3, 16, 1, 1, 0, 1, 1), false);
  check(make(1, 64, 9, 40, 1, 1, 0, 1, 1), false, /*use_workspace=*/false);
}

TEST_P(QConvNhwcTest, OneByOneImage) {
  check(make(1, 3, 1, 17, 1, 1, 0, 1, 1), false);
  check(make(1, 7, 1, 33, 3, 1, 1, 1, 1), false);
}

TEST_P(QConvNhwcTest, StridedOrPaddedPointwise) {
  check(make(1, 6, 8, 21, 1, 2, 0, 1, 1), false);
  check(make(1, 9, 5, 8, 1, 1, 1, 1, 1), false);
}

TEST_P(QConvNhwcTest, KxKWithPaddingStrideDilation) {
  check(make(1, 3, 13, 32, 3, 2, 1, 1, 1), false);
  check(make(2, 5, 9, 11, 3, 1, 2, 2, 1), false);
  check(make(1, 4, 12, 7, 5, 3, 2, 1, 1), false);
}

TEST_P(QConvNhwcTest, OneGroupReadsTheTapsInPlace) {
  // One group: each window tap reads its input pixel (or a row of zero points) where it is, no
  // im2col; channels that are not a multiple of 4 read the pixel's zero padding.
  check(make(2, 8, 9, 20, 3, 2, 1, 2, 1), false);
  check(make(1, 3, 11, 16, 3, 2, 1, 1, 1), false);
  check(make(1, 7, 6, 9, 3, 1, 2, 2, 1), false);
  check(make(1, 12, 1, 17, 3, 1, 1, 1, 1), false);  // a 1x1 image: all but one tap padding
  check(make(1, 16, 7, 33, 1, 2, 0, 1, 1), false);  // strided 1x1: one tap
  QConvNhwcParams q = make(1, 20, 6, 24, 5, 1, 2, 1, 1);
  use_quint8(q, 77, 140);
  check(q, false);
}

TEST_P(QConvNhwcTest, SeveralBlocksOfPixels) {
  // depth 3 * 3 * 64 = 576 bytes: a block holds a few hundred of the 1600 output pixels.
  check(make(1, 64, 40, 24, 3, 1, 1, 1, 1), false);
  // The same gathered per group: 288 bytes of depth a group.
  check(make(1, 64, 40, 24, 3, 1, 1, 1, 2), false);
}

TEST_P(QConvNhwcTest, Groups) {
  check(make(1, 12, 6, 18, 3, 1, 1, 1, 3), false);
  check(make(1, 10, 5, 4, 1, 1, 0, 1, 2), false);
}

TEST_P(QConvNhwcTest, Quint8GridsAndClamp) {
  QConvNhwcParams q = make(1, 13, 6, 20, 3, 1, 1, 1, 1);
  use_quint8(q, 121, 64);
  q.conv.clamp_min = 0.0f;  // ReLU: the output zero point is the lower bound
  check(q, false);
  QConvNhwcParams q6 = make(1, 8, 5, 9, 1, 1, 0, 1, 1);
  q6.conv.clamp_min = 0.0f;
  q6.conv.clamp_max = 0.6f;  // ReLU6-like, inside the grid
  check(q6, false);
}

TEST_P(QConvNhwcTest, Depthwise) {
  check(make(1, 32, 9, 32, 3, 1, 1, 1, 32), true);
  check(make(2, 19, 7, 19, 3, 2, 1, 1, 19), true, /*use_workspace=*/false);
  check(make(1, 40, 6, 40, 5, 1, 4, 2, 40), true);
  check(make(1, 5, 1, 5, 3, 1, 1, 1, 5), true);
  // Past whole 64-channel passes: 8, 24, 40 and 56 channels left.
  check(make(1, 72, 9, 72, 5, 2, 2, 1, 72), true);
  check(make(1, 88, 7, 88, 5, 1, 2, 1, 88), true);
  check(make(1, 104, 5, 104, 3, 1, 1, 1, 104), true);
  check(make(1, 120, 6, 120, 5, 1, 2, 1, 120), true);
}

TEST_P(QConvNhwcTest, DepthwiseMultiplierQuint8AndClamp) {
  QConvNhwcParams q = make(1, 7, 6, 21, 3, 1, 1, 1, 7);
  use_quint8(q, 200, 10);
  q.conv.clamp_min = -0.3f;
  q.conv.clamp_max = 1.5f;
  check(q, true);
  check(make(1, 8, 5, 32, 3, 2, 1, 1, 8), true);
}

TEST_P(QConvNhwcTest, RejectsInvalidParameters) {
  QConvNhwcParams q = make(1, 4, 4, 4, 1, 1, 0, 1, 1);
  ASSERT_TRUE(compute::qconv2d_nhwc_params_valid(q));
  QConvNhwcParams bad = q;
  bad.in_qmax = 100;  // not an 8-bit grid
  EXPECT_FALSE(compute::qconv2d_nhwc_params_valid(bad));
  bad = q;
  bad.out_zero_point = 128;  // outside [-128, 127]
  EXPECT_FALSE(compute::qconv2d_nhwc_params_valid(bad));
  bad = q;
  bad.in_scale = 0.0f;
  EXPECT_FALSE(compute::qconv2d_nhwc_params_valid(bad));
  bad = q;
  bad.conv.out_scale = 0.5f;  // the float grid rounding is not the integer path's
  EXPECT_FALSE(compute::qconv2d_nhwc_params_valid(bad));
  EXPECT_EQ(compute::qconv2d_nhwc_packed_size(bad), 0u);
  std::vector<float> x(16), y(16);
  EXPECT_FALSE(compute::qconv2d_nhwc(bad, nullptr, x.data(), y.data()));
  // A weight scale that is not positive and finite is refused when packing.
  std::vector<unsigned char> packed(compute::qconv2d_nhwc_packed_size(q));
  const std::vector<int8_t> w(16, 1);
  const std::vector<float> scales = {0.1f, 0.1f, -0.1f, 0.1f};
  EXPECT_FALSE(compute::qconv2d_nhwc_pack(q, w.data(), scales.data(), nullptr, packed.data()));
  // Depthwise needs groups == in_channels.
  EXPECT_EQ(compute::qdepthwise_conv2d_nhwc_packed_size(q), 0u);
}

INSTANTIATE_TEST_SUITE_P(Isa, QConvNhwcTest, testing::ValuesIn(variants()), variant_name);

}  // namespace
