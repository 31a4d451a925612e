#include <executorch/runtime/core/portable_type/tensor_impl.h>

#include <cinttypes>
#include <limits>

#include <executorch/runtime/core/exec_aten/util/dim_order_util.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>

namespace executorch {
namespace runtime {
namespace etensor {

ssize_t compute_numel(const TensorImpl::SizesType* sizes, ssize_t dim) {
  ssize_t numel = 1;
  for (ssize_t i = 0; i < dim; ++i) {
    if (sizes[i] < 0) {
      return 0;
    }
    ssize_t next = 0;
    if (__builtin_mul_overflow(numel, static_cast<ssize_t>(sizes[i]), &next)) {
      return std::numeric_limits<ssize_t>::max();
    }
    numel = next;
  }
  return numel;
}

Result<ssize_t> safe_numel(const TensorImpl::SizesType* sizes, ssize_t dim) {
  ET_CHECK_OR_RETURN_ERROR(dim >= 0, InvalidArgument, "Negative rank %zd", dim);
  ET_CHECK_OR_RETURN_ERROR(
      sizes != nullptr || dim == 0,
      InvalidArgument,
      "Null sizes for rank %zd",
      dim);
  ssize_t numel = 1;
  for (ssize_t i = 0; i < dim; ++i) {
    ET_CHECK_OR_RETURN_ERROR(
        sizes[i] >= 0,
        InvalidArgument,
        "Size %" PRId32 " at dim %zd is negative",
        sizes[i],
        i);
    ET_CHECK_OR_RETURN_ERROR(
        !__builtin_mul_overflow(numel, static_cast<ssize_t>(sizes[i]), &numel),
        InvalidArgument,
        "Element count overflows at dim %zd",
        i);
  }
  return numel;
}

TensorImpl::TensorImpl(
    ScalarType type,
    ssize_t dim,
    SizesType* sizes,
    void* data,
    DimOrderType* dim_order,
    StridesType* strides,
    TensorShapeDynamism dynamism,
    DeviceType device_type,
    DeviceIndex device_index)
    : sizes_(sizes),
      dim_order_(dim_order),
      strides_(strides),
      data_(data),
      dim_(dim < 0 ? 0 : dim),
      numel_(0),
      numel_bound_(0),
      type_(type),
      shape_dynamism_(dynamism),
      device_type_(device_type),
      device_index_(device_index) {
  // A constructor cannot return an error, and bad arguments here must not
  // take the process down: log and fall back to an empty tensor instead.
  if (dim < 0) {
    ET_LOG(Error, "TensorImpl: negative rank %zd, using 0", dim);
  }
  Result<ssize_t> numel = safe_numel(sizes_, dim_);
  if (numel.ok()) {
    numel_ = numel.get();
  } else {
    ET_LOG(Error, "TensorImpl: invalid sizes, treating as empty");
  }
  numel_bound_ = static_cast<size_t>(numel_);
  if (!isValid(type_)) {
    ET_LOG(Error, "TensorImpl: invalid dtype %d", static_cast<int>(type_));
  }

  const size_t rank = static_cast<size_t>(dim_);
  if (rank > kTensorDimensionLimit) {
    return;  // Too big for the inline arrays; the caller owns all metadata.
  }
  if (dim_order_ == nullptr) {
    owns_dim_order_ = true;
    dim_order_ = inline_dim_order_;
    bool derived = false;
    if (strides_ != nullptr) {
      // Caller described the layout with strides only: recover the order.
      derived = stride_to_dim_order(strides_, rank, dim_order_) == Error::Ok;
    }
    if (!derived) {
      for (size_t i = 0; i < rank; ++i) {
        dim_order_[i] = static_cast<DimOrderType>(i);
      }
    }
  }
  if (strides_ == nullptr && sizes_ != nullptr) {
    owns_strides_ = true;
    strides_ = inline_strides_;
    if (dim_order_to_stride(sizes_, dim_order_, rank, strides_) != Error::Ok) {
      // A caller-supplied order that is not a permutation: use the default
      // strides so no stride computation ever indexes out of bounds.
      for (size_t i = 0; i < rank; ++i) {
        inline_dim_order_[i] = static_cast<DimOrderType>(i);
      }
      dim_order_to_stride_nocheck(sizes_, inline_dim_order_, rank, strides_);
    }
  }
}

TensorImpl::TensorImpl(const TensorImpl& other)
    : sizes_(other.sizes_),
      dim_order_(other.dim_order_),
      strides_(other.strides_),
      data_(other.data_),
      dim_(other.dim_),
      numel_(other.numel_),
      numel_bound_(other.numel_bound_),
      type_(other.type_),
      shape_dynamism_(other.shape_dynamism_),
      device_type_(other.device_type_),
      device_index_(other.device_index_),
      owns_dim_order_(other.owns_dim_order_),
      owns_strides_(other.owns_strides_) {
  for (size_t i = 0; i < kTensorDimensionLimit; ++i) {
    inline_dim_order_[i] = other.inline_dim_order_[i];
    inline_strides_[i] = other.inline_strides_[i];
  }
  repoint_inline_storage();
}

TensorImpl& TensorImpl::operator=(const TensorImpl& other) {
  if (this != &other) {
    sizes_ = other.sizes_;
    dim_order_ = other.dim_order_;
    strides_ = other.strides_;
    data_ = other.data_;
    dim_ = other.dim_;
    numel_ = other.numel_;
    numel_bound_ = other.numel_bound_;
    type_ = other.type_;
    shape_dynamism_ = other.shape_dynamism_;
    device_type_ = other.device_type_;
    device_index_ = other.device_index_;
    owns_dim_order_ = other.owns_dim_order_;
    owns_strides_ = other.owns_strides_;
    for (size_t i = 0; i < kTensorDimensionLimit; ++i) {
      inline_dim_order_[i] = other.inline_dim_order_[i];
      inline_strides_[i] = other.inline_strides_[i];
    }
    repoint_inline_storage();
  }
  return *this;
}

size_t TensorImpl::nbytes() const {
  return static_cast<size_t>(numel_) * elementSize(type_);
}

ssize_t TensorImpl::element_size() const {
  return static_cast<ssize_t>(elementSize(type_));
}

Error TensorImpl::internal_resize_contiguous(ArrayRef<SizesType> new_sizes) {
  ET_CHECK_OR_RETURN_ERROR(
      new_sizes.size() == static_cast<size_t>(dim_),
      NotSupported,
      "Attempted to change the tensor rank from %zd to %zu",
      dim_,
      new_sizes.size());
  if (dim_ == 0) {
    return Error::Ok;  // A scalar has only one shape.
  }
  ET_CHECK_OR_RETURN_ERROR(
      new_sizes.data() != nullptr, InvalidArgument, "Null new sizes");

  switch (shape_dynamism_) {
    case TensorShapeDynamism::STATIC:
      for (ssize_t i = 0; i < dim_; ++i) {
        ET_CHECK_OR_RETURN_ERROR(
            sizes_[i] == new_sizes[static_cast<size_t>(i)],
            NotSupported,
            "Attempted to resize a static tensor: dim %zd from %" PRId32
            " to %" PRId32,
            i,
            sizes_[i],
            new_sizes[static_cast<size_t>(i)]);
      }
      return Error::Ok;
    case TensorShapeDynamism::DYNAMIC_BOUND:
    case TensorShapeDynamism::DYNAMIC_UNBOUND: {
      // Unbound tensors cannot grow their storage here either, so both kinds
      // are held to the capacity they were created with.
      Result<ssize_t> new_numel =
          safe_numel(new_sizes.data(), static_cast<ssize_t>(new_sizes.size()));
      if (!new_numel.ok()) {
        return new_numel.error();
      }
      ET_CHECK_OR_RETURN_ERROR(
          static_cast<size_t>(new_numel.get()) <= numel_bound_,
          NotSupported,
          "Attempted to resize a bounded tensor to %zd elements, capacity %zu",
          new_numel.get(),
          numel_bound_);
      ET_CHECK_OR_RETURN_ERROR(
          sizes_ != nullptr, InvalidState, "Tensor has no sizes storage");
      // Checked before anything changes, so a failure leaves the tensor as
      // it was; strides are only recomputed from a well-formed order.
      ET_CHECK_OR_RETURN_ERROR(
          strides_ == nullptr || dim_order_ == nullptr ||
              validate_dim_order(dim_order_, static_cast<size_t>(dim_)),
          Internal,
          "Tensor has an invalid dim order");
      for (size_t i = 0; i < new_sizes.size(); ++i) {
        sizes_[i] = new_sizes[i];
      }
      numel_ = new_numel.get();
      if (strides_ != nullptr && dim_order_ != nullptr) {
        dim_order_to_stride_nocheck(
            sizes_, dim_order_, static_cast<size_t>(dim_), strides_);
      }
      return Error::Ok;
    }
  }
  ET_LOG(Error, "Unknown shape dynamism %d", static_cast<int>(shape_dynamism_));
  return Error::Internal;
}

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch
