/*
 * Builders and factories for TensorPtr: for_blob()/from_blob() wrap existing
 * memory, and empty/full/zeros/ones/rand/randn/randint (plus their _like and
 * _strided forms) allocate owned, initialized tensors.
 */
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include <executorch/extension/tensor/tensor_ptr.h>

namespace executorch {
namespace extension {

class TensorPtrMaker;

TensorPtrMaker for_blob(
    void* data,
    std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type);

/**
 * Fluent builder for a TensorPtr over caller-owned memory. Obtain one from
 * for_blob(), chain the optional settings, and finish with make_tensor_ptr()
 * (or an implicit conversion to TensorPtr). Move-only.
 */
class TensorPtrMaker final {
 public:
  TensorPtrMaker(const TensorPtrMaker&) = delete;
  TensorPtrMaker& operator=(const TensorPtrMaker&) = delete;
  TensorPtrMaker(TensorPtrMaker&&) = default;
  TensorPtrMaker& operator=(TensorPtrMaker&&) = default;

  TensorPtrMaker&& type(executorch::aten::ScalarType type) {
    type_ = type;
    return std::move(*this);
  }

  TensorPtrMaker&& dim_order(
      std::vector<executorch::aten::DimOrderType> dim_order) {
    dim_order_ = std::move(dim_order);
    return std::move(*this);
  }

  TensorPtrMaker&& strides(std::vector<executorch::aten::StridesType> strides) {
    strides_ = std::move(strides);
    return std::move(*this);
  }

  TensorPtrMaker&& dynamism(executorch::aten::TensorShapeDynamism dynamism) {
    dynamism_ = dynamism;
    return std::move(*this);
  }

  TensorPtrMaker&& deleter(std::function<void(void*)>&& deleter) {
    deleter_ = std::move(deleter);
    return std::move(*this);
  }

  TensorPtrMaker&& device(executorch::aten::Device device) {
    device_ = device;
    return std::move(*this);
  }

  TensorPtr make_tensor_ptr() && {
    return ::executorch::extension::make_tensor_ptr(
        std::move(sizes_),
        data_,
        std::move(dim_order_),
        std::move(strides_),
        type_,
        dynamism_,
        std::move(deleter_),
        device_);
  }

  operator TensorPtr() && {
    return std::move(*this).make_tensor_ptr();
  }

 private:
  TensorPtrMaker(
      void* data,
      std::vector<executorch::aten::SizesType> sizes,
      executorch::aten::ScalarType type)
      : sizes_(std::move(sizes)), data_(data), type_(type) {}

  friend TensorPtrMaker for_blob(
      void* data,
      std::vector<executorch::aten::SizesType> sizes,
      executorch::aten::ScalarType type);

