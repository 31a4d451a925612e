// Kernels of the NN / shape / indexing families that the golden format
// cannot express (several outs packed as a tensor list, TensorList and
// Tensor?[] arguments) plus edge semantics: safe softmax, pooling with
// ceil_mode, empty tensors, dynamic out resizing, errors that fail the
// context (never abort) with a log naming the operator. Kernels are called
// through the registry with the emitter's argument layout.
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "../kernels_elementwise/kernel_test_util.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using kernel_test::call_op;
using kernel_test::IntList;
using kernel_test::OptTList;
using kernel_test::OwnedTensor;
using kernel_test::TList;

namespace {

template <class T>
OwnedTensor make(ScalarType dt, std::vector<int32_t> shape, std::vector<T> data,
                 std::vector<uint8_t> order = {}) {
  OwnedTensor t(dt, std::move(shape), std::move(order));
  t.set_logical(reinterpret_cast<const uint8_t*>(data.data()));
  return t;
}

template <class T>
std::vector<T> values(const Tensor& t) {
  std::vector<uint8_t> b = kernel_test::logical_bytes(t);
  std::vector<T> v(static_cast<size_t>(t.numel()));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

TEST(NnOps, MaxPoolCeilModeWithIndicesPacked) {
  // 1x1x5x5 ramp, kernel 2, stride 2, ceil_mode: 3x3 output, last window partial.
  std::vector<float> in(25);
  for (int i = 0; i < 25; ++i) {
    in[i] = static_cast<float>(i);
  }
  OwnedTensor x = make<float>(ScalarType::Float, {1, 1, 5, 5}, in);
  OwnedTensor out(ScalarType::Float, {1, 1, 3, 3});
  OwnedTensor idx(ScalarType::Long, {1, 1, 3, 3});
  EValue ex(x.tensor()), eo(out.tensor()), ei(idx.tensor());
  IntList k({2, 2}), s({2, 2}), p({0, 0}), d({1, 1});
  EValue ceil(true);
  TList ret({out.tensor(), idx.tensor()});
  ASSERT_EQ(call_op("aten::max_pool2d_with_indices.out",
                    {&ex, &k.ev, &s.ev, &p.ev, &d.ev, &ceil, &eo, &ei, &ret.ev}),
            Error::Ok);
  EXPECT_EQ(values<float>(out.tensor()), (std::vector<float>{6, 8, 9, 16, 18, 19, 21, 23, 24}));
  EXPECT_EQ(values<int64_t>(idx.tensor()), (std::vector<int64_t>{6, 8, 9, 16, 18, 19, 21, 23, 24}));
}

TEST(NnOps, MaxPoolPaddingIsNegInf) {
  OwnedTensor x = make<float>(ScalarType::Float, {1, 1, 2, 2}, {-5, -6, -7, -8});
  OwnedTensor out(ScalarType::Float, {1, 1, 2, 2});
  OwnedTensor idx(ScalarType::Long, {1, 1, 2, 2});
  EValue ex(x.tensor()), eo(out.tensor()), ei(idx.tensor());
  IntList k({3, 3}), s({1, 1}), p({1, 1}), d({1, 1});
  EValue ceil(false);
  TList ret({out.tensor(), idx.tensor()});
  ASSERT_EQ(call_op("aten::max_pool2d_with_indices.out",
                    {&ex, &k.ev, &s.ev, &p.ev, &d.ev, &ceil, &eo, &ei, &ret.ev}),
            Error::Ok);
  EXPECT_EQ(values<float>(out.tensor()), (std::vector<float>{-5, -5, -5, -5}));
}

TEST(NnOps, BatchNormThreeOuts) {
  OwnedTensor x = make<float>(ScalarType::Float, {1, 2, 1, 2}, {1, 2, 3, 4});
  OwnedTensor w = make<float>(ScalarType::Float, {2}, {2, 1});
  OwnedTensor b = make<float>(ScalarType::Float, {2}, {0, 1});
  OwnedTensor m = make<float>(ScalarType::Float, {2}, {1, 3});
  OwnedTensor v = make<float>(ScalarType::Float, {2}, {4, 1});
  OwnedTensor o0(ScalarType::Float, {1, 2, 1, 2}), o1(ScalarType::Float, {0}),
      o2(ScalarType::Float, {0});
  EValue ex(x.tensor()), ew(w.tensor()), eb(b.tensor()), em(m.tensor()), ev(v.tensor());
  EValue mom(0.1), eps(0.0), e0(o0.tensor()), e1(o1.tensor()), e2(o2.tensor());
  TList ret({o0.tensor(), o1.tensor(), o2.tensor()});
  ASSERT_EQ(call_op("aten::_native_batch_norm_legit_no_training.out",
                    {&ex, &ew, &eb, &em, &ev, &mom, &eps, &e0, &e1, &e2, &ret.ev}),
            Error::Ok);
  EXPECT_EQ(values<float>(o0.tensor()), (std::vector<float>{0, 1, 1, 2}));
}

TEST(NnOps, LayerNormMeanRstdAndNoWeight) {
  OwnedTensor x = make<float>(ScalarType::Float, {2, 2}, {1, 3, 2, 2});
  OwnedTensor o0(ScalarType::Float, {2, 2}), o1(ScalarType::Float, {2, 1}),
      o2(ScalarType::Float, {2, 1});
  EValue ex(x.tensor()), none, eps(0.0), e0(o0.tensor()), e1(o1.tensor()), e2(o2.tensor());
  IntList ns({2});
  TList ret({o0.tensor(), o1.tensor(), o2.tensor()});
  ASSERT_EQ(call_op("aten::native_layer_norm.out",
                    {&ex, &ns.ev, &none, &none, &eps, &e0, &e1, &e2, &ret.ev}),
            Error::Ok);
  EXPECT_EQ(values<float>(o0.tensor())[0], -1.0f);
  EXPECT_EQ(values<float>(o0.tensor())[1], 1.0f);
  EXPECT_EQ(values<float>(o1.tensor()), (std::vector<float>{2, 2}));
  EXPECT_EQ(values<float>(o2.tensor())[0], 1.0f);
  EXPECT_TRUE(std::isinf(values<float>(o2.tensor())[1]));  // zero variance, eps 0
}

TEST(NnOps, SafeSoftmaxAllNegInfRowGivesZero) {
  const float ninf = -std::numeric_limits<float>::infinity();
  OwnedTensor x = make<float>(ScalarType::Float, {2, 3}, {ninf, ninf, ninf, 0, 0, ninf});
  OwnedTensor out(ScalarType::Float, {2, 3});
  EValue ex(x.tensor()), dim(static_cast<int64_t>(-1)), h2f(false), eo(out.tensor());
  ASSERT_EQ(call_op("aten::_softmax.out", {&ex, &dim, &h2f, &eo, &eo}), Error::Ok);
  EXPECT_EQ(values<float>(out.tensor()), (std::vector<float>{0, 0, 0, 0.5f, 0.5f, 0}));
  ASSERT_EQ(call_op("aten::_log_softmax.out", {&ex, &dim, &h2f, &eo, &eo}), Error::Ok);
  EXPECT_EQ(values<float>(out.tensor())[0], ninf);
}

TEST(NnOps, CatSkipsLegacyEmptyAndResizesDynamicOut) {
  OwnedTensor a = make<int64_t>(ScalarType::Long, {1, 2}, {1, 2});
  OwnedTensor e(ScalarType::Long, {0});
  OwnedTensor b = make<int64_t>(ScalarType::Long, {2, 2}, {3, 4, 5, 6});
  OwnedTensor out(ScalarType::Long, {4, 2}, {}, /*dynamic=*/true);
  TList in({a.tensor(), e.tensor(), b.tensor()});
  EValue dim(static_cast<int64_t>(0)), eo(out.tensor());
  ASSERT_EQ(call_op("aten::cat.out", {&in.ev, &dim, &eo, &eo}), Error::Ok);
  EXPECT_EQ(out.tensor().size(0), 3);
  EXPECT_EQ(values<int64_t>(out.tensor()), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
}

TEST(NnOps, SplitWithSizesWritesTensorList) {
  OwnedTensor x = make<float>(ScalarType::Float, {2, 3}, {1, 2, 3, 4, 5, 6});
  OwnedTensor o1(ScalarType::Float, {2, 1}), o2(ScalarType::Float, {2, 2});
  EValue ex(x.tensor()), dim(static_cast<int64_t>(1));
  IntList sizes({1, 2});
  TList outs({o1.tensor(), o2.tensor()});
  ASSERT_EQ(call_op("aten::split_with_sizes_copy.out", {&ex, &sizes.ev, &dim, &outs.ev, &outs.ev}),
            Error::Ok);
  EXPECT_EQ(values<float>(o1.tensor()), (std::vector<float>{1, 4}));
  EXPECT_EQ(values<float>(o2.tensor()), (std::vector<float>{2, 3, 5, 6}));
  IntList bad({1, 1});
  EXPECT_EQ(call_op("aten::split_with_sizes_copy.out", {&ex, &bad.ev, &dim, &outs.ev, &outs.ev}),
            Error::InvalidArgument);
}

TEST(NnOps, IndexTensorWithNoneAndBoolMask) {
  // x[1::, idx] style: x [3, 4], indices [None, [3, 0]] -> [3, 2].
  std::vector<float> xv(12);
  for (int i = 0; i < 12; ++i) {
    xv[i] = static_cast<float>(i);
  }
  OwnedTensor x = make<float>(ScalarType::Float, {3, 4}, xv);
  OwnedTensor idx = make<int64_t>(ScalarType::Long, {2}, {3, 0});
  OwnedTensor out(ScalarType::Float, {3, 2});
  OptTList ind({std::nullopt, idx.tensor()});
  EValue ex(x.tensor()), eo(out.tensor());
  ASSERT_EQ(call_op("aten::index.Tensor_out", {&ex, &ind.ev, &eo, &eo}), Error::Ok);
  EXPECT_EQ(values<float>(out.tensor()), (std::vector<float>{3, 0, 7, 4, 11, 8}));
  // Bool mask over dim 0 selects rows 0 and 2.
  OwnedTensor mask = make<uint8_t>(ScalarType::Bool, {3}, {1, 0, 1});
  OwnedTensor out2(ScalarType::Float, {3, 4}, {}, /*dynamic=*/true);
  OptTList ind2({mask.tensor()});
  EValue eo2(out2.tensor());
  ASSERT_EQ(call_op("aten::index.Tensor_out", {&ex, &ind2.ev, &eo2, &eo2}), Error::Ok);
  ASSERT_EQ(out2.tensor().size(0), 2);
  EXPECT_EQ(values<float>(out2.tensor()), (std::vector<float>{0, 1, 2, 3, 8, 9, 10, 11}));
  // Out of range index fails the context.
  OwnedTensor bad = make<int64_t>(ScalarType::Long, {1}, {4});
  OptTList ind3({std::nullopt, bad.tensor()});
  OwnedTensor out3(ScalarType::Float, {3, 1});
  EValue eo3(out3.tensor());
  EXPECT_EQ(call_op("aten::index.Tensor_out", {&ex, &ind3.ev, &eo3, &eo3}), Error::InvalidArgument);
}

TEST(NnOps, IndexPutKvCacheStyleAndAccumulate) {
  OwnedTensor cache(ScalarType::Float, {1, 2, 4, 1});
  std::memset(cache.tensor().mutable_data_ptr(), 0, cache.tensor().nbytes());
  OwnedTensor pos = make<int64_t>(ScalarType::Long, {2}, {1, 3});
  OwnedTensor vals = make<float>(ScalarType::Float, {2, 2, 1}, {1, 2, 3, 4});
  OwnedTensor out(ScalarType::Float, {1, 2, 4, 1});
  OptTList ind({std::nullopt, std::nullopt, pos.tensor()});
  EValue ec(cache.tensor()), ev(vals.tensor()), acc(false), eo(out.tensor());
  ASSERT_EQ(call_op("aten::index_put.out", {&ec, &ind.ev, &ev, &acc, &eo, &eo}), Error::Ok);
  EXPECT_EQ(values<float>(out.tensor()), (std::vector<float>{0, 1, 0, 2, 0, 3, 0, 4}));
  EValue acc2(true);
  ASSERT_EQ(call_op("aten::index_put.out", {&eo, &ind.ev, &ev, &acc2, &eo, &eo}), Error::Ok);
  EXPECT_EQ(values<float>(out.tensor()), (std::vector<float>{0, 2, 0, 4, 0, 6, 0, 8}));
}

TEST(NnOps, ConvRejectsWrongDtypeWithoutAborting) {
  OwnedTensor x(ScalarType::Long, {1, 1, 3, 3});
  OwnedTensor w(ScalarType::Long, {1, 1, 1, 1});
  OwnedTensor out(ScalarType::Long, {1, 1, 3, 3});
  EValue ex(x.tensor()), ew(w.tensor()), none, tr(false), g(static_cast<int64_t>(1)),
      eo(out.tensor());
  IntList s({1, 1}), p({0, 0}), d({1, 1}), op({0, 0});
  EXPECT_EQ(call_op("aten::convolution.out",
                    {&ex, &ew, &none, &s.ev, &p.ev, &d.ev, &tr, &op.ev, &g, &eo, &eo}),
            Error::InvalidArgument);
}

TEST(NnOps, StaticOutWithWrongShapeFails) {
  OwnedTensor a(ScalarType::Float, {2, 3}), b(ScalarType::Float, {3, 4});
  OwnedTensor out(ScalarType::Float, {2, 5});  // static, wrong
  EValue ea(a.tensor()), eb(b.tensor()), eo(out.tensor());
  EXPECT_NE(call_op("aten::mm.out", {&ea, &eb, &eo, &eo}), Error::Ok);
  // Wrong argument count is reported, not aborted.
  EXPECT_EQ(call_op("aten::mm.out", {&ea, &eb, &eo}), Error::InvalidProgram);
}

TEST(NnOps, EmptyTensorsThroughShapeOps) {
  OwnedTensor x(ScalarType::Float, {0, 3});
  OwnedTensor out(ScalarType::Float, {3, 0});
  IntList dims({1, 0});
  EValue ex(x.tensor()), eo(out.tensor());
  EXPECT_EQ(call_op("aten::permute_copy.out", {&ex, &dims.ev, &eo, &eo}), Error::Ok);
  OwnedTensor s(ScalarType::Float, {3});
  IntList all({0});
  EValue keep(false), none, es(s.tensor());
  ASSERT_EQ(call_op("aten::sum.IntList_out", {&ex, &all.ev, &keep, &none, &es, &es}), Error::Ok);
  EXPECT_EQ(values<float>(s.tensor()), (std::vector<float>{0, 0, 0}));
}

}  // namespace
