// TensorPtr, its factories and TensorAccessor.
#include <executorch/extension/tensor/tensor.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace executorch::extension;
using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::aten::TensorShapeDynamism;
using executorch::runtime::Error;

namespace {

std::vector<int32_t> sizes_of(const TensorPtr& t) {
  return {t->sizes().begin(), t->sizes().end()};
}
std::vector<int32_t> strides_of(const TensorPtr& t) {
  return {t->strides().begin(), t->strides().end()};
}
std::vector<int> dim_order_of(const TensorPtr& t) {
  return {t->dim_order().begin(), t->dim_order().end()};
}

TEST(TensorPtr, FromRawDataIsContiguousAndShared) {
  float data[6] = {1, 2, 3, 4, 5, 6};
  auto t = make_tensor_ptr({2, 3}, data);
  EXPECT_EQ(t->dim(), 2);
  EXPECT_EQ(t->numel(), 6);
  EXPECT_EQ(t->scalar_type(), ScalarType::Float);
  EXPECT_EQ(sizes_of(t), (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(strides_of(t), (std::vector<int32_t>{3, 1}));
  EXPECT_EQ(dim_order_of(t), (std::vector<int>{0, 1}));
  EXPECT_EQ(t->const_data_ptr<float>(), data);
  EXPECT_EQ(t->shape_dynamism(), TensorShapeDynamism::DYNAMIC_BOUND);
}

TEST(TensorPtr, DeleterRunsOnceWhenLastReferenceGoes) {
  int calls = 0;
  float data[2] = {0, 0};
  {
    auto t =
        make_tensor_ptr({2}, data, ScalarType::Float, TensorShapeDynamism::STATIC, [&](void* p) {
          EXPECT_EQ(p, data);
          ++calls;
        });
    auto copy = t;
    EXPECT_EQ(calls, 0);
  }
  EXPECT_EQ(calls, 1);
}

TEST(TensorPtr, StridesDeriveDimOrder) {
  float data[6] = {};
  auto t = make_tensor_ptr({2, 3}, data, {}, {1, 2});
  EXPECT_EQ(dim_order_of(t), (std::vector<int>{1, 0}));
  EXPECT_EQ(strides_of(t), (std::vector<int32_t>{1, 2}));
}

TEST(TensorPtr, DimOrderDerivesStrides) {
  float data[24] = {};
  auto t = make_tensor_ptr({1, 2, 3, 4}, data, {0, 2, 3, 1}, {});
  EXPECT_EQ(strides_of(t), (std::vector<int32_t>{24, 1, 8, 2}));
}

TEST(TensorPtr, OwnsVectorData) {
  auto t = make_tensor_ptr({2, 2}, std::vector<float>{1, 2, 3, 4});
  EXPECT_EQ(t->const_data_ptr<float>()[3], 4.0f);
  auto i = make_tensor_ptr(std::vector<int64_t>{7, 8, 9});
  EXPECT_EQ(i->scalar_type(), ScalarType::Long);
  EXPECT_EQ(sizes_of(i), (std::vector<int32_t>{3}));
}

TEST(TensorPtr, InitializerLists) {
  auto t = make_tensor_ptr({2, 2}, {1.0f, 2.0f, 3.0f, 4.0f});
  EXPECT_EQ(t->numel(), 4);
  auto one_d = make_tensor_ptr({5, 6, 7});
  EXPECT_EQ(one_d->scalar_type(), ScalarType::Int);
  EXPECT_EQ(one_d->const_data_ptr<int32_t>()[2], 7);
}

TEST(TensorPtr, ScalarValueIsZeroDimStatic) {
  auto t = make_tensor_ptr(3.5);
  EXPECT_EQ(t->dim(), 0);
  EXPECT_EQ(t->numel(), 1);
  EXPECT_EQ(t->scalar_type(), ScalarType::Double);
  EXPECT_EQ(t->shape_dynamism(), TensorShapeDynamism::STATIC);
  EXPECT_EQ(*t->const_data_ptr<double>(), 3.5);
}

TEST(TensorPtr, VectorWithCastConvertsElements) {
  auto t = make_tensor_ptr({3}, std::vector<int32_t>{1, 2, 3}, {}, {}, ScalarType::Float);
  EXPECT_EQ(t->scalar_type(), ScalarType::Float);
  EXPECT_FLOAT_EQ(t->const_data_ptr<float>()[2], 3.0f);
  auto h = make_tensor_ptr({2}, std::vector<float>{1.5f, -2.0f}, {}, {}, ScalarType::Half);
  EXPECT_FLOAT_EQ(static_cast<float>(h->const_data_ptr<executorch::aten::Half>()[0]), 1.5f);
}

TEST(TensorPtr, BytesVector) {
  std::vector<uint8_t> bytes(4 * sizeof(int32_t), 0);
  reinterpret_cast<int32_t*>(bytes.data())[1] = 42;
  auto t = make_tensor_ptr({4}, std::move(bytes), ScalarType::Int);
  EXPECT_EQ(t->const_data_ptr<int32_t>()[1], 42);
}

TEST(TensorPtr, ViewOfTensorSharesData) {
  float data[6] = {1, 2, 3, 4, 5, 6};
  TensorImpl::SizesType sizes[2] = {2, 3};
  TensorImpl impl(ScalarType::Float, 2, sizes, data);
  Tensor tensor(&impl);
  auto same = make_tensor_ptr(tensor);
  EXPECT_EQ(same->const_data_ptr(), data);
  EXPECT_EQ(sizes_of(same), (std::vector<int32_t>{2, 3}));
  auto flat = make_tensor_ptr(tensor, {6});
  EXPECT_EQ(sizes_of(flat), (std::vector<int32_t>{6}));
  EXPECT_EQ(flat->const_data_ptr(), data);
}

TEST(TensorPtr, ViewOfTensorPtrKeepsSourceAlive) {
  TensorPtr view;
  {
    auto src = make_tensor_ptr({2, 2}, std::vector<float>{1, 2, 3, 4});
    view = make_tensor_ptr(src, {4});
  }
  EXPECT_FLOAT_EQ(view->const_data_ptr<float>()[3], 4.0f);
}

TEST(TensorPtr, CloneCopiesAndCasts) {
  auto src = make_tensor_ptr({2}, std::vector<float>{1.25f, 2.75f});
  auto copy = clone_tensor_ptr(src);
  EXPECT_NE(copy->const_data_ptr(), src->const_data_ptr());
  EXPECT_FLOAT_EQ(copy->const_data_ptr<float>()[1], 2.75f);
  auto dbl = clone_tensor_ptr(src, ScalarType::Double);
  EXPECT_EQ(dbl->scalar_type(), ScalarType::Double);
  EXPECT_DOUBLE_EQ(dbl->const_data_ptr<double>()[0], 1.25);
  auto from_tensor = clone_tensor_ptr(*src);
  EXPECT_FLOAT_EQ(from_tensor->const_data_ptr<float>()[0], 1.25f);
}

TEST(TensorPtr, ResizeWithinBound) {
  auto t = make_tensor_ptr({2, 3}, std::vector<float>(6, 0.f));
  EXPECT_EQ(resize_tensor_ptr(t, {3, 2}), Error::Ok);
  EXPECT_EQ(sizes_of(t), (std::vector<int32_t>{3, 2}));
  EXPECT_EQ(resize_tensor_ptr(t, {1, 2}), Error::Ok);
  EXPECT_EQ(t->numel(), 2);
  EXPECT_NE(resize_tensor_ptr(t, {4, 4}), Error::Ok);
  EXPECT_NE(resize_tensor_ptr(t, {6}), Error::Ok);
}

TEST(TensorPtr, ResizeStaticRefusesNewShape) {
  float data[4] = {};
  auto t = make_tensor_ptr({4}, data, ScalarType::Float, TensorShapeDynamism::STATIC);
  EXPECT_EQ(resize_tensor_ptr(t, {4}), Error::Ok);
  EXPECT_NE(resize_tensor_ptr(t, {2}), Error::Ok);
}

TEST(TensorPtrMaker, ForBlobChain) {
  float data[6] = {};
  TensorPtr t = for_blob(data, {2, 3})
                    .strides({1, 2})
                    .dynamism(TensorShapeDynamism::STATIC)
                    .type(ScalarType::Float)
                    .make_tensor_ptr();
  EXPECT_EQ(dim_order_of(t), (std::vector<int>{1, 0}));
  EXPECT_EQ(t->shape_dynamism(), TensorShapeDynamism::STATIC);
  int deleted = 0;
  {
    TensorPtr d = for_blob(data, {6}).deleter([&](void*) { ++deleted; });
  }
  EXPECT_EQ(deleted, 1);
}

TEST(TensorPtrMaker, FromBlobOverloads) {
  int32_t data[6] = {};
  auto a = from_blob(data, {6}, ScalarType::Int);
  EXPECT_EQ(a->scalar_type(), ScalarType::Int);
  auto b = from_blob(data, {2, 3}, {3, 1}, ScalarType::Int);
  EXPECT_EQ(strides_of(b), (std::vector<int32_t>{3, 1}));
  int n = 0;
  {
    auto c = from_blob(data, {6}, ScalarType::Int, [&](void*) { ++n; });
    auto d = from_blob(data, {2, 3}, {3, 1}, ScalarType::Int, [&](void*) { ++n; });
  }
  EXPECT_EQ(n, 2);
}

TEST(TensorPtrMaker, FullZerosOnes) {
  auto z = zeros({2, 2});
  auto o = ones({3}, ScalarType::Int);
  auto f = full({2}, 7, ScalarType::Long);
  auto s = scalar_tensor(2.5);
  auto e = empty({4}, ScalarType::Double);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(z->const_data_ptr<float>()[i], 0.f);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(o->const_data_ptr<int32_t>()[i], 1);
  EXPECT_EQ(f->const_data_ptr<int64_t>()[1], 7);
  EXPECT_EQ(s->dim(), 0);
  EXPECT_FLOAT_EQ(*s->const_data_ptr<float>(), 2.5f);
  EXPECT_EQ(e->numel(), 4);
  auto b = full({2}, true, ScalarType::Bool);
  EXPECT_TRUE(b->const_data_ptr<bool>()[0]);
  auto h = ones({2}, ScalarType::Half);
  EXPECT_FLOAT_EQ(static_cast<float>(h->const_data_ptr<executorch::aten::Half>()[1]), 1.0f);
}

TEST(TensorPtrMaker, LikeFactoriesFollowSource) {
  auto src = make_tensor_ptr({2, 3}, std::vector<int64_t>(6, 5));
  auto z = zeros_like(src);
  EXPECT_EQ(z->scalar_type(), ScalarType::Long);
  EXPECT_EQ(sizes_of(z), (std::vector<int32_t>{2, 3}));
  auto o = ones_like(src, ScalarType::Float);
  EXPECT_EQ(o->scalar_type(), ScalarType::Float);
  EXPECT_EQ(o->const_data_ptr<float>()[5], 1.f);
  auto f = full_like(src, 3);
  EXPECT_EQ(f->const_data_ptr<int64_t>()[0], 3);
  auto e = empty_like(src);
  EXPECT_EQ(e->numel(), 6);
  auto r = rand_like(ones({10}));
  auto rn = randn_like(ones({10}));
  auto ri = randint_like(src, 0, 4);
  EXPECT_EQ(r->numel(), 10);
  EXPECT_EQ(rn->numel(), 10);
  for (int i = 0; i < 6; ++i) {
    EXPECT_GE(ri->const_data_ptr<int64_t>()[i], 0);
    EXPECT_LT(ri->const_data_ptr<int64_t>()[i], 4);
  }
}

TEST(TensorPtrMaker, RandomRanges) {
  auto r = rand({1000});
  for (int i = 0; i < 1000; ++i) {
    EXPECT_GE(r->const_data_ptr<float>()[i], 0.f);
    EXPECT_LT(r->const_data_ptr<float>()[i], 1.f);
  }
  auto ri = randint(-3, 3, {1000});
  EXPECT_EQ(ri->scalar_type(), ScalarType::Int);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_GE(ri->const_data_ptr<int32_t>()[i], -3);
    EXPECT_LT(ri->const_data_ptr<int32_t>()[i], 3);
  }
  auto rn = randn({100}, ScalarType::Double);
  EXPECT_EQ(rn->scalar_type(), ScalarType::Double);
  auto rs = rand_strided({2, 3}, {1, 2});
  EXPECT_EQ(strides_of(rs), (std::vector<int32_t>{1, 2}));
}

TEST(TensorPtrMaker, StridedFactories) {
  auto e = empty_strided({2, 3}, {1, 2});
  EXPECT_EQ(dim_order_of(e), (std::vector<int>{1, 0}));
  auto f = full_strided({2, 3}, {1, 2}, 4.0, ScalarType::Float);
  EXPECT_EQ(f->const_data_ptr<float>()[5], 4.f);
}

TEST(TensorAccessor, IndexesThroughStrides) {
  std::vector<int32_t> v{0, 1, 2, 3, 4, 5};
  auto t = make_tensor_ptr({2, 3}, v);
  auto acc = make_tensor_accessor<int32_t, 2>(*t);
  ASSERT_TRUE(acc.ok());
  EXPECT_EQ((*acc)[1][2], 5);
  EXPECT_EQ(acc->size(1), 3);
  EXPECT_EQ(acc->stride(0), 3);
  (*acc)[0][1] = 10;
  EXPECT_EQ(t->const_data_ptr<int32_t>()[1], 10);
  auto const_acc = make_tensor_accessor<const int32_t, 2>(*t);
  ASSERT_TRUE(const_acc.ok());
  EXPECT_EQ((*const_acc)[0][1], 10);
}

TEST(TensorAccessor, RejectsWrongRankOrType) {
  auto t = make_tensor_ptr({2, 3}, std::vector<float>(6, 0.f));
  EXPECT_EQ((make_tensor_accessor<float, 3>(*t).error()), Error::InvalidArgument);
  EXPECT_EQ((make_tensor_accessor<double, 2>(*t).error()), Error::InvalidArgument);
  float data[6];
  auto nc = make_tensor_ptr({2, 3}, data, {1, 0}, {});
  EXPECT_EQ((make_tensor_accessor<float, 2>(*nc).error()), Error::NotSupported);
}

TEST(TensorPtrDeathTest, MismatchedElementCountAborts) {
  EXPECT_DEATH(make_tensor_ptr({2, 2}, std::vector<float>{1, 2, 3}), "");
}

TEST(TensorPtrDeathTest, BadStridesAbort) {
  float data[6];
  EXPECT_DEATH(make_tensor_ptr({2, 3}, data, {}, {5, 1}), "");
}

}  // namespace
