/*
 * Opaque bit-container element types (Bits1x8 ... Bits16). The runtime only
 * moves them around; their meaning belongs to whichever operator uses them.
 */
#pragma once

#include <cstdint>

namespace executorch {
namespace runtime {
namespace etensor {

#define ET_INTERNAL_DEFINE_BITS_TYPE(_name, _underlying, _align) \
  struct alignas(_align) _name {                                 \
    using underlying = _underlying;                              \
    _underlying val_;                                            \
    _name() = default;                                           \
    constexpr explicit _name(_underlying val) : val_(val) {}     \
  };

ET_INTERNAL_DEFINE_BITS_TYPE(bits1x8, uint8_t, 1)
ET_INTERNAL_DEFINE_BITS_TYPE(bits2x4, uint8_t, 1)
ET_INTERNAL_DEFINE_BITS_TYPE(bits4x2, uint8_t, 1)
ET_INTERNAL_DEFINE_BITS_TYPE(bits8, uint8_t, 1)
ET_INTERNAL_DEFINE_BITS_TYPE(bits16, uint16_t, 2)

#undef ET_INTERNAL_DEFINE_BITS_TYPE

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::bits16;
using ::executorch::runtime::etensor::bits1x8;
using ::executorch::runtime::etensor::bits2x4;
using ::executorch::runtime::etensor::bits4x2;
using ::executorch::runtime::etensor::bits8;
}  // namespace executor
}  // namespace torch
