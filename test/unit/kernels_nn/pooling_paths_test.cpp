// The pooling kernels' vector rows and their row split across the thread pool: on odd shapes
// (padding, ceil_mode, dilation, stride larger than the kernel, 1x1 inputs, widths that are
// not a multiple of any vector width, NaNs and ties) max_pool2d_with_indices, avg_pool2d and
// _adaptive_avg_pool2d must give exactly what a plain reference loop gives, at 1, 2 and 3
// threads. This binary sets the chunk minimum to one item, so every row split is taken; the
// per-ISA run of this group (mk/test-compute.mk) covers every vector level.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/extension/threadpool/threadpool.h>

#include "../kernels_elementwise/kernel_test_util.h"
#include "../common/split_every_loop.h"

using executorch::aten::ScalarType;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using kernel_test::call_op;
using kernel_test::IntList;
using kernel_test::OwnedTensor;
using kernel_test::TList;

namespace {

::testing::Environment* const kSplitEveryRow = split_every_loop::install();

constexpr size_t kThreadCounts[] = {1, 2, 3};

struct PoolCase {
  int32_t n, c, h, w;
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  bool ceil_mode;
};

// The case as a trace line: channels, input, kernel, stride, padding, dilation, ceil mode.
std::string describe(const PoolCase& p) {
  std::ostringstream m;
  m << p.c << " channels " << p.h << "x" << p.w << " k" << p.kh << "x" << p.kw << " s" << p.sh
    << "x" << p.sw << " p" << p.ph << "x" << p.pw << " d" << p.dh << "x" << p.dw
    << (p.ceil_mode ? " ceil" : "");
  return m.str();
}

// PyTorch's output size: floor or ceil of (in + 2 pad - dil (k - 1) - 1) / stride + 1, the last
// window of ceil_mode dropped if it starts in the right padding.
int64_t out_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil) {
  const int64_t num = in + 2 * pad - dil * (k - 1) - 1;
  int64_t o = (ceil ? (num + stride - 1) / stride : num / stride) + 1;
  if (ceil && (o - 1) * stride >= in + pad) {
    --o;
  }
  return o;
}

// Values from a few levels (many ties, so the first-maximum rule is exercised), some negative
// zeros and, if asked, a sprinkling of NaNs.
std::vector<float> pool_input(size_t n, std::mt19937& rng, bool with_nan) {
  std::uniform_int_distribution<int> level(-6, 6);
  std::uniform_int_distribution<int> pick(0, 40);
  std::vector<float> v(n);
  for (float& x : v) {
    const int p = pick(rng);
    x = static_cast<float>(level(rng)) * 0.25f;
    if (p == 0) {
      x = -0.0f;
    } else if (p == 1 && with_nan) {
      x = std::numeric_limits<float>::quiet_NaN();
    } else if (p == 2) {
      x += 0.125f / 3.0f;  // inexact sums for the averages
    }
  }
  return v;
}

// The plain loop: taps in row-major order, the first maximum kept, a NaN wins and ends the
// window; padding never wins.
void reference_max(const PoolCase& p, int64_t oh, int64_t ow, const std::vector<float>& x,
                   std::vector<float>* y, std::vector<int64_t>* idx) {
  const size_t planes = static_cast<size_t>(p.n) * static_cast<size_t>(p.c);
  for (size_t q = 0; q < planes; ++q) {
    const float* xp = x.data() + q * p.h * p.w;
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        float best = 0;
        int64_t best_i = -1;
        bool done = false;
        for (int64_t r = 0; r < p.kh && !done; ++r) {
          const int64_t h = i * p.sh - p.ph + r * p.dh;
          for (int64_t s = 0; s < p.kw && !done; ++s) {
            const int64_t w = j * p.sw - p.pw + s * p.dw;
            if (h < 0 || h >= p.h || w < 0 || w >= p.w) {
              continue;
            }
            const float v = xp[h * p.w + w];
            if (best_i < 0 || v > best || std::isnan(v)) {
              best = v;
              best_i = h * p.w + w;
            }
            done = std::isnan(v);
          }
        }
        (*y)[(q * oh + i) * ow + j] = best_i < 0 ? -std::numeric_limits<float>::infinity() : best;
        (*idx)[(q * oh + i) * ow + j] = best_i;
      }
    }
  }
}

