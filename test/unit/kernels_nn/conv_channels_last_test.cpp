// convolution.out with channels-last input and output runs in NHWC (detail/conv_nhwc_run.h):
// dense, grouped and depthwise (with a channel multiplier) convolutions with strides, padding,
// dilation, with and without bias, plain and with a fused clamp, must match the contiguous
// (NCHW) path on the same values up to the summation order, be bit-identical at 1 and 2
// threads and with or without the filter prepared at load, and use that prepared filter.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/runtime/kernel/prepared_constants.h>

#include "../kernels_elementwise/kernel_test_util.h"

using executorch::aten::ScalarType;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::PreparedConstants;
using executorch::runtime::Span;
using kernel_test::IntList;
using kernel_test::logical_bytes;
using kernel_test::OwnedTensor;

namespace {

constexpr const char* kConv = "aten::convolution.out";
constexpr uint32_t kNhwcFilterTag = 0x434f4e48u;  // detail/conv_nhwc_run.h
const std::vector<uint8_t> kChannelsLast = {0, 2, 3, 1};

struct FreeDeleter {
  void operator()(void* p) const {
    std::free(p);
  }
};

// A blob store like the Method's, which also records the lookups the kernel makes.
class TestCache : public PreparedConstants {
 public:
  const void* find(const void* key, uint32_t tag) const override {
    looked_up.push_back(tag);
    auto it = blobs.find({key, tag});
    return it == blobs.end() ? nullptr : it->second.get();
  }
  void* add(const void* key, uint32_t tag, size_t bytes) override {
    if (blobs.count({key, tag}) != 0) {
      return nullptr;
    }
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    blobs[{key, tag}] = std::unique_ptr<void, FreeDeleter>(p);
    return p;
  }
  bool has(uint32_t tag) const {
    for (const auto& kv : blobs) {
      if (kv.first.second == tag) {
        return true;
      }
    }
    return false;
  }
  std::map<std::pair<const void*, uint32_t>, std::unique_ptr<void, FreeDeleter>> blobs;
  mutable std::vector<uint32_t> looked_up;
};

struct ConvCase {
  int32_t n, c, h, w, oc, kh, kw;
  int64_t groups, sh, sw, ph, pw, dh, dw;
  bool bias;
  float lo, hi;  // a fused clamp when finite
};

int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

std::vector<float> random_values(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) {
    x = u(rng);
  }
  return v;
}

OwnedTensor filled(std::vector<int32_t> shape, const std::vector<float>& logical,
                   std::vector<uint8_t> order = {}) {
  OwnedTensor t(ScalarType::Float, std::move(shape), std::move(order));
  t.set_logical(reinterpret_cast<const uint8_t*>(logical.data()));
  return t;
}

