/*
 * Owned-tensor factories: empty, full and the random fills.
 */
#include <executorch/extension/tensor/tensor_ptr_maker.h>

#include <cmath>
#include <limits>
#include <random>
#include <type_traits>

#include <executorch/extension/tensor/detail/dtype_dispatch.h>

namespace executorch {
namespace extension {

using executorch::aten::Scalar;
using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::aten::StridesType;
using executorch::aten::TensorShapeDynamism;

namespace {

// Converts `value` to T if it is representable; false otherwise. Integral
// targets take integral scalars in range; floating targets take any number
// (finite values must be in range); bool takes bools and integers.
template <typename T>
bool scalar_to(const Scalar& value, T* out) {
  if constexpr (std::is_same_v<T, bool>) {
    if (value.isBoolean()) {
      *out = value.to<bool>();
      return true;
    }
    if (value.isIntegral(/*includeBool=*/false)) {
      *out = value.to<int64_t>() != 0;
      return true;
    }
    return false;
  } else if constexpr (std::is_integral_v<T>) {
    if (!value.isIntegral(/*includeBool=*/false)) {
      return false;
    }
    const int64_t v = value.to<int64_t>();
    if constexpr (std::is_unsigned_v<T>) {
      if (v < 0 || static_cast<uint64_t>(v) > std::numeric_limits<T>::max()) {
        return false;
      }
    } else {
      if (v < std::numeric_limits<T>::lowest() ||
          v > std::numeric_limits<T>::max()) {
        return false;
      }
    }
    *out = static_cast<T>(v);
    return true;
  } else {
    double v = 0;
    if (value.isFloatingPoint()) {
      v = value.to<double>();
    } else if (value.isIntegral(/*includeBool=*/false)) {
      v = static_cast<double>(value.to<int64_t>());
    } else {
      return false;
    }
    if constexpr (!std::is_same_v<T, double>) {
      const double hi = static_cast<double>(
          static_cast<float>(std::numeric_limits<T>::max()));
      if (std::isfinite(v) && (v < -hi || v > hi)) {
        return false;
      }
    }
    *out = detail::convert_element<T>(v);
    return true;
  }
}

template <typename Gen>
TensorPtr fill_random(
    std::vector<SizesType> sizes,
    std::vector<StridesType> strides,
    ScalarType type,
    TensorShapeDynamism dynamism,
    Gen&& next) {
  auto tensor =
      empty_strided(std::move(sizes), std::move(strides), type, dynamism);
  const size_t numel = static_cast<size_t>(tensor->numel());
  const bool handled = detail::visit_dtype(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* data = tensor->template mutable_data_ptr<T>();
    for (size_t i = 0; i < numel; ++i) {
      data[i] = detail::convert_element<T>(next());
    }
  });
  ET_CHECK_MSG(
      handled,
      "random tensor: dtype %s is not supported",
      executorch::runtime::toString(type));
  return tensor;
}

std::mt19937_64& engine() {
  thread_local std::mt19937_64 gen{std::random_device{}()};
  return gen;
}

}  // namespace

TensorPtr empty_strided(
    std::vector<SizesType> sizes,
    std::vector<StridesType> strides,
    ScalarType type,
    TensorShapeDynamism dynamism) {
  auto numel = executorch::aten::safe_numel(sizes.data(), sizes.size());
  ET_CHECK_MSG(numel.ok(), "empty_strided: sizes are negative or overflow");
  size_t nbytes = 0;
  ET_CHECK_MSG(
      !__builtin_mul_overflow(
          static_cast<size_t>(numel.get()),
          executorch::runtime::elementSize(type),
          &nbytes),
      "empty_strided: byte size overflows");
  return make_tensor_ptr(
      std::move(sizes),
      std::vector<uint8_t>(nbytes),
      {},
      std::move(strides),
      type,
      dynamism);
}

TensorPtr full_strided(
    std::vector<SizesType> sizes,
    std::vector<StridesType> strides,
    Scalar fill_value,
    ScalarType type,
    TensorShapeDynamism dynamism) {
  auto tensor =
      empty_strided(std::move(sizes), std::move(strides), type, dynamism);
  const size_t numel = static_cast<size_t>(tensor->numel());
  bool converted = false;
  const bool handled = detail::visit_dtype(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T value{};
    converted = scalar_to(fill_value, &value);
    if (converted) {
      T* data = tensor->template mutable_data_ptr<T>();
      for (size_t i = 0; i < numel; ++i) {
        data[i] = value;
      }
    }
  });
  ET_CHECK_MSG(
      handled,
      "full: dtype %s is not supported",
      executorch::runtime::toString(type));
  ET_CHECK_MSG(
      converted,
      "full: the fill value does not fit dtype %s",
      executorch::runtime::toString(type));
  return tensor;
}

TensorPtr rand_strided(
    std::vector<SizesType> sizes,
    std::vector<StridesType> strides,
    ScalarType type,
    TensorShapeDynamism dynamism) {
  // Keep values strictly below 1 after rounding to a narrow float type.
  float upper = 1.0f;
  if (type == ScalarType::Half) {
    upper = 1.0f - 1.0f / 2048.0f;
  } else if (type == ScalarType::BFloat16) {
    upper = 1.0f - 1.0f / 256.0f;
  }
  std::uniform_real_distribution<float> dist(0.0f, upper);
  return fill_random(std::move(sizes), std::move(strides), type, dynamism, [&] {
    return dist(engine());
  });
}

TensorPtr randn_strided(
    std::vector<SizesType> sizes,
    std::vector<StridesType> strides,
    ScalarType type,
    TensorShapeDynamism dynamism) {
  std::normal_distribution<float> dist(0.0f, 1.0f);
  return fill_random(std::move(sizes), std::move(strides), type, dynamism, [&] {
    return dist(engine());
  });
}

TensorPtr randint_strided(
    int64_t low,
    int64_t high,
    std::vector<SizesType> sizes,
    std::vector<StridesType> strides,
    ScalarType type,
    TensorShapeDynamism dynamism) {
  ET_CHECK_MSG(
      low < high, "randint: empty range [%" PRId64 ", %" PRId64 ")", low, high);
  std::uniform_int_distribution<int64_t> dist(low, high - 1);
  return fill_random(std::move(sizes), std::move(strides), type, dynamism, [&] {
    return dist(engine());
  });
}

}  // namespace extension
}  // namespace executorch
