// TensorImpl/Tensor metadata, strides from dim order, and the resize rules.
#include <gtest/gtest.h>

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/dim_order_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>

using executorch::aten::DimOrderType;
using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::aten::StridesType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::aten::TensorShapeDynamism;
using executorch::runtime::Error;
using executorch::runtime::resize_tensor;

TEST(TensorImplTest, BasicMetadata) {
  SizesType sizes[] = {2, 3, 4};
  DimOrderType dim_order[] = {0, 1, 2};
  StridesType strides[] = {12, 4, 1};
  float data[24] = {};
  TensorImpl impl(ScalarType::Float, 3, sizes, data, dim_order, strides);
  Tensor t(&impl);
  EXPECT_EQ(t.dim(), 3);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.nbytes(), 96u);
  EXPECT_EQ(t.element_size(), 4);
  EXPECT_EQ(t.size(1), 3);
  EXPECT_EQ(t.scalar_type(), ScalarType::Float);
  EXPECT_EQ(t.dtype(), ScalarType::Float);
  EXPECT_EQ(t.strides()[0], 12);
  EXPECT_EQ(t.const_data_ptr<float>(), data);
  EXPECT_EQ(t.mutable_data_ptr(), static_cast<void*>(data));
  EXPECT_EQ(t.shape_dynamism(), TensorShapeDynamism::STATIC);
  EXPECT_TRUE(t.device().is_cpu());
  EXPECT_EQ(t.device_index(), 0);
  EXPECT_TRUE(executorch::runtime::tensor_is_contiguous(t));
}

TEST(TensorImplTest, ScalarTensor) {
  int64_t v = 5;
  TensorImpl impl(ScalarType::Long, 0, nullptr, &v);
  Tensor t(&impl);
  EXPECT_EQ(t.dim(), 0);
  EXPECT_EQ(t.numel(), 1);
  EXPECT_EQ(t.nbytes(), 8u);
  EXPECT_EQ(*t.const_data_ptr<int64_t>(), 5);
}

TEST(TensorImplTest, DefaultDimOrderAndStridesWhenNotGiven) {
  SizesType sizes[] = {2, 3, 4};
  TensorImpl impl(ScalarType::Int, 3, sizes);
  Tensor t(&impl);
  ASSERT_NE(t.dim_order().data(), nullptr);
  ASSERT_NE(t.strides().data(), nullptr);
  EXPECT_EQ(t.dim_order()[0], 0);
  EXPECT_EQ(t.dim_order()[2], 2);
  EXPECT_EQ(t.strides()[0], 12);
  EXPECT_EQ(t.strides()[1], 4);
  EXPECT_EQ(t.strides()[2], 1);

  // A copy must not point into the original's inline storage.
  TensorImpl copy = impl;
  EXPECT_NE(copy.strides().data(), impl.strides().data());
  EXPECT_EQ(copy.strides()[0], 12);
}

TEST(TensorImplTest, StridesFromDimOrder) {
  // Example from the format spec: sizes [2,3,4,5], dim order [0,2,3,1].
  SizesType sizes[] = {2, 3, 4, 5};
  DimOrderType order[] = {0, 2, 3, 1};
  StridesType strides[4];
  ASSERT_EQ(executorch::runtime::dim_order_to_stride(sizes, order, 4, strides), Error::Ok);
  EXPECT_EQ(strides[0], 60);
  EXPECT_EQ(strides[1], 1);
  EXPECT_EQ(strides[2], 15);
  EXPECT_EQ(strides[3], 3);

  // Given only a dim order, TensorImpl derives the same strides.
  TensorImpl impl(ScalarType::Float, 4, sizes, nullptr, order);
  EXPECT_EQ(impl.strides()[0], 60);
  EXPECT_EQ(impl.strides()[2], 15);
  EXPECT_TRUE(executorch::runtime::is_channels_last_dim_order(order, 4));
  EXPECT_FALSE(executorch::runtime::is_contiguous_dim_order(order, 4));

  // A zero-sized dim counts as 1 when computing outer strides.
  SizesType zsizes[] = {2, 0, 3};
  DimOrderType zorder[] = {0, 1, 2};
  StridesType zstrides[3];
  ASSERT_EQ(executorch::runtime::dim_order_to_stride(zsizes, zorder, 3, zstrides), Error::Ok);
  EXPECT_EQ(zstrides[0], 3);
  EXPECT_EQ(zstrides[1], 3);
  EXPECT_EQ(zstrides[2], 1);

  DimOrderType bad[] = {0, 0, 1};
  EXPECT_EQ(executorch::runtime::dim_order_to_stride(zsizes, bad, 3, zstrides),
            Error::InvalidArgument);
}

