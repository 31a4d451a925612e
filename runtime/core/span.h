/*
 * Span<T>: a non-owning (pointer, length) view over contiguous, mutable
 * elements. Unlike ArrayRef it lets the holder write through it.
 */
#pragma once

#include <cstddef>

#include <executorch/runtime/platform/assert.h>

namespace executorch {
namespace runtime {

template <typename T>
class Span final {
 public:
  using value_type = T;
  using iterator = T*;
  using size_type = size_t;

  constexpr Span() noexcept : data_(nullptr), length_(0) {}

  constexpr Span(T* data, size_t length) : data_(data), length_(length) {
    ET_DCHECK(data_ != nullptr || length_ == 0);
  }

  /* From a [begin, end) range. */
  Span(T* begin, T* end)
      : data_(begin), length_(static_cast<size_t>(end - begin)) {}

  /* A whole C array. */
  template <size_t N>
  /* implicit */ constexpr Span(T (&arr)[N]) : data_(arr), length_(N) {}

  /* A single element, viewed as a one-element span. */
  /* implicit */ constexpr Span(T& single) : data_(&single), length_(1) {}

  constexpr iterator begin() const noexcept {
    return data_;
  }
  constexpr iterator end() const noexcept {
    return data_ + length_;
  }

  constexpr T* data() const noexcept {
    return data_;
  }
  constexpr size_t size() const noexcept {
    return length_;
  }
  constexpr bool empty() const noexcept {
    return length_ == 0;
  }

  /* Unchecked in release builds, like operator[] on a C array. */
  T& operator[](size_t index) const {
    ET_DCHECK_MSG(
        index < length_, "index %zu out of range %zu", index, length_);
    return data_[index];
  }

 private:
  T* data_;
  size_t length_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Span;
}  // namespace executor
}  // namespace torch
