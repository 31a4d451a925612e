// conv2d_nchw against a naive double-accumulation direct convolution, at every ISA level the
// CPU supports: dense (im2col + SGEMM), pointwise, grouped, depthwise (3x3 fused path and the
// general K x K path), stride, padding, dilation, bias, fused clamps, 1-D, batches.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/runtime/kernels/compute/activation.h>
#include <executorch/runtime/kernels/compute/conv.h>
#include <executorch/runtime/kernels/compute/scratch.h>
#include <executorch/runtime/kernels/compute/vmath.h>

#include "test_util.h"

namespace {

using compute_test::random_floats;
using executorch::kernels::compute::conv2d_nchw;
using executorch::kernels::compute::conv2d_out_h;
using executorch::kernels::compute::conv2d_out_w;
using executorch::kernels::compute::conv2d_params_valid;
using executorch::kernels::compute::conv2d_workspace_size;
using executorch::kernels::compute::Conv2dParams;
using executorch::kernels::compute::Isa;

Conv2dParams make(int64_t n, int64_t ci, int64_t h, int64_t w, int64_t co, int64_t kh, int64_t kw,
                  int64_t s, int64_t pad, int64_t dil, int64_t groups) {
  Conv2dParams p;
  p.batch = n;
  p.in_channels = ci;
  p.in_h = h;
  p.in_w = w;
  p.out_channels = co;
  p.kernel_h = kh;
  p.kernel_w = kw;
  p.stride_h = p.stride_w = s;
  p.pad_h = p.pad_w = pad;
  p.dilation_h = p.dilation_w = dil;
  p.groups = groups;
  return p;
}

void check_conv(const Conv2dParams& p, bool with_bias, bool use_workspace, std::mt19937& rng) {
  SCOPED_TRACE(testing::Message() << "N=" << p.batch << " Ci=" << p.in_channels << " H=" << p.in_h
                                  << " W=" << p.in_w << " Co=" << p.out_channels
                                  << " k=" << p.kernel_h << "x" << p.kernel_w << " s=" << p.stride_h
                                  << "," << p.stride_w << " pad=" << p.pad_h << "," << p.pad_w
                                  << " dil=" << p.dilation_h << "," << p.dilation_w << " g="
                                  << p.groups << " clamp=[" << p.clamp_min << "," << p.clamp_max
                                  << "] bias=" << with_bias << " ws=" << use_workspace);
  ASSERT_TRUE(conv2d_params_valid(p));
  const int64_t oh = conv2d_out_h(p), ow = conv2d_out_w(p);
  const int64_t cig = p.in_channels / p.groups, cog = p.out_channels / p.groups;
  std::vector<float> x = random_floats(p.batch * p.in_channels * p.in_h * p.in_w, rng);
  std::vector<float> w = random_floats(p.out_channels * cig * p.kernel_h * p.kernel_w, rng);
  std::vector<float> bias = random_floats(p.out_channels, rng);
  // NaN-filled output: the kernel must write every element and never read the old contents.
  std::vector<float> y(p.batch * p.out_channels * oh * ow, std::numeric_limits<float>::quiet_NaN());
  std::vector<unsigned char> ws;
  if (use_workspace)
    ws.resize(conv2d_workspace_size(p));
  ASSERT_TRUE(conv2d_nchw(p, x.data(), w.data(), with_bias ? bias.data() : nullptr, y.data(),
                          use_workspace ? ws.data() : nullptr, ws.size()));
  int bad = 0;
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t oc = 0; oc < p.out_channels; ++oc) {
      const int64_t g = oc / cog;
      for (int64_t yy = 0; yy < oh; ++yy)
        for (int64_t xx = 0; xx < ow; ++xx) {
          double s = with_bias ? bias[oc] : 0.0, mag = std::fabs(s);
          for (int64_t ic = 0; ic < cig; ++ic)
            for (int64_t r = 0; r < p.kernel_h; ++r) {
              const int64_t iy = yy * p.stride_h - p.pad_h + r * p.dilation_h;
              if (iy < 0 || iy >= p.in_h)
                continue;
              for (int64_t q = 0; q < p.kernel_w; ++q) {
                const int64_t ix = xx * p.stride_w - p.pad_w + q * p.dilation_w;
                if (ix < 0 || ix >= p.in_w)
                  continue;
                const double t =
                    static_cast<double>(
                        x[((n * p.in_channels + g * cig + ic) * p.in_h + iy) * p.in_w + ix]) *
                    w[((oc * cig + ic) * p.kernel_h + r) * p.kernel_w + q];
                s += t;
                mag += std::fabs(t);
              }
            }
          s = std::min<double>(std::max<double>(s, p.clamp_min), p.clamp_max);
          const int64_t terms = cig * p.kernel_h * p.kernel_w + 1;
          const double tol = 2.0 * (terms + 4) * 6e-8 * mag + 1e-7;
          const double got = y[((n * p.out_channels + oc) * oh + yy) * ow + xx];
          if (!(std::fabs(got - s) <= tol) && bad++ < 5) {
            ADD_FAILURE() << "y[" << n << "," << oc << "," << yy << "," << xx << "] = " << got
                          << ", want " << s;
          }
        }
    }
}