std::vector<float> logical_floats(const OwnedTensor& t) {
  const std::vector<uint8_t> b = logical_bytes(t.tensor());
  std::vector<float> v(b.size() / sizeof(float));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

// One convolution with the given layouts (cl_act: the output's, and the input's unless
// contiguous_input); the weight counts as a constant (prepared at load through the registered
// preparer when `cache` is given). Returns the output in logical order.
std::vector<float> run_conv(const ConvCase& k, const std::vector<float>& x,
                            const std::vector<float>& w, const std::vector<float>& b, bool cl_act,
                            bool cl_weight, TestCache* cache, bool bias_constant = true,
                            bool contiguous_input = false) {
  const int32_t oh = static_cast<int32_t>(out_size(k.h, k.kh, k.sh, k.ph, k.dh));
  const int32_t ow = static_cast<int32_t>(out_size(k.w, k.kw, k.sw, k.pw, k.dw));
  const std::vector<uint8_t> act_order = cl_act ? kChannelsLast : std::vector<uint8_t>{};
  OwnedTensor xt =
      filled({k.n, k.c, k.h, k.w}, x, contiguous_input ? std::vector<uint8_t>{} : act_order);
  OwnedTensor wt = filled({k.oc, static_cast<int32_t>(k.c / k.groups), k.kh, k.kw}, w,
                          cl_weight ? kChannelsLast : std::vector<uint8_t>{});
  OwnedTensor bt = filled({k.oc}, b);
  OwnedTensor conv_out(ScalarType::Float, {k.n, k.oc, oh, ow}, act_order);
  OwnedTensor act_out(ScalarType::Float, {k.n, k.oc, oh, ow}, act_order);
  IntList s({k.sh, k.sw}), p({k.ph, k.pw}), d({k.dh, k.dw}), op({0, 0});
  EValue ex(xt.tensor()), ew(wt.tensor()), eb(bt.tensor()), none, tr(false), g(k.groups),
      eo(conv_out.tensor()), lo(static_cast<double>(k.lo)), hi(static_cast<double>(k.hi)),
      ea(act_out.tensor());
  const bool fused = std::isfinite(k.lo) || std::isfinite(k.hi);
  EValue* bias = k.bias ? &eb : &none;
  std::vector<EValue*> args = {&ex, &ew, bias, &s.ev, &p.ev, &d.ev, &tr, &op.ev, &g, &eo, &eo};
  const uint64_t constants = 2u | (k.bias && bias_constant ? 4u : 0u);
  if (cache != nullptr) {
    auto prepare = executorch::runtime::find_constant_preparer(kConv);
    EXPECT_NE(prepare, nullptr);
    KernelRuntimeContext pctx;
    pctx.internal_set_read_only_args(constants);
    prepare(pctx, Span<EValue*>(args.data(), args.size()), *cache);
  }
  executorch::runtime::OpFunction fn = nullptr;
  if (fused) {
    // hardtanh(conv, lo, hi, out) fused into the convolution, as the Method does at load.
    std::vector<EValue*> act = {&eo, &lo, &hi, &ea, &ea};
    auto fuser = executorch::runtime::find_instruction_fuser(kConv, "aten::hardtanh.out");
    EXPECT_NE(fuser, nullptr);
    fn = fuser(Span<EValue*>(args.data(), args.size()), Span<EValue*>(act.data(), act.size()));
    EXPECT_NE(fn, nullptr);
    args[9] = &ea;
    args[10] = &ea;
    args.insert(args.end(), act.begin(), act.end());
  } else {
    auto found = executorch::runtime::get_op_function_from_registry(kConv);
    EXPECT_TRUE(found.ok());
    fn = *found;
  }
  KernelRuntimeContext ctx;
  ctx.internal_set_read_only_args(constants);
  ctx.internal_set_prepared_constants(cache);
  fn(ctx, Span<EValue*>(args.data(), args.size()));
  EXPECT_EQ(ctx.failure_state(), Error::Ok);
  return logical_floats(fused ? act_out : conv_out);
}

class ConvChannelsLast : public ::testing::Test {
 protected:
  void TearDown() override {
    EXPECT_TRUE(executorch::extension::threadpool::set_num_threads(0));
  }
};

TEST_F(ConvChannelsLast, MatchesContiguousPathBitIdenticalAcrossThreadsAndPreparation) {
  const float inf = std::numeric_limits<float>::infinity();
  const ConvCase cases[] = {
      // n  c  h   w  oc kh kw  g  sh sw ph pw dh dw  bias   lo    hi
      {1, 8, 9, 11, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, true, -inf, inf},    // dense 3x3
      {2, 5, 7, 6, 7, 1, 1, 1, 1, 1, 0, 0, 1, 1, false, -inf, inf},     // pointwise
      {1, 6, 10, 9, 9, 3, 2, 3, 2, 1, 1, 0, 1, 2, true, -inf, inf},     // grouped, strided
      {1, 4, 12, 13, 4, 3, 3, 4, 1, 1, 1, 1, 1, 1, true, -inf, inf},    // depthwise
      {2, 3, 11, 8, 6, 5, 3, 3, 2, 2, 2, 1, 2, 1, false, -inf, inf},    // depthwise x2
      {1, 16, 8, 8, 24, 3, 3, 1, 2, 2, 0, 2, 1, 1, true, 0.0f, 6.0f},   // dense + relu6
      {1, 8, 9, 9, 16, 3, 3, 8, 1, 1, 2, 2, 2, 2, true, -0.5f, 0.5f},   // depthwise + clamp
      {1, 3, 13, 17, 12, 7, 7, 1, 2, 2, 3, 3, 1, 1, false, 0.0f, inf},  // stem conv + relu
  };
  std::mt19937 rng(1234);
  for (const ConvCase& k : cases) {
    SCOPED_TRACE(testing::Message() << "c=" << k.c << " oc=" << k.oc << " k=" << k.kh << "x" << k.kw
                                    << " groups=" << k.groups << " bias=" << k.bias << " clamp=["
                                    << k.lo << ", " << k.hi << "]");
    const std::vector<float> x = random_values(static_cast<size_t>(k.n * k.c * k.h * k.w), rng);
    const std::vector<float> w =
        random_values(static_cast<size_t>(k.oc * (k.c / k.groups) * k.kh * k.kw), rng);
    const std::vector<float> b = random_values(static_cast<size_t>(k.oc), rng);
    ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(1));
    const std::vector<float> ref = run_conv(k, x, w, b, false, false, nullptr);
    for (bool cl_weight : {false, true}) {
      std::vector<float> first;
      for (size_t threads : {1, 2}) {
        ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(threads));
        // Not prepared; prepared; prepared with a bias known only at execute (the call then
        // lays out its own filter).
        for (int mode : {0, 1, 2}) {
          const bool prepared = mode == 1;
          SCOPED_TRACE(testing::Message() << "threads=" << threads << " mode=" << mode
                                          << " channels-last weight=" << cl_weight);
          TestCache cache;
          const std::vector<float> y =
              run_conv(k, x, w, b, true, cl_weight, mode != 0 ? &cache : nullptr, mode != 2);
          ASSERT_EQ(y.size(), ref.size());
          for (size_t i = 0; i < y.size(); ++i) {
            ASSERT_NEAR(y[i], ref[i], 1e-5f * (1.0f + std::fabs(ref[i]))) << "at " << i;
          }
          if (first.empty()) {
            first = y;
          } else {
            ASSERT_EQ(std::memcmp(y.data(), first.data(), y.size() * sizeof(float)), 0);
          }
          if (prepared) {
            // The filter was laid out for the NHWC routines at load and found at execute.
            EXPECT_TRUE(cache.has(kNhwcFilterTag));
            EXPECT_NE(std::find(cache.looked_up.begin(), cache.looked_up.end(), kNhwcFilterTag),
                      cache.looked_up.end());
          }
        }
      }
    }
  }
}