// Sum of the window's taps inside the input (row-major), over the window size clipped to the
// padded input (count_include_pad) or to the input.
void reference_avg(const PoolCase& p, int64_t oh, int64_t ow, bool count_include_pad,
                   int64_t divisor_override, const std::vector<float>& x, std::vector<float>* y) {
  const size_t planes = static_cast<size_t>(p.n) * static_cast<size_t>(p.c);
  for (size_t q = 0; q < planes; ++q) {
    const float* xp = x.data() + q * p.h * p.w;
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        const int64_t h0 = i * p.sh - p.ph, w0 = j * p.sw - p.pw;
        const int64_t padded =
            (std::min(h0 + p.kh, p.h + p.ph) - h0) * (std::min(w0 + p.kw, p.w + p.pw) - w0);
        float sum = 0;
        int64_t inside = 0;
        for (int64_t h = std::max<int64_t>(h0, 0); h < std::min<int64_t>(h0 + p.kh, p.h); ++h) {
          for (int64_t w = std::max<int64_t>(w0, 0); w < std::min<int64_t>(w0 + p.kw, p.w); ++w) {
            sum += xp[h * p.w + w];
            ++inside;
          }
        }
        const int64_t div =
            divisor_override != 0 ? divisor_override : (count_include_pad ? padded : inside);
        (*y)[(q * oh + i) * ow + j] = sum / static_cast<float>(div);
      }
    }
  }
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