TEST(TensorImplTest, ChannelsLastStrides) {
  // NCHW sizes [1,3,2,2] laid out channels last: C is innermost.
  SizesType sizes[] = {1, 3, 2, 2};
  DimOrderType order[] = {0, 2, 3, 1};
  TensorImpl impl(ScalarType::Float, 4, sizes, nullptr, order);
  Tensor t(&impl);
  EXPECT_EQ(t.strides()[0], 12);
  EXPECT_EQ(t.strides()[1], 1);
  EXPECT_EQ(t.strides()[2], 6);
  EXPECT_EQ(t.strides()[3], 3);
  EXPECT_FALSE(executorch::runtime::tensor_is_contiguous(t));
  EXPECT_TRUE(executorch::runtime::tensor_is_channels_last_dim_order(t));

  // Strides only: the dim order is recovered from them.
  StridesType cl_strides[] = {12, 1, 6, 3};
  TensorImpl impl2(ScalarType::Float, 4, sizes, nullptr, nullptr, cl_strides);
  EXPECT_EQ(impl2.dim_order()[1], 2);
  EXPECT_EQ(impl2.dim_order()[3], 1);

  DimOrderType out[4];
  EXPECT_EQ(executorch::runtime::get_dim_order(t, out, 4), Error::Ok);
  EXPECT_EQ(out[3], 1);
  EXPECT_EQ(executorch::runtime::get_dim_order(t, out, 3), Error::InvalidArgument);
}

TEST(TensorImplTest, NumelHelpers) {
  SizesType sizes[] = {2, 3, 4};
  EXPECT_EQ(executorch::aten::compute_numel(sizes, 3), 24);
  EXPECT_EQ(executorch::aten::safe_numel(sizes, 3).get(), 24);
  SizesType neg[] = {2, -1};
  EXPECT_EQ(executorch::aten::safe_numel(neg, 2).error(), Error::InvalidArgument);
  SizesType huge[] = {0x7fffffff, 0x7fffffff, 0x7fffffff};
  EXPECT_EQ(executorch::aten::safe_numel(huge, 3).error(), Error::InvalidArgument);
  // Bad sizes in a constructor give an empty tensor, not an abort.
  TensorImpl impl(ScalarType::Float, 2, neg);
  EXPECT_EQ(impl.numel(), 0);
}

TEST(TensorResizeTest, StaticOnlyAcceptsSameShape) {
  SizesType sizes[] = {2, 3};
  DimOrderType order[] = {0, 1};
  StridesType strides[] = {3, 1};
  TensorImpl impl(ScalarType::Float, 2, sizes, nullptr, order, strides);
  Tensor t(&impl);
  const SizesType same[] = {2, 3};
  const SizesType other[] = {3, 2};
  const SizesType rank3[] = {1, 2, 3};
  EXPECT_EQ(resize_tensor(t, {same, 2}), Error::Ok);
  EXPECT_EQ(resize_tensor(t, {other, 2}), Error::NotSupported);
  EXPECT_EQ(resize_tensor(t, {rank3, 3}), Error::NotSupported);
  EXPECT_EQ(t.size(0), 2);
  EXPECT_EQ(t.size(1), 3);
}

