// Hostile shapes and positions for the quantized_decomposed and llama::
// kernels that the goldens (test/fixtures/kernels_quantized, kernels_llama)
// cannot express: sizes whose product overflows int64 in an empty tensor,
// packed weights whose unpacked row does not fit a dim, head counts that
// would divide by zero, and caches untouched by a call that fails.
#include <cstdint>
#include <cstring>
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

// embedding_<n>bit unpacks a row of b bytes into b * 8 / n values. That
// count used to be cut to the int32 dim size: a 2-bit weight [1, 2^30 + 1]
// unpacks to 2^32 + 4 values, which became an out of [1, 4] that the kernel
// then filled with 2^32 + 4 values per index. The weight's data (it claims
// a gigabyte) must never be read and out and the bytes after it never
// written.
void expect_embedding_rejected(const char* op, bool dtype_overload, int32_t row_bytes) {
  SCOPED_TRACE(op);
  uint8_t fake[16] = {};
  ExactTensor weight(ScalarType::Byte, {1, row_bytes}, fake);
  ExactTensor scales(ScalarType::Float, {1}), indices(ScalarType::Long, {1});
  GuardedTensor out(ScalarType::Float, {1, 4});
  EValue ew(weight.tensor()), es(scales.tensor()), none, qmin(int64_t{-2}), qmax(int64_t{1});
  EValue ei(indices.tensor()), eo(out.tensor());
  std::vector<EValue*> args = {&ew, &es, &none, &qmin, &qmax, &ei};
  if (dtype_overload) {
    args.push_back(&none);
  }
  args.push_back(&eo);
  args.push_back(&eo);
  LogCapture log;
  EXPECT_EQ(call(op, args), Error::InvalidArgument);
  EXPECT_TRUE(out.untouched());
  EXPECT_TRUE(out.guard_intact());
  // The log names the operator (without its namespace) and the weight.
  EXPECT_TRUE(log.has_line_with({std::strchr(op, ':') + 2, "'weight'"})) << log.text();
}

TEST(KernelSafetyQuantized, Embedding2BitRowThatUnpacksBeyondADimFails) {
  // 4 * (2^30 + 1) = 2^32 + 4 values, which became 4.
  for (const bool dtype_overload : {false, true}) {
    expect_embedding_rejected(dtype_overload ? "quantized_decomposed::embedding_2bit.dtype_out"
                                             : "quantized_decomposed::embedding_2bit.out",
                              dtype_overload, (int32_t{1} << 30) + 1);
  }
}

TEST(KernelSafetyQuantized, Embedding4BitRowThatUnpacksBeyondADimFails) {
  // 2 * (2^31 - 1) = 2^32 - 2 values, which became -2: refused, but as a
  // resize error of 'out'.
  for (const bool dtype_overload : {false, true}) {
    expect_embedding_rejected(dtype_overload ? "quantized_decomposed::embedding_4bit.dtype_out"
                                             : "quantized_decomposed::embedding_4bit.out",
                              dtype_overload, kBig);
  }
}

