/*
 * TensorPtr construction, cloning and resizing.
 */
#include <executorch/extension/tensor/tensor_ptr.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include <executorch/extension/tensor/detail/dtype_dispatch.h>

#if __has_include(<executorch/runtime/core/device_allocator.h>)
#include <executorch/runtime/core/device_allocator.h>
#define ET_TENSOR_PTR_HAVE_DEVICE_ALLOCATOR 1
#else
#define ET_TENSOR_PTR_HAVE_DEVICE_ALLOCATOR 0
#endif

namespace executorch {
namespace extension {

using executorch::aten::DimOrderType;
using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::aten::StridesType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::aten::TensorShapeDynamism;

namespace {

/*
 * Everything a TensorPtr owns, in one allocation: the metadata arrays, the
 * TensorImpl pointing into them, the Tensor handle, and the data deleter.
 * It never moves once built, so the impl's pointers stay valid.
 */
class Storage final {
 public:
  Storage(
      std::vector<SizesType>&& sizes,
      std::vector<DimOrderType>&& dim_order,
      std::vector<StridesType>&& strides,
      void* data,
      ScalarType type,
      TensorShapeDynamism dynamism,
      executorch::aten::Device device,
      std::function<void(void*)>&& deleter)
      : sizes_(std::move(sizes)),
        dim_order_(std::move(dim_order)),
        strides_(std::move(strides)),
        impl_(
            type,
            static_cast<ssize_t>(sizes_.size()),
            sizes_.data(),
            data,
            dim_order_.data(),
            strides_.data(),
            dynamism,
            device.type(),
            device.index()),
        tensor_(&impl_),
        deleter_(std::move(deleter)) {}

  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  ~Storage() {
    if (deleter_) {
      deleter_(impl_.mutable_data());
    }
  }

  Tensor* tensor() {
    return &tensor_;
  }

