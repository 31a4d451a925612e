/*
 * complex<T>: a (real, imag) pair with the layout of c10::complex, used as
 * the element type of the Complex* scalar types. Only storage and a few
 * accessors are provided; kernels do not compute on complex values.
 */
#pragma once

#include <executorch/runtime/core/portable_type/half.h>

namespace executorch {
namespace runtime {
namespace etensor {

template <typename T>
struct alignas(sizeof(T) * 2) complex {
  T real_ = T(0);
  T imag_ = T(0);

  constexpr complex() = default;
  constexpr complex(const T& re, const T& im = T(0)) : real_(re), imag_(im) {}

  constexpr T real() const {
    return real_;
  }
  constexpr T imag() const {
    return imag_;
  }
};

/* Half has no constexpr float constructor, so spell its zero as bits. */
template <>
struct alignas(4) complex<Half> {
  Half real_{0, Half::from_bits()};
  Half imag_{0, Half::from_bits()};

  complex() = default;
  complex(const Half& re, const Half& im) : real_(re), imag_(im) {}

  Half real() const {
    return real_;
  }
  Half imag() const {
    return imag_;
  }
};

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::complex;
}  // namespace executor
}  // namespace torch
