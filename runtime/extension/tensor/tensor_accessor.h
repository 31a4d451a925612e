/*
 * TensorAccessor<T, N>: typed, rank-checked element indexing over a tensor's
 * data using its strides, e.g. `acc[i][j]` for a 2-D tensor. Create one with
 * make_tensor_accessor<T, N>(tensor); the tensor must outlive it.
 */
#pragma once

#include <sys/types.h>

#include <type_traits>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {
namespace internal {

/// Shared state and the size/stride queries of every TensorAccessor rank.
template <typename T, ssize_t N>
class TensorAccessorBase {
 public:
  /// Size of dimension `i` (0 <= i < N).
  executorch::aten::SizesType size(ssize_t i) const {
    ET_CHECK_MSG(
        i >= 0 && i < dim_,
        "TensorAccessor: dimension %zd outside [0, %zd)",
        i,
        dim_);
    return sizes_[i];
  }

  /// Stride, in elements, of dimension `i` (0 <= i < N).
  executorch::aten::StridesType stride(ssize_t i) const {
    ET_CHECK_MSG(
        i >= 0 && i < dim_,
        "TensorAccessor: dimension %zd outside [0, %zd)",
        i,
        dim_);
    return strides_[i];
  }

 protected:
  TensorAccessorBase(
      T* data,
      const executorch::aten::SizesType* sizes,
      const executorch::aten::StridesType* strides,
      ssize_t dim)
      : data_(data), sizes_(sizes), strides_(strides), dim_(dim) {}

  T* data_;
  const executorch::aten::SizesType* sizes_;
  const executorch::aten::StridesType* strides_;
  ssize_t dim_;
};

}  // namespace internal

template <typename T, ssize_t N>
class TensorAccessor;

template <typename T, ssize_t N>
executorch::runtime::Result<TensorAccessor<T, N>> make_tensor_accessor(
    const executorch::aten::Tensor& tensor);

/// Rank-N accessor: operator[] selects along the outermost dimension and
/// yields a rank N-1 accessor.
template <typename T, ssize_t N>
class TensorAccessor : public internal::TensorAccessorBase<T, N> {
 public:
  TensorAccessor<T, N - 1> operator[](ssize_t i) {
    return TensorAccessor<T, N - 1>(
        this->data_ + this->strides_[0] * i,
        this->sizes_ + 1,
        this->strides_ + 1,
        N - 1);
  }

  const TensorAccessor<T, N - 1> operator[](ssize_t i) const {
    return TensorAccessor<T, N - 1>(
        this->data_ + this->strides_[0] * i,
        this->sizes_ + 1,
        this->strides_ + 1,
        N - 1);
  }

 private:
  TensorAccessor(
      T* data,
      const executorch::aten::SizesType* sizes,
      const executorch::aten::StridesType* strides,
      ssize_t dim)
      : internal::TensorAccessorBase<T, N>(data, sizes, strides, dim) {}

  template <typename T2, ssize_t N2>
  friend class TensorAccessor;

  template <typename T2, ssize_t N2>
  friend executorch::runtime::Result<TensorAccessor<T2, N2>>
  make_tensor_accessor(const executorch::aten::Tensor& tensor);
};

/// Rank-1 accessor: operator[] yields the element itself.
template <typename T>
class TensorAccessor<T, 1> : public internal::TensorAccessorBase<T, 1> {
 public:
  T& operator[](ssize_t i) {
    return this->data_[this->strides_[0] * i];
  }

  const T& operator[](ssize_t i) const {
    return this->data_[this->strides_[0] * i];
  }

 private:
  TensorAccessor(
      T* data,
      const executorch::aten::SizesType* sizes,
      const executorch::aten::StridesType* strides,
      ssize_t dim)
      : internal::TensorAccessorBase<T, 1>(data, sizes, strides, dim) {}

  template <typename T2, ssize_t N2>
  friend class TensorAccessor;

  template <typename T2, ssize_t N2>
  friend executorch::runtime::Result<TensorAccessor<T2, N2>>
  make_tensor_accessor(const executorch::aten::Tensor& tensor);
};

/**
 * Makes an accessor for `tensor`.
 *
 * @retval Error::InvalidArgument the rank is not N, or sizeof(T) is not the
 *     tensor's element size.
 * @retval Error::NotSupported the tensor's dim order is not the contiguous one.
 */
template <typename T, ssize_t N>
executorch::runtime::Result<TensorAccessor<T, N>> make_tensor_accessor(
    const executorch::aten::Tensor& tensor) {
  static_assert(
      N > 0, "TensorAccessor needs rank >= 1; use data_ptr for 0-dim");
  if (tensor.dim() != N) {
    ET_LOG(
        Error,
        "make_tensor_accessor: rank %zd requested, tensor has rank %zd",
        static_cast<ssize_t>(N),
        static_cast<ssize_t>(tensor.dim()));
    return executorch::runtime::Error::InvalidArgument;
  }
  if (static_cast<ssize_t>(sizeof(T)) != tensor.element_size()) {
    ET_LOG(
        Error,
        "make_tensor_accessor: element size %zu requested, tensor has %zd",
        sizeof(T),
        static_cast<ssize_t>(tensor.element_size()));
    return executorch::runtime::Error::InvalidArgument;
  }
  const auto dim_order = tensor.dim_order();
  for (size_t i = 0; i < dim_order.size(); ++i) {
    if (dim_order[i] != i) {
      ET_LOG(Error, "make_tensor_accessor: non-contiguous dim order");
      return executorch::runtime::Error::NotSupported;
    }
  }
  T* data = nullptr;
  if constexpr (std::is_const_v<T>) {
    data = tensor.template const_data_ptr<std::remove_const_t<T>>();
  } else {
    data = tensor.template mutable_data_ptr<T>();
  }
  return TensorAccessor<T, N>(
      data, tensor.sizes().data(), tensor.strides().data(), N);
}

}  // namespace extension
}  // namespace executorch