TEST(TensorResizeTest, DynamicBoundWithinCapacity) {
  SizesType sizes[] = {4, 4};
  DimOrderType order[] = {0, 1};
  StridesType strides[] = {4, 1};
  TensorImpl impl(ScalarType::Float, 2, sizes, nullptr, order, strides,
                  TensorShapeDynamism::DYNAMIC_BOUND);
  Tensor t(&impl);

  // Per-dim bounds are not checked, only the total.
  const SizesType wider[] = {2, 8};
  ASSERT_EQ(resize_tensor(t, {wider, 2}), Error::Ok);
  EXPECT_EQ(t.numel(), 16);
  EXPECT_EQ(t.size(1), 8);
  EXPECT_EQ(t.strides()[0], 8);
  EXPECT_EQ(t.nbytes(), 64u);

  const SizesType smaller[] = {1, 3};
  ASSERT_EQ(resize_tensor(t, {smaller, 2}), Error::Ok);
  EXPECT_EQ(t.numel(), 3);
  EXPECT_EQ(t.strides()[0], 3);

  const SizesType too_big[] = {5, 4};
  EXPECT_EQ(resize_tensor(t, {too_big, 2}), Error::NotSupported);
  EXPECT_EQ(t.numel(), 3);  // unchanged

  const SizesType negative[] = {-1, 4};
  EXPECT_EQ(resize_tensor(t, {negative, 2}), Error::InvalidArgument);

  const SizesType rank1[] = {4};
  EXPECT_EQ(resize_tensor(t, {rank1, 1}), Error::NotSupported);

  // int64 sizes go through the converting overload.
  const int64_t as_long[] = {4, 4};
  EXPECT_EQ(resize_tensor(t, executorch::aten::ArrayRef<int64_t>(as_long, 2)), Error::Ok);
  const int64_t overflow[] = {int64_t(1) << 40, 1};
  EXPECT_EQ(resize_tensor(t, executorch::aten::ArrayRef<int64_t>(overflow, 2)),
            Error::InvalidArgument);
}

TEST(TensorResizeTest, DynamicUnboundIsHeldToCapacity) {
  SizesType sizes[] = {2, 2};
  TensorImpl impl(ScalarType::Float, 2, sizes, nullptr, nullptr, nullptr,
                  TensorShapeDynamism::DYNAMIC_UNBOUND);
  Tensor t(&impl);
  const SizesType ok[] = {1, 4};
  const SizesType big[] = {3, 3};
  EXPECT_EQ(resize_tensor(t, {ok, 2}), Error::Ok);
  EXPECT_EQ(t.strides()[0], 4);
  EXPECT_EQ(resize_tensor(t, {big, 2}), Error::NotSupported);
}

TEST(TensorResizeTest, RankZeroAlwaysSucceeds) {
  float v = 1.0f;
  TensorImpl impl(ScalarType::Float, 0, nullptr, &v);
  Tensor t(&impl);
  EXPECT_EQ(resize_tensor(t, {}), Error::Ok);
}

TEST(TensorUtilTest, SameShapeAndDtype) {
  SizesType a_sizes[] = {2, 3};
  SizesType b_sizes[] = {2, 3};
  SizesType c_sizes[] = {3, 2};
  TensorImpl a(ScalarType::Float, 2, a_sizes);
  TensorImpl b(ScalarType::Float, 2, b_sizes);
  TensorImpl c(ScalarType::Int, 2, c_sizes);
  EXPECT_TRUE(executorch::runtime::tensors_have_same_shape(Tensor(&a), Tensor(&b)));
  EXPECT_FALSE(executorch::runtime::tensors_have_same_shape(Tensor(&a), Tensor(&c)));
  EXPECT_TRUE(executorch::runtime::tensors_have_same_dtype(Tensor(&a), Tensor(&b)));
  EXPECT_FALSE(executorch::runtime::tensors_have_same_dtype(Tensor(&a), Tensor(&c)));
  EXPECT_EQ(executorch::runtime::getLeadingDims(Tensor(&a), 1), 2u);
  EXPECT_EQ(executorch::runtime::getTrailingDims(Tensor(&a), 0), 3u);
  ET_CHECK_SAME_SHAPE_AND_DTYPE2(Tensor(&a), Tensor(&b));
}