 private:
  std::vector<SizesType> sizes_;
  std::vector<DimOrderType> dim_order_;
  std::vector<StridesType> strides_;
  TensorImpl impl_;
  Tensor tensor_;
  std::function<void(void*)> deleter_;
};

// Checks that `order` is a permutation of [0, order.size()).
bool is_permutation(const std::vector<DimOrderType>& order) {
  std::vector<bool> seen(order.size(), false);
  for (auto d : order) {
    if (d >= order.size() || seen[d]) {
      return false;
    }
    seen[d] = true;
  }
  return true;
}

size_t checked_nbytes(const std::vector<SizesType>& sizes, ScalarType type) {
  auto numel = executorch::aten::safe_numel(sizes.data(), sizes.size());
  ET_CHECK_MSG(numel.ok(), "tensor sizes are negative or overflow");
  size_t nbytes = 0;
  ET_CHECK_MSG(
      !__builtin_mul_overflow(
          static_cast<size_t>(numel.get()),
          executorch::runtime::elementSize(type),
          &nbytes),
      "tensor byte size overflows");
  return nbytes;
}

}  // namespace

TensorPtr make_tensor_ptr(
    std::vector<SizesType> sizes,
    void* data,
    std::vector<DimOrderType> dim_order,
    std::vector<StridesType> strides,
    const ScalarType type,
    const TensorShapeDynamism dynamism,
    std::function<void(void*)> deleter,
    executorch::aten::Device device) {
  const size_t rank = sizes.size();
  ET_CHECK_MSG(
      dim_order.empty() || dim_order.size() == rank,
      "make_tensor_ptr: dim_order has %zu entries for rank %zu",
      dim_order.size(),
      rank);
  ET_CHECK_MSG(
      strides.empty() || strides.size() == rank,
      "make_tensor_ptr: strides has %zu entries for rank %zu",
      strides.size(),
      rank);
  for (size_t i = 0; i < rank; ++i) {
    ET_CHECK_MSG(sizes[i] >= 0, "make_tensor_ptr: negative size at dim %zu", i);
  }

  if (dim_order.empty()) {
    dim_order.resize(rank);
    std::iota(dim_order.begin(), dim_order.end(), DimOrderType(0));
    if (!strides.empty()) {
      // Outermost first: larger strides come earlier; ties keep index order.
      std::stable_sort(
          dim_order.begin(),
          dim_order.end(),
          [&](DimOrderType a, DimOrderType b) {
            return strides[a] > strides[b];
          });
    }
  }
  ET_CHECK_MSG(
      is_permutation(dim_order),
      "make_tensor_ptr: dim_order is not a permutation of the dimensions");

  // Strides implied by the dim order: innermost dimension has stride 1.
  std::vector<StridesType> derived(rank);
  StridesType running = 1;
  for (size_t k = rank; k-- > 0;) {
    const auto d = dim_order[k];
    derived[d] = running;
    StridesType next = 0;
    ET_CHECK_MSG(
        !__builtin_mul_overflow(
            running, std::max<SizesType>(sizes[d], 1), &next),
        "make_tensor_ptr: strides overflow");
    running = next;
  }
  for (size_t i = 0; i < strides.size(); ++i) {
    ET_CHECK_MSG(
        strides[i] == derived[i] || sizes[i] == 1,
        "make_tensor_ptr: stride %d at dim %zu does not match the expected %d",
        static_cast<int>(strides[i]),
        i,
        static_cast<int>(derived[i]));
  }

  auto storage = std::make_shared<Storage>(
      std::move(sizes),
      std::move(dim_order),
      std::move(derived),
      data,
      type,
      rank == 0 ? TensorShapeDynamism::STATIC : dynamism,
      device,
      std::move(deleter));
  Tensor* tensor = storage->tensor();
  return TensorPtr(std::move(storage), tensor);
}

TensorPtr make_tensor_ptr(
    std::vector<SizesType> sizes,
    std::vector<uint8_t> data,
    std::vector<DimOrderType> dim_order,
    std::vector<StridesType> strides,
    ScalarType type,
    TensorShapeDynamism dynamism) {
  const size_t nbytes = checked_nbytes(sizes, type);
  ET_CHECK_MSG(
      data.size() == nbytes,
      "make_tensor_ptr: %zu bytes given for a tensor of %zu bytes",
      data.size(),
      nbytes);
  auto owned = std::make_shared<std::vector<uint8_t>>(std::move(data));
  void* raw = owned->data();
  return make_tensor_ptr(
      std::move(sizes),
      raw,
      std::move(dim_order),
      std::move(strides),
      type,
      dynamism,
      [owned](void*) {});
}

TensorPtr clone_tensor_ptr(const Tensor& tensor, ScalarType type) {
  ET_CHECK_MSG(
      tensor.device_type() == executorch::aten::DeviceType::CPU,
      "clone_tensor_ptr: only CPU tensors can be cloned; see "
      "clone_tensor_ptr_to");
  std::vector<SizesType> sizes(tensor.sizes().begin(), tensor.sizes().end());
  std::vector<DimOrderType> dim_order(
      tensor.dim_order().begin(), tensor.dim_order().end());
  std::vector<StridesType> strides(
      tensor.strides().begin(), tensor.strides().end());
  const auto dynamism = tensor.shape_dynamism();
  const void* src = tensor.const_data_ptr();
  if (src == nullptr) {
    return make_tensor_ptr(
        std::move(sizes),
        nullptr,
        std::move(dim_order),
        std::move(strides),
        type,
        dynamism);
  }
  const ScalarType src_type = tensor.scalar_type();
  if (src_type == type) {
    const auto* bytes = static_cast<const uint8_t*>(src);
    return make_tensor_ptr(
        std::move(sizes),
        std::vector<uint8_t>(bytes, bytes + tensor.nbytes()),
        std::move(dim_order),
        std::move(strides),
        type,
        dynamism);
  }
  ET_CHECK_MSG(
      executorch::runtime::canCast(src_type, type),
      "clone_tensor_ptr: cannot cast %s to %s",
      executorch::runtime::toString(src_type),
      executorch::runtime::toString(type));
  const size_t numel = static_cast<size_t>(tensor.numel());
  std::vector<uint8_t> out(checked_nbytes(sizes, type));
  bool handled = false;
  detail::visit_dtype(src_type, [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    handled = detail::visit_dtype(type, [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      const From* in = static_cast<const From*>(src);
      To* dst = reinterpret_cast<To*>(out.data());
      for (size_t i = 0; i < numel; ++i) {
        dst[i] = detail::convert_element<To>(in[i]);
      }
    });
  });
  ET_CHECK_MSG(
      handled,
      "clone_tensor_ptr: conversion %s -> %s is not supported",
      executorch::runtime::toString(src_type),
      executorch::runtime::toString(type));
  return make_tensor_ptr(
      std::move(sizes),
      std::move(out),
      std::move(dim_order),
      std::move(strides),
      type,
      dynamism);
}

runtime::Error resize_tensor_ptr(
    TensorPtr& tensor, const std::vector<SizesType>& sizes) {
  if (!tensor) {
    ET_LOG(Error, "resize_tensor_ptr: null TensorPtr");
    return runtime::Error::InvalidArgument;
  }
  return runtime::internal::resize_tensor_impl(
      tensor->unsafeGetTensorImpl(),
      executorch::aten::ArrayRef<SizesType>(sizes.data(), sizes.size()));
}

TensorPtr clone_tensor_ptr_to(
    const TensorPtr& tensor, executorch::aten::Device target) {
  const executorch::aten::Device source = tensor->device();
  ET_CHECK_MSG(
      !(source.is_cpu() && target.is_cpu()),
      "clone_tensor_ptr_to: CPU to CPU; use clone_tensor_ptr");
  ET_CHECK_MSG(
      source.is_cpu() || target.is_cpu(),
      "clone_tensor_ptr_to: device to device copies are not supported");
#if ET_TENSOR_PTR_HAVE_DEVICE_ALLOCATOR
  const void* src = tensor->const_data_ptr();
  ET_CHECK_MSG(src != nullptr, "clone_tensor_ptr_to: tensor has no data");
  const size_t nbytes = tensor->nbytes();
  const executorch::aten::Device device = target.is_cpu() ? source : target;
  auto* allocator = runtime::get_device_allocator(device.type());
  ET_CHECK_MSG(
      allocator != nullptr,
      "clone_tensor_ptr_to: no allocator registered for device type %d",
      static_cast<int>(device.type()));
  std::vector<SizesType> sizes(tensor->sizes().begin(), tensor->sizes().end());
  std::vector<DimOrderType> dim_order(
      tensor->dim_order().begin(), tensor->dim_order().end());
  std::vector<StridesType> strides(
      tensor->strides().begin(), tensor->strides().end());
  if (target.is_cpu()) {
    std::vector<uint8_t> host(nbytes);
    const auto err = allocator->copy_device_to_host(
        host.data(), src, nbytes, source.index());
    ET_CHECK_MSG(
        err == runtime::Error::Ok,
        "clone_tensor_ptr_to: device to host copy failed (0x%x)",
        static_cast<unsigned>(err));
    return make_tensor_ptr(
        std::move(sizes),
        std::move(host),
        std::move(dim_order),
        std::move(strides),
        tensor->scalar_type(),
        tensor->shape_dynamism());
  }
  auto mem = allocator->allocate(nbytes, target.index());
  ET_CHECK_MSG(mem.ok(), "clone_tensor_ptr_to: device allocation failed");
  void* dst = mem.get();
  const auto err =
      allocator->copy_host_to_device(dst, src, nbytes, target.index());
  ET_CHECK_MSG(
      err == runtime::Error::Ok,
      "clone_tensor_ptr_to: host to device copy failed (0x%x)",
      static_cast<unsigned>(err));
  return make_tensor_ptr(
      std::move(sizes),
      dst,
      std::move(dim_order),
      std::move(strides),
      tensor->scalar_type(),
      tensor->shape_dynamism(),
      [allocator, target](void* p) {
        allocator->deallocate(p, target.index());
      },
      target);
#else
  ET_CHECK_MSG(
      false,
      "clone_tensor_ptr_to: this runtime has no device allocator support");
  return nullptr;
#endif
}

}  // namespace extension
}  // namespace executorch