// Query head h reads kv head h / (heads / kv_heads); with no kv heads that
// divided by zero (0 query heads passed the multiple check). Each call must
// fail naming 'key', before the caches or out are written.
TEST(KernelSafetyLlama, ZeroKvHeadsFail) {
  ExactTensor q(ScalarType::Float, {1, 1, 0, 2}), k(ScalarType::Float, {1, 1, 0, 2}),
      v(ScalarType::Float, {1, 1, 0, 2});
  EValue eq(q.tensor()), ek(k.tensor()), ev(v.tensor()), start(int64_t{0}), none, dropout(0.0),
      causal(true);
  {
    GuardedTensor out(ScalarType::Float, {1, 1, 0, 2});
    EValue eo(out.tensor());
    LogCapture log;
    EXPECT_EQ(call("llama::custom_sdpa.out",
                   {&eq, &ek, &ev, &start, &none, &dropout, &causal, &none, &eo, &eo}),
              Error::InvalidArgument);
    EXPECT_TRUE(out.guard_intact());
    EXPECT_TRUE(log.has_line_with({"custom_sdpa.out", "'key'"})) << log.text();
  }
  {
    GuardedTensor kc(ScalarType::Float, {1, 4, 0, 2}), vc(ScalarType::Float, {1, 4, 0, 2}),
        out(ScalarType::Float, {1, 1, 0, 2});
    EValue ekc(kc.tensor()), evc(vc.tensor()), seq_len(int64_t{1}), eo(out.tensor());
    LogCapture log;
    EXPECT_EQ(call("llama::sdpa_with_kv_cache.out", {&eq, &ek, &ev, &ekc, &evc, &start, &seq_len,
                                                     &none, &dropout, &causal, &none, &eo, &eo}),
              Error::InvalidArgument);
    EXPECT_TRUE(kc.guard_intact());
    EXPECT_TRUE(vc.guard_intact());
    EXPECT_TRUE(out.guard_intact());
    EXPECT_TRUE(log.has_line_with({"sdpa_with_kv_cache.out", "'key'"})) << log.text();
  }
  {
    // int8 q, k and v with per-row qparams, the sequence at dim 1 and at 2.
    for (const bool seq_at_dim_2 : {false, true}) {
      SCOPED_TRACE(seq_at_dim_2 ? "seq at dim 2" : "seq at dim 1");
      const std::vector<int32_t> shape =
          seq_at_dim_2 ? std::vector<int32_t>{1, 0, 1, 2} : std::vector<int32_t>{1, 1, 0, 2};
      std::vector<int32_t> row = shape;
      row[3] = 1;
      ExactTensor qkv(ScalarType::Char, shape), zp(ScalarType::Char, row),
          sc(ScalarType::Float, row);
      GuardedTensor out(ScalarType::Float, shape);
      EValue eqkv(qkv.tensor()), ezp(zp.tensor()), esc(sc.tensor()), dim2(seq_at_dim_2),
          eo(out.tensor());
      LogCapture log;
      EXPECT_EQ(call("llama::custom_quantized_sdpa.out",
                     {&eqkv, &eqkv, &eqkv, &start, &none, &dropout, &causal, &none, &ezp, &esc,
                      &ezp, &esc, &ezp, &esc, &dim2, &eo, &eo}),
                Error::InvalidArgument);
      EXPECT_TRUE(out.guard_intact());
      EXPECT_TRUE(log.has_line_with({"custom_quantized_sdpa.out", "'key'"})) << log.text();
    }
  }
}

TEST(KernelSafetyLlama, ZeroQueryHeadsOverKvHeadsGiveAnEmptyOut) {
  // 0 is a multiple of any kv head count: the attention is empty, not an error.
  ExactTensor q(ScalarType::Float, {1, 1, 0, 2}), k(ScalarType::Float, {1, 1, 2, 2}),
      v(ScalarType::Float, {1, 1, 2, 2});
  GuardedTensor out(ScalarType::Float, {1, 1, 0, 2});
  EValue eq(q.tensor()), ek(k.tensor()), ev(v.tensor()), start(int64_t{0}), none, dropout(0.0),
      causal(true), eo(out.tensor());
  EXPECT_EQ(call("llama::custom_sdpa.out",
                 {&eq, &ek, &ev, &start, &none, &dropout, &causal, &none, &eo, &eo}),
            Error::Ok);
  EXPECT_TRUE(out.guard_intact());
}

TEST(KernelSafetyLlama, QueryHeadsNotAMultipleOfKvHeadsFail) {
  // 2 query heads over 3 kv heads, and 3 over 2.
  for (const bool fewer_query_heads : {true, false}) {
    const int32_t heads = fewer_query_heads ? 2 : 3, kv_heads = fewer_query_heads ? 3 : 2;
    ExactTensor q(ScalarType::Float, {1, 1, heads, 2}), k(ScalarType::Float, {1, 1, kv_heads, 2}),
        v(ScalarType::Float, {1, 1, kv_heads, 2});
    GuardedTensor out(ScalarType::Float, {1, 1, heads, 2});
    EValue eq(q.tensor()), ek(k.tensor()), ev(v.tensor()), start(int64_t{0}), none, dropout(0.0),
        causal(true), eo(out.tensor());
    LogCapture log;
    EXPECT_EQ(call("llama::custom_sdpa.out",
                   {&eq, &ek, &ev, &start, &none, &dropout, &causal, &none, &eo, &eo}),
              Error::InvalidArgument);
    EXPECT_TRUE(out.untouched());
    EXPECT_TRUE(out.guard_intact());
    EXPECT_TRUE(log.has_line_with({"custom_sdpa.out", "'query'", "'key'"})) << log.text();
  }
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
