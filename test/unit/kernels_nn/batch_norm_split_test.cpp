// _native_batch_norm_legit_no_training split across the thread pool (by planes, or by rows when
// channels-last): for float32 (vector path) and float64, both layouts, every element must be
// x * scale[c] + shift[c] as a plain loop computes it (rounded once, as a fused multiply-add
// gives it on the FMA vector levels, or twice), and the output at 2 and 3 threads must be
// bit-identical to the one at 1 thread. The chunk minimum
// is one item in this binary (pooling_paths_test.cpp sets it), so every split is taken.
#include <cmath>
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
using kernel_test::OwnedTensor;
using kernel_test::TList;

namespace {

template <class T>
OwnedTensor tensor_of(ScalarType dt, std::vector<int32_t> shape, const std::vector<T>& data,
                      std::vector<uint8_t> order = {}) {
  OwnedTensor t(dt, std::move(shape), std::move(order));
  t.set_logical(reinterpret_cast<const uint8_t*>(data.data()));
  return t;
}

// v rounded to T: a volatile store cannot be fused into a neighbouring add.
template <class T>
T rounded(T v) {
  volatile T r = v;
  return r;
}

template <class T>
void check_batch_norm_split(ScalarType dt, std::vector<uint8_t> order) {
  const int32_t n = 2, c = 5, h = 7, w = 9;
  std::mt19937 rng(77);
  std::uniform_real_distribution<T> d(-2, 2), pos(0.1, 3);
  std::vector<T> x(static_cast<size_t>(n * c * h * w)), wt(c), b(c), m(c), v(c);
  for (T& e : x) {
    e = d(rng);
  }
  for (int32_t i = 0; i < c; ++i) {
    wt[i] = d(rng);
    b[i] = d(rng);
    m[i] = d(rng);
    v[i] = pos(rng);
  }
  const double eps = 1e-5;
  std::vector<T> want(x.size()), want_fused(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t ci = (i / static_cast<size_t>(h * w)) % static_cast<size_t>(c);
    // Every product is rounded on its own (rounded()), as the kernel computes the per-channel
    // scale and shift: where the target has fused multiply-add, the compiler would otherwise
    // fuse some of these and the reference would no longer be the plain loop.
    const T inv = T(1) / std::sqrt(v[ci] + static_cast<T>(eps));
    const T scale = rounded(inv * wt[ci]);
    const T shift = b[ci] - rounded(rounded(m[ci] * inv) * wt[ci]);
    want[i] = rounded(x[i] * scale) + shift;
    want_fused[i] = std::fma(x[i], scale, shift);
  }
  OwnedTensor tx = tensor_of<T>(dt, {n, c, h, w}, x, order);
  OwnedTensor tw = tensor_of<T>(dt, {c}, wt), tb = tensor_of<T>(dt, {c}, b);
  OwnedTensor tm = tensor_of<T>(dt, {c}, m), tv = tensor_of<T>(dt, {c}, v);
  std::vector<T> single;
  for (size_t threads : {1, 2, 3}) {
    ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(threads));
    OwnedTensor o0(dt, {n, c, h, w}, order), o1(dt, {0}), o2(dt, {0});
    EValue ex(tx.tensor()), ew(tw.tensor()), eb(tb.tensor()), em(tm.tensor()), ev(tv.tensor());
    EValue mom(0.1), eeps(eps), e0(o0.tensor()), e1(o1.tensor()), e2(o2.tensor());
    TList ret({o0.tensor(), o1.tensor(), o2.tensor()});
    ASSERT_EQ(call_op("aten::_native_batch_norm_legit_no_training.out",
                      {&ex, &ew, &eb, &em, &ev, &mom, &eeps, &e0, &e1, &e2, &ret.ev}),
              Error::Ok);
    const std::vector<uint8_t> bytes = kernel_test::logical_bytes(o0.tensor());
    ASSERT_EQ(bytes.size(), want.size() * sizeof(T));
    std::vector<T> got(want.size());
    std::memcpy(got.data(), bytes.data(), bytes.size());
    if (threads == 1) {
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_TRUE(got[i] == want[i] || got[i] == want_fused[i])
            << "element " << i << ": " << got[i] << " vs " << want[i];
      }
      single = got;
    } else {
      EXPECT_EQ(std::memcmp(got.data(), single.data(), bytes.size()), 0)
          << threads << " threads differ from 1 thread";
    }
  }
  EXPECT_TRUE(executorch::extension::threadpool::set_num_threads(0));
}

TEST(BatchNormSplit, FloatContiguous) {
  check_batch_norm_split<float>(ScalarType::Float, {});
}

TEST(BatchNormSplit, FloatChannelsLast) {
  check_batch_norm_split<float>(ScalarType::Float, {0, 2, 3, 1});
}

TEST(BatchNormSplit, DoubleContiguous) {
  check_batch_norm_split<double>(ScalarType::Double, {});
}

TEST(BatchNormSplit, DoubleChannelsLast) {
  check_batch_norm_split<double>(ScalarType::Double, {0, 2, 3, 1});
}

}  // namespace