class ConvTest : public testing::TestWithParam<Isa> {
 protected:
  void SetUp() override {
    scope_.reset(new compute_test::IsaScope(GetParam()));
  }
  void TearDown() override {
    scope_.reset();
  }
  std::unique_ptr<compute_test::IsaScope> scope_;
  std::mt19937 rng_{99};
};

TEST_P(ConvTest, DenseIm2col) {
  //              N  Ci  H   W  Co kh kw s pad dil g
  check_conv(make(1, 3, 17, 19, 8, 3, 3, 1, 1, 1, 1), true, true, rng_);
  check_conv(make(2, 5, 12, 9, 7, 3, 3, 2, 1, 1, 1), true, false, rng_);
  check_conv(make(1, 4, 15, 15, 6, 5, 5, 1, 2, 1, 1), false, true, rng_);
  check_conv(make(1, 4, 16, 13, 5, 3, 3, 1, 2, 2, 1), true, true, rng_);    // dilation 2
  check_conv(make(1, 3, 11, 11, 4, 3, 2, 3, 0, 1, 1), true, false, rng_);   // stride 3, no pad
  check_conv(make(1, 2, 7, 7, 3, 7, 7, 1, 0, 1, 1), true, true, rng_);      // kernel = image
  check_conv(make(1, 16, 9, 9, 33, 3, 3, 1, 1, 1, 1), true, true, rng_);    // Co past a tile
  check_conv(make(1, 3, 224, 224, 4, 3, 3, 2, 1, 1, 1), true, true, rng_);  // stem, 112x112 out
}

// The im2col written straight into the SGEMM's B panels: enough output channels for the tiled
// path, output rows that straddle panels, bands of more than one im2col stretch (1536 columns),
// stride 3, dilation, a 1x1 image whose only output sees padding on all sides, asymmetric
// kernels and a grouped case.
TEST_P(ConvTest, Im2colStraightIntoPanels) {
  //              N  Ci  H   W  Co kh kw s pad dil g
  check_conv(make(1, 5, 45, 47, 24, 3, 3, 1, 1, 1, 1), true, true, rng_);
  check_conv(make(1, 3, 120, 100, 32, 3, 3, 2, 1, 1, 1), true, false, rng_);
  check_conv(make(2, 7, 23, 29, 19, 3, 3, 3, 2, 1, 1), false, true, rng_);
  check_conv(make(1, 6, 21, 18, 17, 3, 3, 1, 3, 3, 1), true, true, rng_);
  check_conv(make(1, 9, 1, 1, 21, 3, 3, 1, 1, 1, 1), true, true, rng_);
  check_conv(make(1, 8, 13, 11, 30, 3, 5, 1, 2, 1, 2), true, true, rng_);
  // The last columns of a band past whole register tiles, im2col'd apart into dot products:
  // 49 = 48 + 1 (or 6 x 8 + 1, 3 x 16 + 1) and 196 = 4 x 48 + 4.
  check_conv(make(1, 16, 7, 7, 24, 3, 3, 1, 1, 1, 1), true, true, rng_);
  check_conv(make(1, 8, 14, 14, 40, 3, 3, 1, 1, 1, 1), true, false, rng_);
  Conv2dParams p = make(1, 10, 17, 37, 33, 3, 3, 1, 1, 1, 1);
  p.clamp_min = -0.5f;
  p.clamp_max = 0.5f;
  check_conv(p, true, true, rng_);
}

