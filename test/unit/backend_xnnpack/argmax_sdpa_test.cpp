// ArgMaxPooling2d and ScaledDotProductAttention against plain reference loops written here,
// and their malformed parameters refused at init.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/runtime/core/exec_aten/exec_aten.h>

#include "../common/log_capture.h"
#include "xnn_test_util.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using xnn_test::Delegate;
using xnn_test::GraphWriter;
using xnn_test::kNone;
namespace fb = xnn_test::fb;
using T = fb::XNodeUnion;

namespace {

// Distinct values in a scrambled order (no ties, so the position of the maximum is unique).
std::vector<float> scrambled(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>((i * 37) % n) * 0.25f - 3.0f;
  return v;
}

std::vector<int32_t> sizes_of(const std::vector<uint32_t>& d) {
  return std::vector<int32_t>(d.begin(), d.end());
}

// x [1, 4, 6, 3] NHWC, window 2x3 (stride = window) -> values and int64 indices [1, 2, 2, 3].
GraphWriter argmax_graph(fb::XNNArgMaxPooling2dT** params) {
  GraphWriter g;
  const uint32_t x = g.value({1, 4, 6, 3}, 0);
  const uint32_t v = g.value({1, 2, 2, 3}, 1, true);
  const uint32_t i = g.value({1, 2, 2, 3}, 2, true);
  auto* p = new fb::XNNArgMaxPooling2dT();
  p->pooling_height = 2;
  p->pooling_width = 3;
  p->input_id = x;
  p->output_value_id = v;
  p->output_index_id = i;
  g.node(T::XNNArgMaxPooling2d, p);
  if (params != nullptr)
    *params = p;
  return g;
}

TEST(XnnpackArgMaxPooling, ValuesAndWindowIndices) {
  Delegate d(argmax_graph(nullptr).payload());
  ASSERT_EQ(d.init_error, Error::Ok) << test::captured_logs();
  const uint32_t H = 4, W = 6, C = 3, PH = 2, PW = 3, OH = 2, OW = 2;
  std::vector<float> x = scrambled(H * W * C), values(OH * OW * C, -1.0f);
  std::vector<int64_t> indices(OH * OW * C, -1);
  const auto xs = sizes_of({1, H, W, C}), ys = sizes_of({1, OH, OW, C});
  TensorImpl xi(ScalarType::Float, 4, const_cast<int32_t*>(xs.data()), x.data());
  TensorImpl vi(ScalarType::Float, 4, const_cast<int32_t*>(ys.data()), values.data());
  TensorImpl ii(ScalarType::Long, 4, const_cast<int32_t*>(ys.data()), indices.data());
  EValue ex{Tensor(&xi)}, ev{Tensor(&vi)}, ei{Tensor(&ii)};
  ASSERT_EQ(d.execute({&ex, &ev, &ei}), Error::Ok);
  for (uint32_t oh = 0; oh < OH; ++oh)
    for (uint32_t ow = 0; ow < OW; ++ow)
      for (uint32_t c = 0; c < C; ++c) {
        float best = -INFINITY;
        int64_t where = -1;
        for (uint32_t r = 0; r < PH; ++r)
          for (uint32_t s = 0; s < PW; ++s) {
            const float v = x[((oh * PH + r) * W + ow * PW + s) * C + c];
            if (v > best) {
              best = v;
              where = s * PH + r;  // XNNPACK numbers the window column-major
            }
          }
        const size_t o = (oh * OW + ow) * C + c;
        EXPECT_EQ(values[o], best) << oh << "," << ow << "," << c;
        EXPECT_EQ(indices[o], where) << oh << "," << ow << "," << c;
      }
  // An int32 index tensor works too; a float one does not.
  std::vector<int32_t> indices32(OH * OW * C, -1);
  TensorImpl i32(ScalarType::Int, 4, const_cast<int32_t*>(ys.data()), indices32.data());
  EValue e32{Tensor(&i32)};
  ASSERT_EQ(d.execute({&ex, &ev, &e32}), Error::Ok);
  for (size_t o = 0; o < indices32.size(); ++o)
    EXPECT_EQ(indices32[o], indices[o]);
  EXPECT_EQ(d.execute({&ex, &ev, &ev}), Error::InvalidArgument);
}

void expect_argmax_refused(const std::function<void(GraphWriter&, fb::XNNArgMaxPooling2dT*)>& f,
                           Error want, const char* message) {
  fb::XNNArgMaxPooling2dT* p = nullptr;
  GraphWriter g = argmax_graph(&p);
  f(g, p);
  test::clear_captured_logs();
  Delegate d(g.payload());
  EXPECT_EQ(d.init_error, want) << message;
  EXPECT_NE(test::captured_logs().find(message), std::string::npos) << test::captured_logs();
}

TEST(XnnpackArgMaxPooling, MalformedParametersAreRefused) {
  expect_argmax_refused([](GraphWriter&, auto* p) { p->pooling_height = p->pooling_width = 1; },
                        Error::InvalidProgram, "at least 2 elements");
  expect_argmax_refused([](GraphWriter&, auto* p) { p->pooling_height = 0; }, Error::InvalidProgram,
                        "at least 2 elements");
  expect_argmax_refused([](GraphWriter&, auto* p) { p->pooling_width = 2; }, Error::InvalidProgram,
                        "values and indices must both be");
  expect_argmax_refused([](GraphWriter&, auto* p) { p->padding_left = 0xFFFFFFFFu; },
                        Error::InvalidProgram, "padding exceeds");
  expect_argmax_refused([](GraphWriter&, auto* p) { p->output_index_id = 7; },
                        Error::InvalidProgram, "output_index_id 7 names no value");
  expect_argmax_refused([](GraphWriter&, auto* p) { p->output_index_id = p->output_value_id; },
                        Error::InvalidProgram, "written twice");
  expect_argmax_refused([](GraphWriter&, auto* p) { p->input_id = kNone; }, Error::InvalidProgram,
                        "input_id");
  expect_argmax_refused([](GraphWriter&, auto* p) { p->flags = 0x4; }, Error::NotSupported,
                        "flags 0x4");
  expect_argmax_refused(
      [](GraphWriter& g, auto*) {
        g.tensor(0)->dims = {4, 6, 3};
      },
      Error::InvalidProgram, "num_dims");
  expect_argmax_refused(
      [](GraphWriter& g, auto*) {
        g.tensor(0)->dims = {1, 4, 6};
        g.tensor(0)->num_dims = 3;
      },
      Error::InvalidProgram, "4-D NHWC input");
}

// SDPA shapes: batch B, heads H, query tokens Tq, key/value tokens U, channels C, value
// channels D; `shared` gives key and value no heads dim.
struct SdpaCase {
  uint32_t B, H, Tq, U, C, D;
  bool shared;
};

struct SdpaGraph {
  GraphWriter g;
  uint32_t q, k, v, scale, mask, out;
  std::vector<float> scale_data, mask_data;
  fb::XNNScaledDotProductAttentionT* params;
};

SdpaGraph sdpa_graph(const SdpaCase& c) {
  SdpaGraph s;
  s.q = s.g.value({c.B, c.H, c.Tq, c.C}, 0);
  s.k = c.shared ? s.g.value({c.B, c.U, c.C}, 1) : s.g.value({c.B, c.H, c.U, c.C}, 1);
  s.v = c.shared ? s.g.value({c.B, c.U, c.D}, 2) : s.g.value({c.B, c.H, c.U, c.D}, 2);
  for (uint32_t i = 0; i < c.C; ++i)
    s.scale_data.push_back(0.5f + 0.1f * static_cast<float>(i));
  for (uint32_t i = 0; i < c.Tq * c.U; ++i)
    s.mask_data.push_back((i % 4 == 3) ? -1e4f : 0.05f * static_cast<float>(i % 5));
  s.scale = s.g.constant({c.C}, s.scale_data);
  s.mask = s.g.constant({c.Tq, c.U}, s.mask_data);
  s.out = s.g.value({c.B, c.H, c.Tq, c.D}, 3, true);
  s.params = new fb::XNNScaledDotProductAttentionT();
  s.params->query_id = s.q;
  s.params->key_id = s.k;
  s.params->value_id = s.v;
  s.params->scale_id = s.scale;
  s.params->mask_id = s.mask;
  s.params->output_id = s.out;
  s.g.node(T::XNNScaledDotProductAttention, s.params);
  return s;
}

void check_sdpa(const SdpaCase& c) {
  SdpaGraph s = sdpa_graph(c);
  Delegate d(s.g.payload());
  ASSERT_EQ(d.init_error, Error::Ok) << test::captured_logs();
  const uint32_t kv_heads = c.shared ? 1 : c.H;
  std::vector<float> q = scrambled(c.B * c.H * c.Tq * c.C),
                     k = scrambled(c.B * kv_heads * c.U * c.C),
                     v = scrambled(c.B * kv_heads * c.U * c.D);
  for (float& e : k)
    e *= 0.3f;
  std::vector<float> y(c.B * c.H * c.Tq * c.D, NAN);
  const auto qs = sizes_of({c.B, c.H, c.Tq, c.C}), ys = sizes_of({c.B, c.H, c.Tq, c.D});
  const auto ks = c.shared ? sizes_of({c.B, c.U, c.C}) : sizes_of({c.B, c.H, c.U, c.C});
  const auto vs = c.shared ? sizes_of({c.B, c.U, c.D}) : sizes_of({c.B, c.H, c.U, c.D});
  TensorImpl qi(ScalarType::Float, 4, const_cast<int32_t*>(qs.data()), q.data());
  TensorImpl ki(ScalarType::Float, static_cast<ssize_t>(ks.size()), const_cast<int32_t*>(ks.data()),
                k.data());
  TensorImpl vi(ScalarType::Float, static_cast<ssize_t>(vs.size()), const_cast<int32_t*>(vs.data()),
                v.data());
  TensorImpl yi(ScalarType::Float, 4, const_cast<int32_t*>(ys.data()), y.data());
  EValue eq{Tensor(&qi)}, ek{Tensor(&ki)}, ev{Tensor(&vi)}, ey{Tensor(&yi)};
  ASSERT_EQ(d.execute({&eq, &ek, &ev, &ey}), Error::Ok);
  for (uint32_t b = 0; b < c.B; ++b)
    for (uint32_t h = 0; h < c.H; ++h) {
      const uint32_t kvh = c.shared ? b : b * c.H + h;
      for (uint32_t t = 0; t < c.Tq; ++t) {
        std::vector<double> logits(c.U);
        double max = -INFINITY;
        for (uint32_t u = 0; u < c.U; ++u) {
          double acc = s.mask_data[t * c.U + u];
          for (uint32_t ch = 0; ch < c.C; ++ch)
            acc += double{q[((b * c.H + h) * c.Tq + t) * c.C + ch]} * s.scale_data[ch] *
                   k[(kvh * c.U + u) * c.C + ch];
          logits[u] = acc;
          max = std::max(max, acc);
        }
        double sum = 0;
        for (double& l : logits)
          sum += (l = std::exp(l - max));
        for (uint32_t dd = 0; dd < c.D; ++dd) {
          double want = 0;
          for (uint32_t u = 0; u < c.U; ++u)
            want += logits[u] / sum * v[(kvh * c.U + u) * c.D + dd];
          EXPECT_NEAR(y[((b * c.H + h) * c.Tq + t) * c.D + dd], want, 1e-4)
              << b << "," << h << "," << t << "," << dd;
        }
      }
    }
}

TEST(XnnpackSdpa, MultiHeadMatchesReference) {
  check_sdpa({2, 3, 4, 5, 6, 3, false});
}

TEST(XnnpackSdpa, SharedKeyValueMatchesReference) {
  check_sdpa({2, 2, 3, 7, 4, 5, true});
}

void expect_sdpa_refused(const std::function<void(SdpaGraph&)>& f, Error want,
                         const char* message) {
  SdpaGraph s = sdpa_graph({1, 2, 3, 4, 5, 6, false});
  f(s);
  test::clear_captured_logs();
  Delegate d(s.g.payload());
  EXPECT_EQ(d.init_error, want) << message;
  EXPECT_NE(test::captured_logs().find(message), std::string::npos) << test::captured_logs();
}

TEST(XnnpackSdpa, MalformedParametersAreRefused) {
  expect_sdpa_refused([](SdpaGraph& s) { s.params->mask_id = s.scale; }, Error::InvalidProgram,
                      "scale must be [5] and mask [3, 4]");
  expect_sdpa_refused([](SdpaGraph& s) { s.params->scale_id = s.mask; }, Error::InvalidProgram,
                      "scale must be [5] and mask [3, 4]");
  expect_sdpa_refused([](SdpaGraph& s) { s.params->key_id = s.v; }, Error::InvalidProgram,
                      "do not match query channels");
  expect_sdpa_refused([](SdpaGraph& s) { s.params->value_id = 99; }, Error::InvalidProgram,
                      "value_id 99 names no value");
  expect_sdpa_refused([](SdpaGraph& s) { s.params->output_id = s.q; }, Error::InvalidProgram,
                      "is a constant or an external input");
  expect_sdpa_refused([](SdpaGraph& s) { s.params->query_id = s.scale; }, Error::InvalidProgram,
                      "query needs rank >= 3");
  expect_sdpa_refused([](SdpaGraph& s) { s.params->flags = 1; }, Error::NotSupported, "flags 0x1");
  expect_sdpa_refused(
      [](SdpaGraph& s) {
        s.g.tensor(s.out)->dims = {1, 2, 3, 5};
      },
      Error::InvalidProgram, "output must be [*, 2, 3, 6]");
  expect_sdpa_refused(
      [](SdpaGraph& s) {
        s.g.tensor(s.k)->dims = {1, 3, 4, 5};  // heads differ from the query's
      },
      Error::InvalidProgram, "must equal query heads 2");
}

}  // namespace
