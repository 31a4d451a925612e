/*
 * Checked 64-bit arithmetic for sizes the kernels compute from their
 * arguments. Int lists, scalars and shapes all come from the program file,
 * so a size computed from them (an output length, a pad, a repeat count, a
 * window position) must never wrap: a wrapped size can look valid, pass the
 * out-tensor capacity check and then drive a loop far past the buffers.
 *
 * Every function returns false instead of overflowing and leaves *out
 * untouched then. Dependency-free so the compute core can use it too.
 */
#pragma once

#include <cstdint>
#include <type_traits>

namespace executorch {
namespace kernels {
namespace detail {

/* The largest size one tensor dim can hold (SizesType is int32). */
constexpr int64_t kMaxDimSize = INT32_MAX;

inline bool checked_add(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}

inline bool checked_sub(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_sub_overflow(a, b, out);
}

inline bool checked_mul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

/* a + b + c without intermediate overflow. */
inline bool checked_add3(int64_t a, int64_t b, int64_t c, int64_t* out) {
  int64_t ab;
  return checked_add(a, b, &ab) && checked_add(ab, c, out);
}

/* True if v can be the size of one tensor dim: 0 <= v <= kMaxDimSize. */
inline bool is_dim_size(int64_t v) {
  return v >= 0 && v <= kMaxDimSize;
}

/*
 * a + b, a - b, a * b and -a in a kernel's compute type: modulo 2^N for
 * integers (what PyTorch gives for integer tensors; signed overflow is
 * undefined behaviour in C++, and tensor values and scalars come from the
 * file), the plain operation for floating point and bool.
 */
template <class T>
constexpr bool kWrapsModulo = std::is_integral<T>::value && !std::is_same<T, bool>::value;

template <class T>
inline T wrap_add(T a, T b) {
  if constexpr (kWrapsModulo<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

template <class T>
inline T wrap_sub(T a, T b) {
  if constexpr (kWrapsModulo<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return a - b;
  }
}

template <class T>
inline T wrap_mul(T a, T b) {
  if constexpr (kWrapsModulo<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}

template <class T>
inline T wrap_neg(T a) {
  if constexpr (kWrapsModulo<T>) {
    return wrap_sub(T(0), a);
  } else {
    return -a;
  }
}

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
