/*
 * Checked arithmetic for numbers read from untrusted files (private header).
 *
 * Every offset, size, count and index that comes out of a .pte/.ptd goes
 * through one of these before it is compared, added, multiplied or used to
 * address memory. They never wrap and never invoke undefined behaviour; they
 * report failure by returning false.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace executorch {
namespace runtime {
namespace detail {

/// *out = a + b; false (and *out untouched) on overflow of T.
template <typename T>
inline bool checked_add(T a, T b, T* out) {
  static_assert(std::is_integral<T>::value, "integers only");
  T r;
  if (__builtin_add_overflow(a, b, &r)) {
    return false;
  }
  *out = r;
  return true;
}

/// *out = a * b; false (and *out untouched) on overflow of T.
template <typename T>
inline bool checked_mul(T a, T b, T* out) {
  static_assert(std::is_integral<T>::value, "integers only");
  T r;
  if (__builtin_mul_overflow(a, b, &r)) {
    return false;
  }
  *out = r;
  return true;
}

/// True iff the byte range [offset, offset + size) lies inside [0, limit),
/// evaluated without forming offset + size.
inline bool range_within(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

/// True iff `index` (any integer type, possibly negative) is a valid index
/// into a container of `count` elements.
template <typename I>
inline bool index_in_range(I index, size_t count) {
  static_assert(std::is_integral<I>::value, "integers only");
  if constexpr (std::is_signed<I>::value) {
    if (index < 0) {
      return false;
    }
  }
  return static_cast<uint64_t>(index) < static_cast<uint64_t>(count);
}

/// Narrow or widen `v` into `*out` only if the value is representable.
template <typename To, typename From>
inline bool checked_cast(From v, To* out) {
  static_assert(
      std::is_integral<To>::value && std::is_integral<From>::value,
      "integers only");
  if constexpr (std::is_signed<From>::value) {
    if (v < 0) {
      if constexpr (!std::is_signed<To>::value) {
        return false;
      } else if (
          static_cast<intmax_t>(v) <
          static_cast<intmax_t>(std::numeric_limits<To>::min())) {
        return false;
      }
    }
  }
  if (v > 0 && static_cast<uintmax_t>(v) >
                   static_cast<uintmax_t>(std::numeric_limits<To>::max())) {
    return false;
  }
  *out = static_cast<To>(v);
  return true;
}

/// Little-endian readers for raw header bytes (independent of host order).
inline uint32_t read_le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}

inline uint64_t read_le64(const uint8_t* p) {
  return static_cast<uint64_t>(read_le32(p)) |
         (static_cast<uint64_t>(read_le32(p + 4)) << 32);
}

/// Number of elements times element size, as a checked byte count. `sizes`
/// are signed (as serialized); a negative entry fails. Used for tensors.
template <typename SizeT>
inline bool checked_nbytes(
    const SizeT* sizes,
    size_t rank,
    size_t element_size,
    size_t* out_numel,
    size_t* out_nbytes) {
  size_t n = 1;
  for (size_t i = 0; i < rank; ++i) {
    if (sizes[i] < 0) {
      return false;
    }
    size_t s;
    if (!checked_cast(sizes[i], &s) || !checked_mul(n, s, &n)) {
      return false;
    }
  }
  size_t bytes;
  if (!checked_mul(n, element_size, &bytes)) {
    return false;
  }
  // Keep results usable as ssize_t / int64 everywhere downstream.
  if (bytes > static_cast<size_t>(std::numeric_limits<int64_t>::max()) ||
      n > static_cast<size_t>(std::numeric_limits<int64_t>::max())) {
    return false;
  }
  *out_numel = n;
  *out_nbytes = bytes;
  return true;
}

}  // namespace detail
}  // namespace runtime
}  // namespace executorch
