// Hostile shapes and positions for the quantized_decomposed and llama::
// kernels that the goldens (test/fixtures/kernels_quantized, kernels_llama)
// cannot express: sizes whose product overflows int64 in an empty tensor,
// and caches untouched by a call that fails.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "safety_util.h"

namespace kernel_safety {
namespace {

constexpr int32_t kBig = INT32_MAX;

TEST(KernelSafetyQuantized, PerChannelInnerSizeOfAnEmptyTensorThatOverflowsFails) {
  // The tensor is empty (its first dim is 0) but the elements per channel of
  // axis 0, (2^31 - 1)^3, overflow int64.
  ExactTensor in(ScalarType::Char, {0, kBig, kBig, kBig}),
      out(ScalarType::Float, {0, kBig, kBig, kBig});
  ExactTensor scales(ScalarType::Float, {0});
  EValue ei(in.tensor()), es(scales.tensor()), none, eo(out.tensor());
  EValue axis(int64_t{0}), qmin(int64_t{-128}), qmax(int64_t{127}), dtype(int64_t{1});
  EXPECT_EQ(call("quantized_decomposed::dequantize_per_channel.out",
                 {&ei, &es, &none, &axis, &qmin, &qmax, &dtype, &none, &eo, &eo}),
            Error::InvalidArgument);
}

TEST(KernelSafetyLlama, FailedCacheWriteLeavesTheCacheUntouched) {
  // sdpa_with_kv_cache checks the attention arguments (here a head count
  // that is not a multiple of the kv heads) before it writes the caches.
  std::vector<float> kcache(1 * 4 * 2 * 2, 7.0f), vcache(kcache);
  ExactTensor q(ScalarType::Float, {1, 1, 3, 2}), k(ScalarType::Float, {1, 1, 2, 2}),
      v(ScalarType::Float, {1, 1, 2, 2}), kc(ScalarType::Float, {1, 4, 2, 2}, kcache.data()),
      vc(ScalarType::Float, {1, 4, 2, 2}, vcache.data()), out(ScalarType::Float, {1, 1, 3, 2});
  EValue eq(q.tensor()), ek(k.tensor()), ev(v.tensor()), ekc(kc.tensor()), evc(vc.tensor()),
      eo(out.tensor());
  EValue start(int64_t{1}), seq_len(int64_t{1}), none, dropout(0.0), causal(true);
  EXPECT_EQ(call("llama::sdpa_with_kv_cache.out", {&eq, &ek, &ev, &ekc, &evc, &start, &seq_len,
                                                   &none, &dropout, &causal, &none, &eo, &eo}),
            Error::InvalidArgument);
  for (float x : kcache) {
    ASSERT_EQ(x, 7.0f);
  }
  for (float x : vcache) {
    ASSERT_EQ(x, 7.0f);
  }
}

}  // namespace
}  // namespace kernel_safety