template <class T>
std::vector<T> values_of(const OwnedTensor& t) {
  std::vector<uint8_t> b = kernel_test::logical_bytes(t.tensor());
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

// Odd shapes: each takes the vector rows somewhere and the scalar edges around them.
const PoolCase kCases[] = {
    // n, c, h, w, kh, kw, sh, sw, ph, pw, dh, dw, ceil
    {1, 3, 37, 41, 3, 3, 2, 2, 1, 1, 1, 1, false},   // ResNet's stem pool, odd size
    {1, 2, 40, 70, 3, 3, 2, 2, 1, 1, 1, 1, true},    // ceil_mode, even size
    {2, 3, 19, 53, 3, 3, 1, 1, 1, 1, 1, 1, false},   // stride 1
    {1, 5, 23, 67, 2, 3, 2, 3, 0, 1, 1, 1, true},    // stride 3 (gathered lanes)
    {1, 2, 17, 90, 3, 2, 3, 5, 1, 0, 1, 1, false},   // stride larger than the kernel
    {1, 3, 29, 75, 3, 3, 2, 2, 1, 1, 2, 3, false},   // dilation
    {1, 1, 33, 121, 5, 5, 2, 2, 2, 2, 1, 1, true},   // big kernel, padding 2, ceil
    {1, 4, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, false},     // 1x1 input
    {1, 3, 1, 1, 3, 3, 2, 2, 1, 1, 1, 1, true},      // 1x1 input, window all padding but one
    {3, 7, 9, 13, 2, 2, 2, 2, 0, 0, 1, 1, false},    // narrow rows
    {1, 2, 12, 200, 2, 7, 1, 1, 1, 3, 1, 1, false},  // wide row, long runs
};

class PoolingPaths : public ::testing::Test {
 protected:
  void TearDown() override {
    EXPECT_TRUE(executorch::extension::threadpool::set_num_threads(0));
  }
  std::mt19937 rng_{2024};
};

const std::vector<uint8_t> kChannelsLast = {0, 2, 3, 1};

// max_pool2d_with_indices of `in` (p's geometry, oh x ow outputs) into values of dim order
// `values_order` and indices contiguous or channels-last: the reference's values and indices.
void expect_max_pool_matches(const PoolCase& p, const OwnedTensor& in, int64_t oh, int64_t ow,
                             const std::vector<uint8_t>& values_order, bool idx_channels_last,
                             const std::vector<float>& want, const std::vector<int64_t>& want_i) {
  SCOPED_TRACE(testing::Message() << "indices channels-last " << idx_channels_last);
  const std::vector<int32_t> os = {p.n, p.c, static_cast<int32_t>(oh), static_cast<int32_t>(ow)};
  OwnedTensor out(ScalarType::Float, os, values_order);
  OwnedTensor idx(ScalarType::Long, os, idx_channels_last ? kChannelsLast : std::vector<uint8_t>{});
  EValue ex(in.tensor()), eo(out.tensor()), ei(idx.tensor()), ceil(p.ceil_mode);
  IntList k({p.kh, p.kw}), s({p.sh, p.sw}), pad({p.ph, p.pw}), d({p.dh, p.dw});
  TList ret({out.tensor(), idx.tensor()});
  ASSERT_EQ(call_op("aten::max_pool2d_with_indices.out",
                    {&ex, &k.ev, &s.ev, &pad.ev, &d.ev, &ceil, &eo, &ei, &ret.ev}),
            Error::Ok);
  EXPECT_TRUE(same_bits(values_of<float>(out), want));
  EXPECT_EQ(values_of<int64_t>(idx), want_i);
}

TEST_F(PoolingPaths, MaxPoolMatchesTheReferenceAtEveryThreadCount) {
  for (const PoolCase& p : kCases) {
    SCOPED_TRACE(describe(p));
    const int64_t oh = out_size(p.h, p.kh, p.ph, p.sh, p.dh, p.ceil_mode);
    const int64_t ow = out_size(p.w, p.kw, p.pw, p.sw, p.dw, p.ceil_mode);
    const std::vector<float> x = pool_input(static_cast<size_t>(p.n * p.c * p.h * p.w), rng_,
                                            /*with_nan=*/true);
    std::vector<float> want(static_cast<size_t>(p.n * p.c * oh * ow));
    std::vector<int64_t> want_i(want.size());
    reference_max(p, oh, ow, x, &want, &want_i);
    OwnedTensor in(ScalarType::Float, {p.n, p.c, p.h, p.w});
    in.set_logical(reinterpret_cast<const uint8_t*>(x.data()));
    for (size_t threads : kThreadCounts) {
      ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(threads));
      SCOPED_TRACE(testing::Message() << threads << " threads");
      // Contiguous indices, and channels-last ones beside the contiguous values (what the
      // layout pass makes when only the indices may switch).
      for (const bool idx_channels_last : {false, true}) {
        expect_max_pool_matches(p, in, oh, ow, {}, idx_channels_last, want, want_i);
      }
    }
  }
}

// avg_pool2d on p in every divisor mode, input and output in dim order `order` (empty:
// contiguous), against the reference at every thread count.
void expect_avg_pool_matches(const PoolCase& p, const std::vector<uint8_t>& order,
                             std::mt19937& rng) {
  for (int mode = 0; mode < 3; ++mode) {
    const bool include_pad = mode != 1;
    const int64_t divisor_override = mode == 2 ? 7 : 0;
    SCOPED_TRACE(testing::Message() << describe(p) << " mode " << mode);
    const int64_t oh = out_size(p.h, p.kh, p.ph, p.sh, 1, p.ceil_mode);
    const int64_t ow = out_size(p.w, p.kw, p.pw, p.sw, 1, p.ceil_mode);
    const std::vector<float> x = pool_input(static_cast<size_t>(p.n * p.c * p.h * p.w), rng,
                                            /*with_nan=*/false);
    std::vector<float> want(static_cast<size_t>(p.n * p.c * oh * ow));
    reference_avg(p, oh, ow, include_pad, divisor_override, x, &want);
    OwnedTensor in(ScalarType::Float, {p.n, p.c, p.h, p.w}, order);
    in.set_logical(reinterpret_cast<const uint8_t*>(x.data()));
    for (size_t threads : kThreadCounts) {
      ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(threads));
      OwnedTensor out(ScalarType::Float,
                      {p.n, p.c, static_cast<int32_t>(oh), static_cast<int32_t>(ow)}, order);
      EValue ex(in.tensor()), eo(out.tensor()), ceil(p.ceil_mode), incl(include_pad);
      EValue div = divisor_override != 0 ? EValue(divisor_override) : EValue();
      IntList k({p.kh, p.kw}), s({p.sh, p.sw}), pad({p.ph, p.pw});
      ASSERT_EQ(call_op("aten::avg_pool2d.out",
                        {&ex, &k.ev, &s.ev, &pad.ev, &ceil, &incl, &div, &eo, &eo}),
                Error::Ok);
      EXPECT_TRUE(same_bits(values_of<float>(out), want)) << threads << " threads";
    }
  }
}

