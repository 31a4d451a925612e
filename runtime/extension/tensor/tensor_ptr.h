/*
 * TensorPtr: a reference-counted tensor that owns its metadata (sizes, dim
 * order, strides) and, optionally, its data.
 *
 * A TensorPtr is a std::shared_ptr<Tensor>. The control block keeps the
 * TensorImpl together with the metadata arrays it points into, plus the
 * deleter (or owned buffer) for the data. Copying a TensorPtr shares the same
 * tensor; clone_tensor_ptr() makes an independent deep copy.
 *
 * The functions here report misuse (mismatched ranks, wrong element counts,
 * impossible casts) with a fatal check, the same contract as upstream: they
 * return a TensorPtr and have no error channel.
 */
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace extension {

/// A shared, self-describing tensor handle.
using TensorPtr = std::shared_ptr<executorch::aten::Tensor>;

/**
 * Wraps `data` (not copied) in a TensorPtr. The tensor keeps its own copies of
 * `sizes`, `dim_order` and `strides`.
 *
 * An empty `dim_order` is derived from `strides` (outermost = largest stride)
 * or, when `strides` is empty too, is the contiguous order. Given strides must
 * agree with the ones implied by the dim order (a dimension of size 1 may
 * carry any stride). `deleter`, if set, receives `data` when the last
 * reference goes away. A 0-dim tensor is always STATIC.
 */
ET_API TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes,
    void* data,
    std::vector<executorch::aten::DimOrderType> dim_order,
    std::vector<executorch::aten::StridesType> strides,
    const executorch::aten::ScalarType type =
        executorch::aten::ScalarType::Float,
    const executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND,
    std::function<void(void*)> deleter = nullptr,
    executorch::aten::Device device =
        executorch::aten::Device(executorch::aten::DeviceType::CPU));

/// Contiguous form of the above.
inline TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes,
    void* data,
    const executorch::aten::ScalarType type =
        executorch::aten::ScalarType::Float,
    const executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND,
    std::function<void(void*)> deleter = nullptr,
    executorch::aten::Device device =
        executorch::aten::Device(executorch::aten::DeviceType::CPU)) {
  return make_tensor_ptr(
      std::move(sizes),
      data,
      std::vector<executorch::aten::DimOrderType>{},
      std::vector<executorch::aten::StridesType>{},
      type,
      dynamism,
      std::move(deleter),
      device);
}

/**
 * Makes a tensor that owns the raw bytes in `data`, which must hold exactly
 * numel(sizes) * elementSize(type) bytes.
 */
ET_API TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes,
    std::vector<uint8_t> data,
    std::vector<executorch::aten::DimOrderType> dim_order,
    std::vector<executorch::aten::StridesType> strides,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

/// Contiguous form of the above.
inline TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes,
    std::vector<uint8_t> data,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr(
      std::move(sizes),
      std::move(data),
      std::vector<executorch::aten::DimOrderType>{},
      std::vector<executorch::aten::StridesType>{},
      type,
      dynamism);
}

/**
 * Deep-copies `tensor` (data and layout), converting the elements to `type`
 * when it differs from the source dtype.
 */
ET_API TensorPtr clone_tensor_ptr(
    const executorch::aten::Tensor& tensor, executorch::aten::ScalarType type);

inline TensorPtr clone_tensor_ptr(const executorch::aten::Tensor& tensor) {
  return clone_tensor_ptr(tensor, tensor.scalar_type());
}

inline TensorPtr clone_tensor_ptr(
    const TensorPtr& tensor, executorch::aten::ScalarType type) {
  return clone_tensor_ptr(*tensor, type);
}

inline TensorPtr clone_tensor_ptr(const TensorPtr& tensor) {
  return clone_tensor_ptr(*tensor, tensor->scalar_type());
}

/**
 * Makes a tensor that owns `data`, an element vector of C++ type T. When
 * `type` differs from T's dtype the elements are converted (the conversion
 * must be one canCast() allows).
 */
template <
    typename T = float,
    executorch::aten::ScalarType deduced_type =
        ::executorch::runtime::CppTypeToScalarType<T>::value>
inline TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes,
    std::vector<T> data,
    std::vector<executorch::aten::DimOrderType> dim_order = {},
    std::vector<executorch::aten::StridesType> strides = {},
    executorch::aten::ScalarType type = deduced_type,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  auto numel = executorch::aten::safe_numel(sizes.data(), sizes.size());
  ET_CHECK_MSG(numel.ok(), "make_tensor_ptr: invalid sizes");
  ET_CHECK_MSG(
      data.size() == static_cast<size_t>(numel.get()),
      "make_tensor_ptr: %zu elements given for a tensor of %zd",
      data.size(),
      static_cast<ssize_t>(numel.get()));
  if (type != deduced_type) {
    ET_CHECK_MSG(
        ::executorch::runtime::canCast(deduced_type, type),
        "make_tensor_ptr: cannot cast %s to %s",
        ::executorch::runtime::toString(deduced_type),
        ::executorch::runtime::toString(type));
  }
  auto owned = std::make_shared<std::vector<T>>(std::move(data));
  void* raw = owned->data();
  auto tensor = make_tensor_ptr(
      std::move(sizes),
      raw,
      std::move(dim_order),
      std::move(strides),
      deduced_type,
      dynamism,
      [owned](void*) {});
  if (type == deduced_type) {
    return tensor;
  }
  return clone_tensor_ptr(*tensor, type);
}

