/*
 * ArrayRef<T>: a non-owning, read-only (pointer, length) view over
 * contiguous elements. It is the runtime's equivalent of c10::ArrayRef and
 * is what tensors use for sizes, strides and dim order.
 *
 * The viewed storage must outlive the ArrayRef.
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <executorch/runtime/platform/assert.h>

namespace executorch {
namespace runtime {

template <typename T>
class ArrayRef final {
 public:
  using iterator = const T*;
  using const_iterator = const T*;
  using size_type = size_t;
  using value_type = T;

  constexpr ArrayRef() : data_(nullptr), length_(0) {}

  /* A single element. */
  /* implicit */ constexpr ArrayRef(const T& one) : data_(&one), length_(1) {}

  constexpr ArrayRef(const T* data, size_t length)
      : data_(data), length_(length) {}

  constexpr ArrayRef(const T* begin, const T* end)
      : data_(begin), length_(static_cast<size_t>(end - begin)) {}

  template <size_t N>
  /* implicit */ constexpr ArrayRef(const std::array<T, N>& arr)
      : data_(arr.data()), length_(N) {}

  template <size_t N>
  /* implicit */ constexpr ArrayRef(const T (&arr)[N])
      : data_(arr), length_(N) {}

  constexpr iterator begin() const {
    return data_;
  }
  constexpr iterator end() const {
    return data_ + length_;
  }
  constexpr const_iterator cbegin() const {
    return data_;
  }
  constexpr const_iterator cend() const {
    return data_ + length_;
  }

  constexpr bool empty() const {
    return length_ == 0;
  }
  constexpr const T* data() const {
    return data_;
  }
  constexpr size_t size() const {
    return length_;
  }

  /* First / last element; the array must not be empty. */
  const T& front() const {
    ET_CHECK_MSG(!empty(), "ArrayRef::front() on an empty array");
    return data_[0];
  }
  const T& back() const {
    ET_CHECK_MSG(!empty(), "ArrayRef::back() on an empty array");
    return data_[length_ - 1];
  }

  /* Element-wise equality. */
  bool equals(ArrayRef rhs) const {
    if (length_ != rhs.length_) {
      return false;
    }
    for (size_t i = 0; i < length_; ++i) {
      if (!(data_[i] == rhs.data_[i])) {
        return false;
      }
    }
    return true;
  }

  /* The `m` elements starting at `n`. */
  ArrayRef<T> slice(size_t n, size_t m) const {
    ET_CHECK_MSG(
        n <= length_ && m <= length_ - n,
        "slice(%zu, %zu) out of range for size %zu",
        n,
        m,
        length_);
    return ArrayRef<T>(data_ + n, m);
  }

  /* Everything from element `n` on. */
  ArrayRef<T> slice(size_t n) const {
    ET_CHECK_MSG(
        n <= length_, "slice(%zu) out of range for size %zu", n, length_);
    return slice(n, length_ - n);
  }

  constexpr const T& operator[](size_t index) const {
    return data_[index];
  }

  /* Bounds-checked access. */
  const T& at(size_t index) const {
    ET_CHECK_MSG(index < length_, "index %zu out of range %zu", index, length_);
    return data_[index];
  }

 private:
  const T* data_;
  size_type length_;
};

/* makeArrayRef: build an ArrayRef without spelling out T. */
template <typename T>
ArrayRef<T> makeArrayRef(const T& one) {
  return ArrayRef<T>(one);
}
template <typename T>
ArrayRef<T> makeArrayRef(const T* data, size_t length) {
  return ArrayRef<T>(data, length);
}
template <typename T>
ArrayRef<T> makeArrayRef(const T* begin, const T* end) {
  return ArrayRef<T>(begin, end);
}
template <typename T>
ArrayRef<T> makeArrayRef(const ArrayRef<T>& ref) {
  return ref;
}
template <typename T>
ArrayRef<T>& makeArrayRef(ArrayRef<T>& ref) {
  return ref;
}
template <typename T, size_t N>
ArrayRef<T> makeArrayRef(const std::array<T, N>& arr) {
  return ArrayRef<T>(arr);
}
template <typename T, size_t N>
ArrayRef<T> makeArrayRef(const T (&arr)[N]) {
  return ArrayRef<T>(arr);
}

template <typename T>
bool operator==(ArrayRef<T> a, ArrayRef<T> b) {
  return a.equals(b);
}
template <typename T>
bool operator!=(ArrayRef<T> a, ArrayRef<T> b) {
  return !a.equals(b);
}

using IntArrayRef = ArrayRef<int64_t>;

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::ArrayRef;
using ::executorch::runtime::IntArrayRef;
using ::executorch::runtime::makeArrayRef;
}  // namespace executor
}  // namespace torch