TEST_F(PoolingPaths, AvgPoolMatchesTheReferenceAtEveryThreadCount) {
  for (const PoolCase& p : kCases) {
    if (p.dh == 1 && p.dw == 1) {  // avg_pool2d has no dilation
      expect_avg_pool_matches(p, {}, rng_);
    }
  }
}

TEST_F(PoolingPaths, AdaptiveAvgPoolMatchesTheReferenceAtEveryThreadCount) {
  struct Case {
    int32_t c, h, w, oh, ow;
  };
  for (const Case& a : {Case{5, 13, 29, 1, 1}, Case{3, 13, 29, 4, 7}, Case{2, 7, 7, 7, 7},
                        Case{4, 1, 1, 3, 2}, Case{3, 10, 33, 5, 9},
                        // W divisible by OW: the vector rows (strides 1, 2, 5 and the whole row)
                        Case{2, 9, 37, 3, 37}, Case{3, 14, 68, 7, 34}, Case{2, 12, 200, 5, 40},
                        Case{3, 11, 96, 1, 1}}) {
    SCOPED_TRACE(testing::Message() << a.h << "x" << a.w << " -> " << a.oh << "x" << a.ow);
    const std::vector<float> x =
        pool_input(static_cast<size_t>(a.c * a.h * a.w), rng_, /*with_nan=*/false);
    std::vector<float> want(static_cast<size_t>(a.c * a.oh * a.ow));
    for (int32_t q = 0; q < a.c; ++q) {
      for (int32_t i = 0; i < a.oh; ++i) {
        for (int32_t j = 0; j < a.ow; ++j) {
          const int32_t hs = i * a.h / a.oh, he = ((i + 1) * a.h + a.oh - 1) / a.oh;
          const int32_t ws = j * a.w / a.ow, we = ((j + 1) * a.w + a.ow - 1) / a.ow;
          float sum = 0;
          for (int32_t h = hs; h < he; ++h) {
            for (int32_t w = ws; w < we; ++w) {
              sum += x[static_cast<size_t>((q * a.h + h) * a.w + w)];
            }
          }
          want[static_cast<size_t>((q * a.oh + i) * a.ow + j)] =
              sum / static_cast<float>((he - hs) * (we - ws));
        }
      }
    }
    OwnedTensor in(ScalarType::Float, {1, a.c, a.h, a.w});
    in.set_logical(reinterpret_cast<const uint8_t*>(x.data()));
    for (size_t threads : kThreadCounts) {
      ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(threads));
      OwnedTensor out(ScalarType::Float, {1, a.c, a.oh, a.ow});
      EValue ex(in.tensor()), eo(out.tensor());
      IntList size({a.oh, a.ow});
      ASSERT_EQ(call_op("aten::_adaptive_avg_pool2d.out", {&ex, &size.ev, &eo, &eo}), Error::Ok);
      EXPECT_TRUE(same_bits(values_of<float>(out), want)) << threads << " threads";
    }
  }
}

// ---- Channels-last inputs: the per-pixel channel vectors must give exactly what the
// per-plane reference gives (the same taps in the same order), with channel counts that are
// not multiples of any vector width and chunks of more than one channel block.

constexpr int32_t kChannelCounts[] = {1, 3, 17, 35, 80};