// Several bands of output rows (run across the thread pool, each band's im2col straight into
// the SGEMM's B panels): bands whose height fills whole register tiles, a shorter last band,
// the last columns of a band past whole tiles as dot products, batch 2 and groups (bands of
// every (batch, group) in one region), stride 2, and a clamp.
TEST_P(ConvTest, Im2colBandsStraightIntoPanels) {
  //              N  Ci  H   W  Co kh kw s pad dil g
  check_conv(make(1, 64, 60, 57, 24, 3, 3, 1, 1, 1, 1), true, true, rng_);
  check_conv(make(2, 48, 45, 30, 2 * 20, 3, 3, 1, 1, 1, 2), true, false, rng_);
  check_conv(make(1, 40, 121, 119, 16, 3, 3, 2, 1, 1, 1), false, true, rng_);
  check_conv(make(1, 64, 40, 49, 24, 3, 3, 1, 1, 1, 1), true, true, rng_);
  check_conv(make(1, 64, 31, 97, 20, 3, 3, 1, 1, 1, 1), true, true, rng_);
  check_conv(make(1, 128, 15, 33, 40, 3, 3, 1, 1, 1, 1), true, true, rng_);
  Conv2dParams p = make(1, 100, 33, 28, 36, 3, 3, 1, 1, 1, 1);
  p.clamp_min = -0.5f;
  p.clamp_max = 0.5f;
  check_conv(p, true, true, rng_);
}

// With no scratch memory for the SGEMM, a convolution whose im2col goes straight into the
// SGEMM's panels still computes the right result. A single band's SGEMM splits itself across
// two threads, and the calling thread's rectangle, which gets no workspace, finds no scratch
// either: it then packs B a stack panel at a time (there is no B to read in place).
TEST_P(ConvTest, Im2colIntoPanelsWithoutGemmScratch) {
  using executorch::kernels::compute::ScratchSlot;
  using executorch::kernels::compute::set_thread_scratch_limit;
  namespace tp = executorch::extension::threadpool;
  ASSERT_TRUE(tp::set_num_threads(2));
  set_thread_scratch_limit(ScratchSlot::kGemm, 0);
  //              N  Ci  H   W  Co kh kw s pad dil g
  check_conv(make(1, 32, 30, 30, 64, 3, 3, 1, 1, 1, 1), true, false, rng_);
  check_conv(make(1, 16, 28, 31, 48, 3, 3, 1, 1, 1, 1), false, false, rng_);
  set_thread_scratch_limit(ScratchSlot::kGemm, SIZE_MAX);
  EXPECT_TRUE(tp::set_num_threads(0));
}

TEST_P(ConvTest, AsymmetricParameters) {
  Conv2dParams p = make(1, 4, 13, 17, 6, 3, 5, 1, 0, 1, 1);
  p.stride_h = 2;
  p.stride_w = 1;
  p.pad_h = 1;
  p.pad_w = 2;
  p.dilation_h = 1;
  p.dilation_w = 2;
  check_conv(p, true, true, rng_);
  p.groups = 2;
  check_conv(p, false, false, rng_);
  // 1-D convolution as (N, C, 1, L) with a (1, K) kernel (wav2letter-style, stride 2).
  Conv2dParams q = make(2, 8, 1, 50, 12, 1, 7, 1, 0, 1, 1);
  q.stride_w = 2;
  q.pad_w = 3;
  check_conv(q, true, true, rng_);
}

