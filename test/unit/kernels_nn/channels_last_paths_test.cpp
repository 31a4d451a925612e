// The channels-last fast paths of the kernels that sit between convolutions in CNNs: on a
// channels-last [N, C, H, W] float input, mean over H and W (the global average pool) and
// the inference batch norm must give exactly the bits the same op gives on the contiguous
// copy of the data, with channel counts that are not multiples of any vector width, more
// channels than one work chunk, and at 1, 2 and 3 threads (this binary splits every loop the
// thread count allows, see pooling_paths_test.cpp).
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/extension/threadpool/threadpool.h>

#include "../kernels_elementwise/kernel_test_util.h"

using executorch::aten::ScalarType;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using kernel_test::call_op;
using kernel_test::IntList;
using kernel_test::logical_bytes;
using kernel_test::OwnedTensor;
using kernel_test::TList;

namespace {

const std::vector<uint8_t> kChannelsLast = {0, 2, 3, 1};
constexpr size_t kThreadCounts[] = {1, 2, 3};

struct Shape {
  int32_t n, c, h, w;
};

// N, C, H, W: odd channel counts, one and several 64-channel chunks, reductions of fewer and
// more than 8 pixels with a tail.
const Shape kShapes[] = {{1, 1, 5, 5},  {1, 3, 7, 7},   {2, 17, 7, 7},  {1, 35, 3, 5},
                         {1, 80, 7, 7}, {2, 130, 4, 9}, {1, 16, 14, 14}};

std::vector<float> random_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-3.0f, 3.0f);
  std::vector<float> v(n);
  for (float& x : v) {
    x = d(rng);
  }
  return v;
}

OwnedTensor tensor_of(const Shape& s, const std::vector<float>& data,
                      const std::vector<uint8_t>& order) {
  OwnedTensor t(ScalarType::Float, {s.n, s.c, s.h, s.w}, order);
  t.set_logical(reinterpret_cast<const uint8_t*>(data.data()));
  return t;
}

size_t numel(const Shape& s) {
  return static_cast<size_t>(s.n) * static_cast<size_t>(s.c) * static_cast<size_t>(s.h) *
         static_cast<size_t>(s.w);
}

class ChannelsLastPaths : public ::testing::Test {
 protected:
  void TearDown() override {
    EXPECT_TRUE(executorch::extension::threadpool::set_num_threads(0));
  }
};

// mean.out(self, dims, keepdim) into a fresh output of shape `out_shape` in `out_order`.
std::vector<uint8_t> run_mean(const OwnedTensor& in, const std::vector<int64_t>& dims, bool keepdim,
                              const std::vector<int32_t>& out_shape,
                              const std::vector<uint8_t>& out_order) {
  OwnedTensor out(ScalarType::Float, out_shape, out_order);
  EValue ex(in.tensor()), eo(out.tensor()), keep(keepdim), dtype;
  IntList d(dims);
  EXPECT_EQ(call_op("aten::mean.out", {&ex, &d.ev, &keep, &dtype, &eo, &eo}), Error::Ok);
  return logical_bytes(out.tensor());
}

TEST_F(ChannelsLastPaths, MeanOverHeightAndWidthMatchesContiguous) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(testing::Message() << s.n << "x" << s.c << "x" << s.h << "x" << s.w);
    const std::vector<float> x = random_values(numel(s), 11);
    const OwnedTensor contiguous = tensor_of(s, x, {});
    const OwnedTensor channels_last = tensor_of(s, x, kChannelsLast);
    for (const std::vector<int64_t>& dims :
         {std::vector<int64_t>{-1, -2}, std::vector<int64_t>{2, 3}}) {
      for (bool keepdim : {true, false}) {
        const std::vector<int32_t> os =
            keepdim ? std::vector<int32_t>{s.n, s.c, 1, 1} : std::vector<int32_t>{s.n, s.c};
        const std::vector<uint8_t> cl_out =
            keepdim ? kChannelsLast : std::vector<uint8_t>{};  // as the export gives it
        ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(1));
        const std::vector<uint8_t> want = run_mean(contiguous, dims, keepdim, os, {});
        for (size_t threads : kThreadCounts) {
          ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(threads));
          EXPECT_EQ(run_mean(channels_last, dims, keepdim, os, cl_out), want)
              << threads << " threads, dims " << dims[0] << "," << dims[1] << " keepdim "
              << keepdim;
        }
      }
    }
  }
}

