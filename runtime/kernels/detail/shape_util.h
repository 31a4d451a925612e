/*
 * Helpers for the shape, copy, indexing and NN kernels (K2's op families):
 * strided block copies built on detail::make_strided_loop_raw /
 * for_each_run (broadcast.h), element-size generic so every dtype works,
 * plus small shape utilities.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/kernels/detail/helpers.h>

namespace executorch {
namespace kernels {
namespace detail {

/* Element strides of t as int64 (t.dim() entries). */
inline void strides64(const Tensor& t, int64_t* out) {
  for (ssize_t i = 0; i < t.dim(); ++i) {
    out[i] = t.strides()[i];
  }
}

/* Sizes of t as int64 (t.dim() entries). */
inline void sizes64(const Tensor& t, int64_t* out) {
  for (ssize_t i = 0; i < t.dim(); ++i) {
    out[i] = t.sizes()[i];
  }
}

/*
 * dst[sum_d i_d * dst_strides[d]] = src[sum_d i_d * src_strides[d]] for every
 * index i of the `rank`-dim iteration space `sizes` (element strides,
 * elements of elem_size bytes). `order` (outermost first; null = 0..rank-1)
 * is the walk order, normally dst's dim order so writes are sequential.
 * Runs that are contiguous on both sides become one memcpy.
 */
void strided_copy(int rank, const int64_t* sizes, const DimOrderType* order, void* dst,
                  const int64_t* dst_strides, const void* src, const int64_t* src_strides,
                  size_t elem_size);

/*
 * Copies `in` into `out` element by element in logical (row-major) order,
 * whatever their shapes and dim orders; numel and dtype must match (the
 * view_copy semantics). Contiguous tensors become one memcpy.
 */
void copy_logical_order(const Tensor& in, const Tensor& out);

/* Number of elements of a shape given as int64 (no overflow checks). */
inline int64_t numel_of(const int64_t* sizes, int rank) {
  int64_t n = 1;
  for (int i = 0; i < rank; ++i) {
    n *= sizes[i];
  }
  return n;
}

/* Reads an index value from an int64/int32 (or other integral) tensor. */
inline int64_t load_index(const void* base, ScalarType t, int64_t i) {
  switch (t) {
    case ScalarType::Long:
      return static_cast<const int64_t*>(base)[i];
    case ScalarType::Int:
      return static_cast<const int32_t*>(base)[i];
    case ScalarType::Short:
      return static_cast<const int16_t*>(base)[i];
    case ScalarType::Char:
      return static_cast<const int8_t*>(base)[i];
    case ScalarType::Byte:
      return static_cast<const uint8_t*>(base)[i];
    default:
      return 0;
  }
}

inline bool is_index_dtype(ScalarType t) {
  return t == ScalarType::Long || t == ScalarType::Int;
}

/* Element offset (via strides) of the i-th element in logical order of t. */
inline int64_t logical_to_offset(const Tensor& t, int64_t i) {
  int64_t off = 0;
  for (ssize_t d = t.dim() - 1; d >= 0; --d) {
    const int64_t s = t.sizes()[d];
    off += (i % s) * t.strides()[d];
    i /= s;
  }
  return off;
}

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
