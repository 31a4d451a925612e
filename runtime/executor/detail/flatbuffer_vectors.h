/*
 * Helpers for reading optional flatbuffer vectors (private header).
 */
#pragma once

#include <cstddef>

namespace executorch {
namespace runtime {
namespace detail {

/// Length of an optional flatbuffer vector: an absent vector reads as empty.
template <typename Vector>
inline size_t vsize(const Vector* v) {
  return v == nullptr ? 0 : v->size();
}

}  // namespace detail
}  // namespace runtime
}  // namespace executorch