TEST_P(ConvTest, Pointwise) {
  check_conv(make(1, 32, 14, 14, 24, 1, 1, 1, 0, 1, 1), true, true, rng_);
  check_conv(make(2, 7, 5, 3, 9, 1, 1, 1, 0, 1, 1), false, false, rng_);
  check_conv(make(1, 8, 10, 10, 4, 1, 1, 2, 0, 1, 1), true, true, rng_);  // 1x1 stride 2: im2col
  check_conv(make(1, 8, 6, 6, 4, 1, 1, 1, 1, 1, 1), true, true, rng_);    // 1x1 with padding
  check_conv(make(1, 8, 9, 9, 12, 1, 1, 1, 0, 1, 4), true, true, rng_);   // grouped 1x1
  // A few columns past the last whole register tile go to dot products: 49 = 48 + 1 (and
  // 6 x 8 + 1, 3 x 16 + 1), 196 = 4 x 48 + 4, 97 = 2 x 48 + 1; with a clamp.
  check_conv(make(1, 20, 7, 7, 40, 1, 1, 1, 0, 1, 1), true, true, rng_);
  check_conv(make(2, 12, 14, 14, 30, 1, 1, 1, 0, 1, 1), false, true, rng_);
  Conv2dParams p = make(1, 8, 1, 97, 16, 1, 1, 1, 0, 1, 1);
  p.clamp_min = -0.25f;
  p.clamp_max = 0.5f;
  check_conv(p, true, false, rng_);
}

TEST_P(ConvTest, Grouped) {
  check_conv(make(1, 8, 10, 11, 12, 3, 3, 1, 1, 1, 2), true, true, rng_);
  check_conv(make(2, 12, 9, 9, 8, 3, 3, 2, 1, 1, 4), true, false, rng_);
  check_conv(make(1, 6, 8, 8, 6, 3, 3, 1, 2, 2, 3), false, true, rng_);
}

TEST_P(ConvTest, Depthwise) {
  // 3x3 fused path: stride 1 and 2, pad 1 and 0, odd and even sizes, dilation, narrow images
  // (no interior columns at all), and the general path for other kernels.
  check_conv(make(1, 16, 17, 19, 16, 3, 3, 1, 1, 1, 16), true, true, rng_);
  check_conv(make(2, 8, 16, 16, 8, 3, 3, 2, 1, 1, 8), true, false, rng_);
  check_conv(make(1, 8, 15, 15, 8, 3, 3, 2, 1, 1, 8), false, true, rng_);
  check_conv(make(1, 4, 9, 10, 4, 3, 3, 1, 0, 1, 4), true, true, rng_);
  check_conv(make(1, 4, 12, 12, 4, 3, 3, 1, 2, 2, 4), true, true, rng_);
  check_conv(make(1, 3, 3, 2, 3, 3, 3, 1, 1, 1, 3), true, true, rng_);
  check_conv(make(1, 3, 1, 1, 3, 3, 3, 1, 1, 1, 3), true, true, rng_);
  check_conv(make(1, 3, 2, 40, 3, 3, 3, 2, 1, 1, 3), true, true, rng_);
  check_conv(make(1, 8, 14, 14, 8, 5, 5, 1, 2, 1, 8), true, true, rng_);
  check_conv(make(1, 8, 14, 13, 8, 5, 5, 2, 2, 1, 8), true, false, rng_);
  check_conv(make(1, 4, 20, 20, 4, 7, 7, 3, 3, 2, 4), true, true, rng_);
  check_conv(make(1, 4, 10, 10, 8, 3, 3, 1, 1, 1, 4), true, true, rng_);  // multiplier 2
  check_conv(make(1, 1, 12, 12, 5, 3, 3, 1, 1, 1, 1), true, true, rng_);  // 1 input channel
  Conv2dParams p = make(1, 6, 11, 12, 6, 3, 3, 1, 1, 1, 6);
  p.stride_w = 2;  // unequal strides leave the fused path
  check_conv(p, true, true, rng_);
}

TEST_P(ConvTest, DepthwiseBlockPath) {
  // Small planes go through blocks of 16 channels at once, channels-last in scratch: channel
  // counts that leave a partial block (or fill none), planes not a multiple of 16 pixels (the
  // 16 x 16 transposes' tails), strides 2 and 3, dilation, kernels 1x7 and 3x5, a 1x1 image
  // that sees only padding around it, batches, no bias, a clamp, and the largest plane the
  // path takes (28x28 with a 5x5 kernel: 32x32 padded).
  //              N  Ci  H   W  Co kh kw s pad dil g
  check_conv(make(1, 20, 7, 7, 20, 3, 3, 1, 1, 1, 20), true, true, rng_);
  check_conv(make(2, 35, 14, 14, 35, 3, 3, 2, 1, 1, 35), false, true, rng_);
  check_conv(make(1, 3, 1, 1, 3, 3, 3, 1, 1, 1, 3), true, true, rng_);
  check_conv(make(1, 17, 11, 13, 17, 5, 5, 3, 2, 1, 17), true, false, rng_);
  check_conv(make(1, 16, 9, 10, 16, 3, 3, 1, 2, 2, 16), true, true, rng_);
  check_conv(make(1, 24, 28, 28, 24, 5, 5, 1, 2, 1, 24), true, true, rng_);
  check_conv(make(1, 33, 5, 19, 33, 1, 7, 1, 3, 1, 33), true, true, rng_);
  Conv2dParams p = make(1, 18, 12, 10, 18, 3, 5, 1, 1, 1, 18);
  p.pad_w = 2;
  p.stride_h = 2;
  p.clamp_min = -0.5f;
  p.clamp_max = 0.25f;
  check_conv(p, true, true, rng_);
}

TEST_P(ConvTest, DepthwiseFlatPath) {
  // 3x3 and 5x5 depthwise go through one zero-padded, stride-phase-split copy of the plane:
  // rows shorter and longer than a 16-float chunk (and not a multiple of it), every stride up
  // to 4 (phases), unequal strides and dilations, images smaller than the kernel, 1-D 1x9
  // kernels, channel multipliers, batches, padding wider than the image.
  //              N Ci  H   W  Co kh kw s pad dil g
  check_conv(make(1, 3, 1, 1, 3, 5, 5, 1, 2, 1, 3), true, true, rng_);
  check_conv(make(1, 3, 2, 3, 3, 5, 5, 2, 2, 1, 3), true, true, rng_);
  check_conv(make(2, 5, 37, 35, 5, 5, 5, 1, 2, 1, 5), true, false, rng_);
  check_conv(make(1, 5, 37, 41, 5, 5, 5, 2, 2, 1, 5), false, true, rng_);
  check_conv(make(1, 4, 33, 34, 4, 3, 3, 2, 1, 1, 4), true, true, rng_);
  check_conv(make(1, 4, 29, 31, 4, 3, 3, 3, 1, 1, 4), true, true, rng_);
  check_conv(make(1, 4, 30, 30, 4, 5, 5, 4, 2, 1, 4), true, true, rng_);
  check_conv(make(1, 4, 23, 26, 4, 3, 3, 2, 2, 2, 4), true, true, rng_);
  check_conv(make(1, 4, 19, 21, 4, 5, 5, 1, 4, 2, 4), true, true, rng_);
  check_conv(make(1, 4, 12, 18, 12, 5, 5, 2, 2, 1, 4), true, true, rng_);  // multiplier 3
  check_conv(make(1, 2, 3, 3, 2, 3, 3, 1, 5, 1, 2), true, true, rng_);     // pad > image
  Conv2dParams p = make(1, 6, 17, 40, 6, 5, 5, 1, 2, 1, 6);
  p.stride_h = 2;
  p.dilation_w = 2;
  p.pad_w = 3;
  check_conv(p, true, true, rng_);
  p.stride_h = 1;
  p.stride_w = 3;
  p.clamp_min = -0.25f;
  p.clamp_max = 0.5f;
  check_conv(p, true, false, rng_);
  Conv2dParams q = make(2, 6, 1, 50, 6, 1, 9, 1, 0, 1, 6);  // 1-D, nine taps in a row
  q.pad_w = 4;
  q.stride_w = 2;
  check_conv(q, true, true, rng_);
}

TEST_P(ConvTest, FusedClamp) {
  Conv2dParams p = make(1, 6, 10, 10, 6, 3, 3, 1, 1, 1, 1);
  p.clamp_min = 0.0f;  // ReLU
  check_conv(p, true, true, rng_);
  p.clamp_max = 0.5f;  // ReLU6-like with a bound the random data reaches
  check_conv(p, true, true, rng_);
  p.groups = 6;  // depthwise
  check_conv(p, true, false, rng_);
  p.groups = 1;
  p.kernel_h = p.kernel_w = 1;
  p.pad_h = p.pad_w = 0;  // pointwise
  check_conv(p, false, true, rng_);
}

TEST_P(ConvTest, Im2colInBands) {
  // cig*k*k*OH*OW = 64*9*92*92 floats > the 4 Mi-float im2col budget: processed in row bands.
  check_conv(make(1, 64, 92, 92, 3, 3, 3, 1, 1, 1, 1), true, true, rng_);
}