// A network's first convolution: a contiguous image of a few channels (1 to 4; three take the
// shuffled interleave, the others the scalar loop; 13 x 17 pixels leave a tail) into a
// channels-last output. The image is interleaved into a channels-last copy first, which must be
// exact: the result is the all-NHWC convolution's, bit for bit.
TEST_F(ConvChannelsLast, ContiguousImageIntoChannelsLastOutput) {
  const float inf = std::numeric_limits<float>::infinity();
  std::mt19937 rng(99);
  for (int32_t c = 1; c <= 4; ++c) {
    SCOPED_TRACE(testing::Message() << "channels=" << c);
    const ConvCase k{2, c, 13, 17, 8, 3, 3, 1, 2, 2, 1, 1, 1, 1, true, -inf, inf};
    const std::vector<float> x = random_values(static_cast<size_t>(k.n * k.c * k.h * k.w), rng);
    const std::vector<float> w = random_values(static_cast<size_t>(k.oc * k.c * 9), rng);
    const std::vector<float> b = random_values(static_cast<size_t>(k.oc), rng);
    ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(1));
    const std::vector<float> nhwc = run_conv(k, x, w, b, true, false, nullptr);
    const std::vector<float> mixed = run_conv(k, x, w, b, true, false, nullptr, true, true);
    ASSERT_EQ(mixed.size(), nhwc.size());
    EXPECT_EQ(std::memcmp(mixed.data(), nhwc.data(), nhwc.size() * sizeof(float)), 0);
  }
}

// Only channels-last input and output together take the NHWC path; a contiguous output keeps
// the NCHW path (and its SGEMM-packed weight).
TEST_F(ConvChannelsLast, MixedLayoutsStayOnTheContiguousPath) {
  const ConvCase k{1,
                   8,
                   9,
                   9,
                   16,
                   3,
                   3,
                   1,
                   1,
                   1,
                   1,
                   1,
                   1,
                   1,
                   true,
                   -std::numeric_limits<float>::infinity(),
                   std::numeric_limits<float>::infinity()};
  std::mt19937 rng(7);
  const std::vector<float> x = random_values(8 * 81, rng), w = random_values(16 * 8 * 9, rng),
                           b = random_values(16, rng);
  TestCache cache;
  const std::vector<float> y = run_conv(k, x, w, b, false, false, &cache);
  EXPECT_EQ(y.size(), 16u * 81u);
  EXPECT_FALSE(cache.has(kNhwcFilterTag));
}

}  // namespace