  std::vector<executorch::aten::SizesType> sizes_;
  std::vector<executorch::aten::StridesType> strides_;
  std::vector<executorch::aten::DimOrderType> dim_order_;
  std::function<void(void*)> deleter_ = nullptr;
  void* data_ = nullptr;
  executorch::aten::ScalarType type_ = executorch::aten::ScalarType::Float;
  executorch::aten::TensorShapeDynamism dynamism_ =
      executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND;
  executorch::aten::Device device_ =
      executorch::aten::Device(executorch::aten::DeviceType::CPU);
};

/// Starts building a TensorPtr over `data` (not copied, not owned).
inline TensorPtrMaker for_blob(
    void* data,
    std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float) {
  return TensorPtrMaker(data, std::move(sizes), type);
}

/// Wraps contiguous caller-owned memory.
inline TensorPtr from_blob(
    void* data,
    std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return for_blob(data, std::move(sizes), type)
      .dynamism(dynamism)
      .make_tensor_ptr();
}

/// Wraps strided caller-owned memory.
inline TensorPtr from_blob(
    void* data,
    std::vector<executorch::aten::SizesType> sizes,
    std::vector<executorch::aten::StridesType> strides,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return for_blob(data, std::move(sizes), type)
      .strides(std::move(strides))
      .dynamism(dynamism)
      .make_tensor_ptr();
}

/// Wraps contiguous memory and hands it to `deleter` when released.
inline TensorPtr from_blob(
    void* data,
    std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type,
    std::function<void(void*)>&& deleter,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return for_blob(data, std::move(sizes), type)
      .deleter(std::move(deleter))
      .dynamism(dynamism)
      .make_tensor_ptr();
}

/// Wraps strided memory and hands it to `deleter` when released.
inline TensorPtr from_blob(
    void* data,
    std::vector<executorch::aten::SizesType> sizes,
    std::vector<executorch::aten::StridesType> strides,
    executorch::aten::ScalarType type,
    std::function<void(void*)>&& deleter,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return for_blob(data, std::move(sizes), type)
      .strides(std::move(strides))
      .deleter(std::move(deleter))
      .dynamism(dynamism)
      .make_tensor_ptr();
}

/// An owned, zero-initialized tensor with the given layout.
ET_API TensorPtr empty_strided(
    std::vector<executorch::aten::SizesType> sizes,
    std::vector<executorch::aten::StridesType> strides,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

/// An owned tensor of `sizes`/`strides` with every element set to
/// `fill_value`, which must be representable in `type`.
ET_API TensorPtr full_strided(
    std::vector<executorch::aten::SizesType> sizes,
    std::vector<executorch::aten::StridesType> strides,
    executorch::aten::Scalar fill_value,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

/// Uniform random values in [0, 1).
ET_API TensorPtr rand_strided(
    std::vector<executorch::aten::SizesType> sizes,
    std::vector<executorch::aten::StridesType> strides,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

/// Standard normal random values.
ET_API TensorPtr randn_strided(
    std::vector<executorch::aten::SizesType> sizes,
    std::vector<executorch::aten::StridesType> strides,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

/// Uniform random integers in [low, high).
ET_API TensorPtr randint_strided(
    int64_t low,
    int64_t high,
    std::vector<executorch::aten::SizesType> sizes,
    std::vector<executorch::aten::StridesType> strides,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Int,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

namespace internal {
// The dtype for a *_like factory: `type`, or `other`'s when Undefined.
inline executorch::aten::ScalarType like_type(
    const TensorPtr& other, executorch::aten::ScalarType type) {
  return type == executorch::aten::ScalarType::Undefined ? other->scalar_type()
                                                         : type;
}
inline std::vector<executorch::aten::SizesType> like_sizes(
    const TensorPtr& other) {
  return {other->sizes().begin(), other->sizes().end()};
}
inline std::vector<executorch::aten::StridesType> like_strides(
    const TensorPtr& other) {
  return {other->strides().begin(), other->strides().end()};
}
}  // namespace internal

inline TensorPtr empty(
    std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return empty_strided(std::move(sizes), {}, type, dynamism);
}

inline TensorPtr empty_like(
    const TensorPtr& other,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Undefined,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return empty_strided(
      internal::like_sizes(other),
      internal::like_strides(other),
      internal::like_type(other, type),
      dynamism);
}

inline TensorPtr full(
    std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::Scalar fill_value,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return full_strided(std::move(sizes), {}, fill_value, type, dynamism);
}

inline TensorPtr full_like(
    const TensorPtr& other,
    executorch::aten::Scalar fill_value,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Undefined,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return full_strided(
      internal::like_sizes(other),
      internal::like_strides(other),
      fill_value,
      internal::like_type(other, type),
      dynamism);
}

/// A 0-dim tensor holding `value`.
inline TensorPtr scalar_tensor(
    executorch::aten::Scalar value,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float) {
  return full({}, value, type);
}

inline TensorPtr zeros(
    std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return full(std::move(sizes), 0, type, dynamism);
}

inline TensorPtr zeros_like(
    const TensorPtr& other,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Undefined,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return full_like(other, 0, type, dynamism);
}

inline TensorPtr ones(
    std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return full(std::move(sizes), 1, type, dynamism);
}

inline TensorPtr ones_like(
    const TensorPtr& other,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Undefined,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return full_like(other, 1, type, dynamism);
}

inline TensorPtr rand(
    std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return rand_strided(std::move(sizes), {}, type, dynamism);
}

inline TensorPtr rand_like(
    const TensorPtr& other,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Undefined,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return rand_strided(
      internal::like_sizes(other),
      internal::like_strides(other),
      internal::like_type(other, type),
      dynamism);
}

inline TensorPtr randn(
    std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return randn_strided(std::move(sizes), {}, type, dynamism);
}

inline TensorPtr randn_like(
    const TensorPtr& other,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Undefined,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return randn_strided(
      internal::like_sizes(other),
      internal::like_strides(other),
      internal::like_type(other, type),
      dynamism);
}

inline TensorPtr randint(
    int64_t low,
    int64_t high,
    std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Int,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return randint_strided(low, high, std::move(sizes), {}, type, dynamism);
}

inline TensorPtr randint_like(
    const TensorPtr& other,
    int64_t low,
    int64_t high,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Undefined,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return randint_strided(
      low,
      high,
      internal::like_sizes(other),
      internal::like_strides(other),
      internal::like_type(other, type),
      dynamism);
}

}  // namespace extension
}  // namespace executorch
