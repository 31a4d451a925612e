/*
 * TensorImpl: the metadata of a tensor (dtype, shape, dim order, strides,
 * shape dynamism, device) plus a pointer to its data.
 *
 * A TensorImpl never owns its data or its sizes/dim_order/strides arrays:
 * callers (the method loader, TensorPtr, user code) provide them and keep them
 * alive. As a convenience, when the caller passes no dim order and/or no
 * strides, small tensors (rank <= kTensorDimensionLimit) get the contiguous
 * dim order and the strides derived from it, stored inside the TensorImpl.
 */
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/util/tensor_dimension_limit.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/portable_type/scalar_type.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/tensor_shape_dynamism.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace runtime {
namespace etensor {
class TensorImpl;
}  // namespace etensor

namespace internal {
// Declared here so TensorImpl can befriend it; documented in tensor_util.h.
ET_NODISCARD ET_API Error
resize_tensor_impl(etensor::TensorImpl* impl, ArrayRef<int32_t> new_sizes);
}  // namespace internal

namespace etensor {

class ET_API TensorImpl {
 public:
  using SizesType = int32_t;
  using DimOrderType = uint8_t;
  using StridesType = int32_t;

  TensorImpl() = delete;

  /*
   * `sizes` must hold `dim` entries and, for dynamic tensors, be writable:
   * resizing stores the new shape there. The element count at construction
   * is the capacity a DYNAMIC_BOUND tensor can never exceed.
   */
  TensorImpl(
      ScalarType type,
      ssize_t dim,
      SizesType* sizes,
      void* data = nullptr,
      DimOrderType* dim_order = nullptr,
      StridesType* strides = nullptr,
      TensorShapeDynamism dynamism = TensorShapeDynamism::STATIC,
      DeviceType device_type = DeviceType::CPU,
      DeviceIndex device_index = 0);

  // Copies keep pointing at the caller's arrays, or at their own inline ones.
  TensorImpl(const TensorImpl& other);
  TensorImpl& operator=(const TensorImpl& other);

  /* Bytes of data: numel() * element_size(). */
  size_t nbytes() const;

  /* Bytes per element; 0 for an invalid dtype. */
  ssize_t element_size() const;

  ssize_t dim() const {
    return dim_;
  }
  ssize_t numel() const {
    return numel_;
  }
  ssize_t size(ssize_t dim) const {
    ET_CHECK_MSG(
        dim >= 0 && dim < dim_,
        "Dimension out of range (expected to be in range of [0, %zd], but got "
        "%zd",
        dim_ - 1,
        dim);
    return sizes_[dim];
  }

  ScalarType scalar_type() const {
    return type_;
  }
  ScalarType dtype() const {
    return type_;
  }

  const ArrayRef<SizesType> sizes() const {
    return ArrayRef<SizesType>{sizes_, static_cast<size_t>(dim_)};
  }
  const ArrayRef<DimOrderType> dim_order() const {
    return ArrayRef<DimOrderType>{dim_order_, static_cast<size_t>(dim_)};
  }
  const ArrayRef<StridesType> strides() const {
    return ArrayRef<StridesType>{strides_, static_cast<size_t>(dim_)};
  }

  TensorShapeDynamism shape_dynamism() const {
    return shape_dynamism_;
  }

  Device device() const {
    return Device(device_type_, device_index_);
  }
  DeviceType device_type() const {
    return device_type_;
  }
  DeviceIndex device_index() const {
    return device_index_;
  }

  template <typename T>
  inline const T* data() const {
    return static_cast<const T*>(data_);
  }
  inline const void* data() const {
    return data_;
  }

  template <typename T>
  inline T* mutable_data() const {
    return static_cast<T*>(data_);
  }
  inline void* mutable_data() const {
    return data_;
  }

  /* Points the tensor at other storage; no ownership is taken. */
  void set_data(void* ptr) {
    data_ = ptr;
  }

  /*
   * Deprecated spelling of resize: ignores errors. Prefer
   * executorch::runtime::resize_tensor(), which reports them.
   */
  ET_DEPRECATED void set_sizes_contiguous(ArrayRef<SizesType> new_sizes) {
    (void)internal_resize_contiguous(new_sizes);
  }

 private:
  friend Error(::executorch::runtime::internal::resize_tensor_impl)(
      TensorImpl* impl, ArrayRef<SizesType> new_sizes);

  /*
   * The resize rules: same rank; STATIC only to the same sizes; DYNAMIC_*
   * only while numel stays within the capacity. Strides are recomputed from
   * the dim order. Failures leave the tensor unchanged.
   */
  ET_NODISCARD Error internal_resize_contiguous(ArrayRef<SizesType> new_sizes);

  // After a copy: re-aim pointers that referred to the source's inline arrays.
  void repoint_inline_storage() {
    if (owns_dim_order_) {
      dim_order_ = inline_dim_order_;
    }
    if (owns_strides_) {
      strides_ = inline_strides_;
    }
  }

  SizesType* sizes_;
  DimOrderType* dim_order_;
  StridesType* strides_;
  void* data_;
  ssize_t dim_;
  ssize_t numel_;
  // The element count this tensor may hold at most (its size at creation).
  size_t numel_bound_;
  ScalarType type_;
  TensorShapeDynamism shape_dynamism_;
  DeviceType device_type_;
  DeviceIndex device_index_;
  // Whether dim_order_/strides_ point into the inline arrays below.
  bool owns_dim_order_ = false;
  bool owns_strides_ = false;
  DimOrderType inline_dim_order_[kTensorDimensionLimit];
  StridesType inline_strides_[kTensorDimensionLimit];
};

/*
 * Element count of a shape, without checks. Returns 0 for a negative size
 * and saturates on overflow rather than wrapping; use safe_numel to detect
 * these cases.
 */
ET_API ssize_t compute_numel(const TensorImpl::SizesType* sizes, ssize_t dim);

/*
 * Element count of a shape. InvalidArgument if a size is negative, `dim` is
 * negative, `sizes` is null with dim > 0, or the product overflows ssize_t.
 */
ET_API Result<ssize_t> safe_numel(
    const TensorImpl::SizesType* sizes, ssize_t dim);

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::compute_numel;
using ::executorch::runtime::etensor::safe_numel;
using ::executorch::runtime::etensor::TensorImpl;
}  // namespace executor
}  // namespace torch