TEST_F(PoolingPaths, MaxPoolChannelsLastMatchesTheReference) {
  for (const PoolCase& base : kCases) {
    for (int32_t c : kChannelCounts) {
      PoolCase p = base;
      p.c = c;
      SCOPED_TRACE(describe(p));
      const int64_t oh = out_size(p.h, p.kh, p.ph, p.sh, p.dh, p.ceil_mode);
      const int64_t ow = out_size(p.w, p.kw, p.pw, p.sw, p.dw, p.ceil_mode);
      const std::vector<float> x = pool_input(static_cast<size_t>(p.n * p.c * p.h * p.w), rng_,
                                              /*with_nan=*/true);
      std::vector<float> want(static_cast<size_t>(p.n * p.c * oh * ow));
      std::vector<int64_t> want_i(want.size());
      reference_max(p, oh, ow, x, &want, &want_i);
      OwnedTensor in(ScalarType::Float, {p.n, p.c, p.h, p.w}, kChannelsLast);
      in.set_logical(reinterpret_cast<const uint8_t*>(x.data()));
      for (size_t threads : kThreadCounts) {
        ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(threads));
        SCOPED_TRACE(testing::Message() << threads << " threads");
        for (bool idx_channels_last : {true, false}) {
          expect_max_pool_matches(p, in, oh, ow, kChannelsLast, idx_channels_last, want, want_i);
        }
      }
    }
  }
}

TEST_F(PoolingPaths, AvgPoolChannelsLastMatchesTheReference) {
  for (const PoolCase& base : kCases) {
    for (int32_t c : kChannelCounts) {
      PoolCase p = base;
      p.c = c;
      if (p.dh == 1 && p.dw == 1) {  // avg_pool2d has no dilation
        expect_avg_pool_matches(p, kChannelsLast, rng_);
      }
    }
  }
}

// Adaptive pooling (and the global average pool of the classifier heads, output 1x1) on a
// channels-last input, into a channels-last or contiguous output, against the same op on the
// contiguous copy of the input.
TEST_F(PoolingPaths, AdaptiveAvgPoolChannelsLastMatchesContiguous) {
  struct Case {
    int32_t n, c, h, w, oh, ow;
  };
  for (const Case& a :
       {Case{1, 3, 7, 7, 1, 1}, Case{2, 17, 7, 7, 1, 1}, Case{1, 35, 13, 29, 4, 7},
        Case{1, 130, 7, 7, 1, 1}, Case{2, 80, 12, 20, 5, 40}, Case{1, 17, 1, 1, 3, 2}}) {
    SCOPED_TRACE(testing::Message()
                 << a.n << "x" << a.c << "x" << a.h << "x" << a.w << " -> " << a.oh << "x" << a.ow);
    const std::vector<float> x =
        pool_input(static_cast<size_t>(a.n * a.c * a.h * a.w), rng_, /*with_nan=*/false);
    const std::vector<int32_t> os = {a.n, a.c, a.oh, a.ow};
    IntList size({a.oh, a.ow});
    OwnedTensor contiguous(ScalarType::Float, {a.n, a.c, a.h, a.w});
    contiguous.set_logical(reinterpret_cast<const uint8_t*>(x.data()));
    OwnedTensor want(ScalarType::Float, os);
    EValue ec(contiguous.tensor()), ew(want.tensor());
    ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(1));
    ASSERT_EQ(call_op("aten::_adaptive_avg_pool2d.out", {&ec, &size.ev, &ew, &ew}), Error::Ok);
    OwnedTensor in(ScalarType::Float, {a.n, a.c, a.h, a.w}, kChannelsLast);
    in.set_logical(reinterpret_cast<const uint8_t*>(x.data()));
    for (size_t threads : kThreadCounts) {
      for (bool out_channels_last : {true, false}) {
        ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(threads));
        OwnedTensor out(ScalarType::Float, os,
                        out_channels_last ? kChannelsLast : std::vector<uint8_t>{});
        EValue ex(in.tensor()), eo(out.tensor());
        ASSERT_EQ(call_op("aten::_adaptive_avg_pool2d.out", {&ex, &size.ev, &eo, &eo}), Error::Ok);
        EXPECT_TRUE(same_bits(values_of<float>(out), values_of<float>(want)))
            << threads << " threads, output channels-last " << out_channels_last;
      }
    }
  }
}

}  // namespace