TEST_P(ConvTest, OddWidthsMatchBaseline) {
  // Output widths that are multiples of no vector width (4, 8, 16 floats) and channel counts
  // that fill no GEMM tile, through the depthwise 3x3 (stride 1 and 2), general depthwise and
  // im2col paths, against the portable baseline level on the same data. Each result is within
  // check_conv's bound of the exact one (|x|, |w|, |bias| <= 1 bound the magnitude by the term
  // count), so the two are within twice that bound of each other.
  //                                      N Ci  H   W Co kh kw s pad dil g
  const Conv2dParams cases[] = {
      make(1, 4, 9, 21, 4, 3, 3, 1, 1, 1, 4), make(1, 4, 11, 23, 4, 3, 3, 2, 1, 1, 4),
      make(1, 3, 7, 13, 3, 5, 5, 1, 2, 1, 3), make(1, 5, 9, 11, 7, 3, 3, 1, 1, 1, 1),
      make(1, 13, 5, 7, 11, 1, 1, 1, 0, 1, 1)};
  for (Conv2dParams p : cases) {
    p.clamp_min = -0.75f;  // exercises the fused clamp too
    SCOPED_TRACE(testing::Message() << "Ci=" << p.in_channels << " W=" << p.in_w
                                    << " k=" << p.kernel_h << " s=" << p.stride_h);
    const int64_t out = p.batch * p.out_channels * conv2d_out_h(p) * conv2d_out_w(p);
    const int64_t cig = p.in_channels / p.groups;
    std::vector<float> x = random_floats(p.batch * p.in_channels * p.in_h * p.in_w, rng_);
    std::vector<float> w = random_floats(p.out_channels * cig * p.kernel_h * p.kernel_w, rng_);
    std::vector<float> bias = random_floats(p.out_channels, rng_);
    std::vector<float> y(out), ref(out);
    {
      compute_test::IsaScope baseline(Isa::kBaseline);
      ASSERT_TRUE(conv2d_nchw(p, x.data(), w.data(), bias.data(), ref.data()));
    }
    {
      compute_test::IsaScope variant(GetParam());
      ASSERT_TRUE(conv2d_nchw(p, x.data(), w.data(), bias.data(), y.data()));
    }
    const double terms = static_cast<double>(cig * p.kernel_h * p.kernel_w + 1);
    const double tol = 2.0 * (2.0 * (terms + 4) * 6e-8 * terms + 1e-7);
    for (int64_t i = 0; i < out; ++i)
      ASSERT_NEAR(y[i], ref[i], tol) << i;
  }
}

// The fused activation must equal the plain convolution followed by the decomposed activation
// (sigmoid then mul for SiLU; add, clamp, mul, div for the hard ones), bit for bit, on every
// path (depthwise, pointwise SGEMM, im2col) and with the clamp before it.
TEST_P(ConvTest, FusedActivationIsBitIdenticalToTheSeparateOps) {
  using executorch::kernels::compute::Activation;
  compute_test::IsaScope level(GetParam());
  //                                      N Ci  H   W Co kh kw s pad dil g
  const Conv2dParams cases[] = {make(1, 6, 10, 11, 6, 3, 3, 1, 1, 1, 6),
                                make(2, 8, 9, 9, 12, 1, 1, 1, 0, 1, 1),
                                make(1, 5, 12, 10, 7, 3, 3, 2, 1, 1, 1)};
  for (Conv2dParams p : cases) {
    for (Activation act : {Activation::kSilu, Activation::kHardswish, Activation::kHardsigmoid}) {
      for (float lo : {-std::numeric_limits<float>::infinity(), -0.5f}) {
        SCOPED_TRACE(testing::Message() << "act=" << static_cast<int>(act) << " g=" << p.groups
                                        << " k=" << p.kernel_h << " lo=" << lo);
        p.clamp_min = lo;
        p.activation = Activation::kNone;
        const int64_t out = p.batch * p.out_channels * conv2d_out_h(p) * conv2d_out_w(p);
        const int64_t cig = p.in_channels / p.groups;
        // Inputs up to 4 so that the outputs reach both ends of the hard activations' clamp.
        std::vector<float> x = random_floats(p.batch * p.in_channels * p.in_h * p.in_w, rng_);
        for (float& v : x) {
          v *= 4.0f;
        }
        std::vector<float> w = random_floats(p.out_channels * cig * p.kernel_h * p.kernel_w, rng_);
        std::vector<float> bias = random_floats(p.out_channels, rng_);
        std::vector<float> plain(out), fused(out), want(out);
        ASSERT_TRUE(conv2d_nchw(p, x.data(), w.data(), bias.data(), plain.data()));
        p.activation = act;
        ASSERT_TRUE(conv2d_nchw(p, x.data(), w.data(), bias.data(), fused.data()));
        const auto& vm = executorch::kernels::compute::vmath();
        if (act == Activation::kSilu) {
          vm.sigmoid(plain.data(), want.data(), out);  // the sigmoid kernel's routine
          for (int64_t i = 0; i < out; ++i) {
            want[i] *= plain[i];
          }
        } else {
          for (int64_t i = 0; i < out; ++i) {
            volatile float t = plain[i] + 3.0f;
            t = t < 0.0f ? 0.0f : (t > 6.0f ? 6.0f : t);
            volatile float m = act == Activation::kHardswish ? plain[i] * t : t;
            want[i] = m / 6.0f;
          }
        }
        ASSERT_EQ(std::memcmp(fused.data(), want.data(), sizeof(float) * out), 0);
      }
    }
  }
}

