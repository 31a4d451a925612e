/*
 * Where a tensor's data lives. Portable builds only ever see CPU, but the
 * type is part of the public surface.
 */
#pragma once

#include <cstddef>
#include <cstdint>

namespace executorch {
namespace runtime {
namespace etensor {

enum class DeviceType : int8_t {
  CPU = 0,
  CUDA = 1,
};

constexpr size_t kNumDeviceTypes = 2;

/* Index of a device within its type; 0 is the first (or only) one. */
using DeviceIndex = int8_t;

struct Device final {
  using Type = DeviceType;

  /* implicit */ constexpr Device(DeviceType type, DeviceIndex index = 0)
      : type_(type), index_(index) {}

  constexpr DeviceType type() const noexcept {
    return type_;
  }
  constexpr bool is_cpu() const noexcept {
    return type_ == DeviceType::CPU;
  }
  constexpr DeviceIndex index() const noexcept {
    return index_;
  }

  constexpr bool operator==(const Device& other) const noexcept {
    return type_ == other.type_ && index_ == other.index_;
  }
  constexpr bool operator!=(const Device& other) const noexcept {
    return !(*this == other);
  }

 private:
  DeviceType type_;
  DeviceIndex index_;
};

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::Device;
using ::executorch::runtime::etensor::DeviceIndex;
using ::executorch::runtime::etensor::DeviceType;
}  // namespace executor
}  // namespace torch