/// Makes a 1-D tensor that owns `data`.
template <
    typename T = float,
    executorch::aten::ScalarType deduced_type =
        ::executorch::runtime::CppTypeToScalarType<T>::value>
inline TensorPtr make_tensor_ptr(
    std::vector<T> data,
    executorch::aten::ScalarType type = deduced_type,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  std::vector<executorch::aten::SizesType> sizes{
      static_cast<executorch::aten::SizesType>(data.size())};
  return make_tensor_ptr<T, deduced_type>(
      std::move(sizes), std::move(data), {0}, {1}, type, dynamism);
}

/// Makes a tensor of the given shape from a braced list of values.
template <
    typename T = float,
    executorch::aten::ScalarType deduced_type =
        ::executorch::runtime::CppTypeToScalarType<T>::value>
inline TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes,
    std::initializer_list<T> list,
    std::vector<executorch::aten::DimOrderType> dim_order = {},
    std::vector<executorch::aten::StridesType> strides = {},
    executorch::aten::ScalarType type = deduced_type,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr<T, deduced_type>(
      std::move(sizes),
      std::vector<T>(list),
      std::move(dim_order),
      std::move(strides),
      type,
      dynamism);
}

/// Makes a 1-D tensor from a braced list of values.
template <
    typename T = float,
    executorch::aten::ScalarType deduced_type =
        ::executorch::runtime::CppTypeToScalarType<T>::value>
inline TensorPtr make_tensor_ptr(
    std::initializer_list<T> list,
    executorch::aten::ScalarType type = deduced_type,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  std::vector<executorch::aten::SizesType> sizes{
      static_cast<executorch::aten::SizesType>(list.size())};
  return make_tensor_ptr<T, deduced_type>(
      std::move(sizes), std::vector<T>(list), {0}, {1}, type, dynamism);
}

/// Makes a 0-dim tensor holding one value.
template <typename T>
inline TensorPtr make_tensor_ptr(T value) {
  return make_tensor_ptr<T>(
      std::vector<executorch::aten::SizesType>{}, std::vector<T>{value});
}

/**
 * Makes a view of `tensor`'s data with a new shape and layout; it shares
 * (does not own) the data. Empty `sizes` keeps the source shape; an empty
 * layout keeps the source layout when the rank (dim order) or the shape
 * (strides) is unchanged. The view may not hold more elements than `tensor`.
 */
inline TensorPtr make_tensor_ptr(
    const executorch::aten::Tensor& tensor,
    std::vector<executorch::aten::SizesType> sizes = {},
    std::vector<executorch::aten::DimOrderType> dim_order = {},
    std::vector<executorch::aten::StridesType> strides = {},
    std::function<void(void*)> deleter = nullptr) {
  const auto src_sizes = tensor.sizes();
  if (sizes.empty()) {
    sizes.assign(src_sizes.begin(), src_sizes.end());
  }
  const bool same_rank = sizes.size() == src_sizes.size();
  bool same_shape = same_rank;
  for (size_t i = 0; same_shape && i < sizes.size(); ++i) {
    same_shape = sizes[i] == src_sizes[i];
  }
  auto numel = executorch::aten::safe_numel(sizes.data(), sizes.size());
  ET_CHECK_MSG(numel.ok(), "make_tensor_ptr: invalid view sizes");
  ET_CHECK_MSG(
      numel.get() <= tensor.numel(),
      "make_tensor_ptr: a view of %zd elements over a tensor of %zd",
      static_cast<ssize_t>(numel.get()),
      static_cast<ssize_t>(tensor.numel()));
  if (dim_order.empty() && strides.empty()) {
    if (same_rank) {
      dim_order.assign(tensor.dim_order().begin(), tensor.dim_order().end());
    }
    if (same_shape) {
      strides.assign(tensor.strides().begin(), tensor.strides().end());
    }
  }
  return make_tensor_ptr(
      std::move(sizes),
      tensor.mutable_data_ptr(),
      std::move(dim_order),
      std::move(strides),
      tensor.scalar_type(),
      tensor.shape_dynamism(),
      std::move(deleter),
      executorch::aten::Device(tensor.device_type(), tensor.device_index()));
}

/// Makes a view of another TensorPtr; the view keeps the source alive.
inline TensorPtr make_tensor_ptr(
    const TensorPtr& tensor,
    std::vector<executorch::aten::SizesType> sizes = {},
    std::vector<executorch::aten::DimOrderType> dim_order = {},
    std::vector<executorch::aten::StridesType> strides = {}) {
  return make_tensor_ptr(
      *tensor,
      std::move(sizes),
      std::move(dim_order),
      std::move(strides),
      [keep_alive = tensor](void*) {});
}

/**
 * Resizes `tensor` in place within the limits of its shape dynamism.
 *
 * @retval Error::NotSupported the tensor is STATIC and the shape differs.
 * @retval Error::InvalidArgument wrong rank, or too large for a
 *     DYNAMIC_BOUND tensor.
 */
ET_NODISCARD ET_API runtime::Error resize_tensor_ptr(
    TensorPtr& tensor, const std::vector<executorch::aten::SizesType>& sizes);

/**
 * Copies a tensor between the CPU and another device through the registered
 * device allocator. CPU-to-CPU copies are refused (use clone_tensor_ptr).
 */
ET_API TensorPtr
clone_tensor_ptr_to(const TensorPtr& tensor, executorch::aten::Device target);

}  // namespace extension
}  // namespace executorch