// _native_batch_norm_legit_no_training.out on `in`; returns the normalized output's logical
// bytes.
std::vector<uint8_t> run_batch_norm(const OwnedTensor& in, const Shape& s,
                                    const std::vector<uint8_t>& order, const OwnedTensor& w,
                                    const OwnedTensor& b, const OwnedTensor& m,
                                    const OwnedTensor& v) {
  OwnedTensor o0(ScalarType::Float, {s.n, s.c, s.h, s.w}, order);
  OwnedTensor o1(ScalarType::Float, {0}), o2(ScalarType::Float, {0});
  EValue ex(in.tensor()), ew(w.tensor()), eb(b.tensor()), em(m.tensor()), ev(v.tensor());
  EValue mom(0.1), eps(1e-5), e0(o0.tensor()), e1(o1.tensor()), e2(o2.tensor());
  TList ret({o0.tensor(), o1.tensor(), o2.tensor()});
  EXPECT_EQ(call_op("aten::_native_batch_norm_legit_no_training.out",
                    {&ex, &ew, &eb, &em, &ev, &mom, &eps, &e0, &e1, &e2, &ret.ev}),
            Error::Ok);
  return logical_bytes(o0.tensor());
}

TEST_F(ChannelsLastPaths, BatchNormMatchesContiguous) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(testing::Message() << s.n << "x" << s.c << "x" << s.h << "x" << s.w);
    const std::vector<float> x = random_values(numel(s), 5);
    std::vector<float> var = random_values(static_cast<size_t>(s.c), 6);
    for (float& e : var) {
      e = e * e + 0.1f;
    }
    auto param = [&](const std::vector<float>& p) {
      OwnedTensor t(ScalarType::Float, {s.c});
      t.set_logical(reinterpret_cast<const uint8_t*>(p.data()));
      return t;
    };
    const OwnedTensor w = param(random_values(static_cast<size_t>(s.c), 7));
    const OwnedTensor b = param(random_values(static_cast<size_t>(s.c), 8));
    const OwnedTensor m = param(random_values(static_cast<size_t>(s.c), 9));
    const OwnedTensor v = param(var);
    ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(1));
    const std::vector<uint8_t> want = run_batch_norm(tensor_of(s, x, {}), s, {}, w, b, m, v);
    const OwnedTensor channels_last = tensor_of(s, x, kChannelsLast);
    for (size_t threads : kThreadCounts) {
      ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(threads));
      EXPECT_EQ(run_batch_norm(channels_last, s, kChannelsLast, w, b, m, v), want)
          << threads << " threads";
    }
  }
}

// add / sub / mul / div of a channels-last [N, C, H, W] and a per-channel [N, C, 1, 1] (the
// squeeze-excitation scale; either operand order, the small one in either dim order) and of
// two channels-last tensors of one shape.
std::vector<uint8_t> run_binary(const char* op, const OwnedTensor& a, const OwnedTensor& b,
                                const Shape& s, const std::vector<uint8_t>& out_order) {
  OwnedTensor out(ScalarType::Float, {s.n, s.c, s.h, s.w}, out_order);
  EValue ea(a.tensor()), eb(b.tensor()), eo(out.tensor()), alpha(1.5);
  const bool has_alpha = std::strstr(op, "add") != nullptr || std::strstr(op, "sub") != nullptr;
  EXPECT_EQ(
      has_alpha ? call_op(op, {&ea, &eb, &alpha, &eo, &eo}) : call_op(op, {&ea, &eb, &eo, &eo}),
      Error::Ok);
  return logical_bytes(out.tensor());
}

TEST_F(ChannelsLastPaths, BinaryOpsMatchContiguous) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(testing::Message() << s.n << "x" << s.c << "x" << s.h << "x" << s.w);
    const Shape per_channel{s.n, s.c, 1, 1};
    const std::vector<float> x = random_values(numel(s), 21);
    const std::vector<float> y = random_values(numel(s), 22);
    const std::vector<float> g = random_values(numel(per_channel), 23);
    const OwnedTensor x_nchw = tensor_of(s, x, {}), x_cl = tensor_of(s, x, kChannelsLast);
    const OwnedTensor y_nchw = tensor_of(s, y, {}), y_cl = tensor_of(s, y, kChannelsLast);
    const OwnedTensor g_nchw = tensor_of(per_channel, g, {});
    const OwnedTensor g_cl = tensor_of(per_channel, g, kChannelsLast);
    for (const char* op : {"aten::add.out", "aten::sub.out", "aten::mul.out", "aten::div.out"}) {
      ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(1));
      const std::vector<uint8_t> want_xy = run_binary(op, x_nchw, y_nchw, s, {});
      const std::vector<uint8_t> want_xg = run_binary(op, x_nchw, g_nchw, s, {});
      const std::vector<uint8_t> want_gx = run_binary(op, g_nchw, x_nchw, s, {});
      for (size_t threads : kThreadCounts) {
        ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(threads));
        EXPECT_EQ(run_binary(op, x_cl, y_cl, s, kChannelsLast), want_xy) << op << " " << threads;
        for (const OwnedTensor* gate : {&g_nchw, &g_cl}) {
          EXPECT_EQ(run_binary(op, x_cl, *gate, s, kChannelsLast), want_xg) << op << " " << threads;
          EXPECT_EQ(run_binary(op, *gate, x_cl, s, kChannelsLast), want_gx) << op << " " << threads;
        }
      }
    }
  }
}

}  // namespace