// A fused run whose first operator kept its own output applies the activation from that output
// into the run's: the same floats as in place, and kNone is a copy.
TEST_P(ConvTest, ActivationOutOfPlaceEqualsInPlace) {
  using executorch::kernels::compute::Activation;
  using executorch::kernels::compute::apply_activation;
  compute_test::IsaScope level(GetParam());
  std::vector<float> x = random_floats(1000, rng_);
  for (float& v : x) {
    v *= 8.0f;
  }
  for (Activation act :
       {Activation::kNone, Activation::kSilu, Activation::kHardswish, Activation::kHardsigmoid}) {
    std::vector<float> in_place = x, out(x.size(), std::numeric_limits<float>::quiet_NaN());
    apply_activation(act, in_place.data(), in_place.data(), static_cast<int64_t>(x.size()));
    apply_activation(act, x.data(), out.data(), static_cast<int64_t>(x.size()));
    EXPECT_EQ(std::memcmp(in_place.data(), out.data(), sizeof(float) * x.size()), 0)
        << static_cast<int>(act);
    if (act == Activation::kNone) {
      EXPECT_EQ(out, x);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Isa, ConvTest, testing::ValuesIn(compute_test::float_isas()),
                         compute_test::isa_param_name);

TEST(ConvParams, InvalidAreRejected) {
  Conv2dParams ok = make(1, 4, 8, 8, 4, 3, 3, 1, 1, 1, 1);
  EXPECT_TRUE(conv2d_params_valid(ok));
  float dummy = 0.0f;
  auto bad = [&](Conv2dParams p) {
    EXPECT_FALSE(conv2d_params_valid(p));
    EXPECT_EQ(conv2d_workspace_size(p), 0u);
    EXPECT_FALSE(conv2d_nchw(p, &dummy, &dummy, nullptr, &dummy));
  };
  Conv2dParams p = ok;
  p.groups = 3;
  bad(p);  // channels not divisible
  p = ok;
  p.stride_h = 0;
  bad(p);
  p = ok;
  p.dilation_w = 0;
  bad(p);
  p = ok;
  p.pad_w = -1;
  bad(p);
  p = ok;
  p.kernel_h = 11;
  bad(p);  // kernel larger than padded input
  p = ok;
  p.in_channels = 0;
  bad(p);
  EXPECT_EQ(conv2d_out_h(make(1, 1, 7, 7, 1, 3, 3, 2, 1, 1, 1)), 4);
  EXPECT_EQ(conv2d_out_w(make(1, 1, 7, 7, 1, 3, 3, 2, 0, 2, 1)), 2);
}

TEST(ConvParams, EmptyBatchDoesNothing) {
  Conv2dParams p = make(0, 4, 8, 8, 4, 3, 3, 1, 1, 1, 1);
  EXPECT_TRUE(conv2d_nchw(p, nullptr, nullptr, nullptr, nullptr));
}

}  // namespace
