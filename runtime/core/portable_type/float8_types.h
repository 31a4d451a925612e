/*
 * 8-bit float storage types. Like the bits types they are carried, not
 * computed on: only the raw byte is provided.
 */
#pragma once

#include <cstdint>

namespace executorch {
namespace runtime {
namespace etensor {

#define ET_INTERNAL_DEFINE_FLOAT8_TYPE(_name)               \
  struct alignas(1) _name {                                 \
    uint8_t x;                                              \
    struct from_bits_t {};                                  \
    static constexpr from_bits_t from_bits() {              \
      return from_bits_t();                                 \
    }                                                       \
    _name() = default;                                      \
    constexpr _name(uint8_t bits, from_bits_t) : x(bits) {} \
  };

ET_INTERNAL_DEFINE_FLOAT8_TYPE(Float8_e5m2)
ET_INTERNAL_DEFINE_FLOAT8_TYPE(Float8_e4m3fn)
ET_INTERNAL_DEFINE_FLOAT8_TYPE(Float8_e5m2fnuz)
ET_INTERNAL_DEFINE_FLOAT8_TYPE(Float8_e4m3fnuz)

#undef ET_INTERNAL_DEFINE_FLOAT8_TYPE

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch
