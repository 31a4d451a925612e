/*
 * FieldPath: the one way program validation names a field in a log
 * message (private header), e.g. "execution_plan[0].values[12].Tensor.sizes[3]".
 *
 * Validation builds paths only on the failure path (inside the message
 * arguments of ET_CHECK_OR_RETURN_ERROR), so a valid program costs nothing.
 * A path too long for the buffer is truncated, never overrun.
 */
#pragma once

#include <cstddef>
#include <cstdio>

namespace executorch {
namespace runtime {
namespace detail {

class FieldPath {
 public:
  /// A top-level field of the Program table ("segments", "named_data", ...).
  explicit FieldPath(const char* root) {
    append("%s", root);
  }

  /// "execution_plan[plan_index]".
  static FieldPath plan(size_t plan_index) {
    return FieldPath("execution_plan").at(plan_index);
  }

  /// This path followed by ".name".
  FieldPath field(const char* name) const {
    FieldPath p = *this;
    p.append(".%s", name);
    return p;
  }

  /// This path followed by "[index]".
  FieldPath at(size_t index) const {
    FieldPath p = *this;
    p.append("[%zu]", index);
    return p;
  }

  /// This path followed by ".name[index]".
  FieldPath item(const char* name, size_t index) const {
    return field(name).at(index);
  }

  const char* c_str() const {
    return text_;
  }

 private:
  static constexpr size_t kCapacity = 160;

  template <typename T>
  void append(const char* format, T part) {
    if (length_ + 1 >= kCapacity) {
      return;
    }
    const int n =
        std::snprintf(text_ + length_, kCapacity - length_, format, part);
    if (n > 0) {
      const size_t room = kCapacity - length_ - 1;
      length_ += static_cast<size_t>(n) < room ? static_cast<size_t>(n) : room;
    }
  }

  char text_[kCapacity] = {};
  size_t length_ = 0;
};

}  // namespace detail
}  // namespace runtime
}  // namespace executorch
