/*
 * Dim order helpers. A dim order lists the dimensions from outermost to
 * innermost in memory: {0,1,2,3} is contiguous NCHW, {0,2,3,1} is channels
 * last. Strides are always derived from (sizes, dim order).
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/util/tensor_dimension_limit.h>

namespace executorch {
namespace runtime {

/* True if dim_order is a permutation of 0..dims-1. */
template <typename DimOrderType>
inline bool validate_dim_order(
    const DimOrderType* dim_order, const size_t dims) {
  if (dims > kTensorDimensionLimit) {
    return false;
  }
  bool seen[kTensorDimensionLimit] = {};
  for (size_t i = 0; i < dims; ++i) {
    const size_t d = static_cast<size_t>(dim_order[i]);
    if (d >= dims || seen[d]) {
      return false;
    }
    seen[d] = true;
  }
  return true;
}

/* True for the identity order {0, 1, ..., dims-1}. */
template <typename DimOrderType>
inline bool is_contiguous_dim_order(
    const DimOrderType* dim_order, const size_t dims) {
  for (size_t i = 0; i < dims; ++i) {
    if (static_cast<size_t>(dim_order[i]) != i) {
      return false;
    }
  }
  return true;
}

/*
 * True for the channels-last order of a 4-D {0,2,3,1} or 5-D {0,2,3,4,1}
 * tensor; false for any other rank.
 */
template <typename DimOrderType>
inline bool is_channels_last_dim_order(
    const DimOrderType* dim_order, const size_t dims) {
  if (dims != 4 && dims != 5) {
    return false;
  }
  if (dim_order[0] != 0 || static_cast<size_t>(dim_order[dims - 1]) != 1) {
    return false;
  }
  for (size_t i = 1; i + 1 < dims; ++i) {
    if (static_cast<size_t>(dim_order[i]) != i + 1) {
      return false;
    }
  }
  return true;
}

/*
 * Fills strides from sizes and a dim order that is already known to be
 * valid. The innermost dim has stride 1; each outer dim's stride is the next
 * inner stride times that inner size, with size 0 counted as 1 so strides
 * stay meaningful for empty tensors.
 */
template <typename SizesType, typename DimOrderType, typename StridesType>
inline void dim_order_to_stride_nocheck(
    const SizesType* sizes,
    const DimOrderType* dim_order,
    const size_t dims,
    StridesType* strides) {
  if (dims == 0) {
    return;
  }
  strides[dim_order[dims - 1]] = 1;
  for (size_t i = dims - 1; i > 0; --i) {
    const auto inner = dim_order[i];
    const auto inner_size = sizes[inner] == 0 ? 1 : sizes[inner];
    strides[dim_order[i - 1]] =
        static_cast<StridesType>(strides[inner] * inner_size);
  }
}

/* As above, but first checks the dim order (InvalidArgument if bad). */
template <typename SizesType, typename DimOrderType, typename StridesType>
ET_NODISCARD inline Error dim_order_to_stride(
    const SizesType* sizes,
    const DimOrderType* dim_order,
    const size_t dims,
    StridesType* strides) {
  if (dims == 0) {
    return Error::Ok;
  }
  ET_CHECK_OR_RETURN_ERROR(
      validate_dim_order(dim_order, dims),
      InvalidArgument,
      "Invalid dim order values");
  dim_order_to_stride_nocheck(sizes, dim_order, dims, strides);
  return Error::Ok;
}

/*
 * Recovers a dim order from strides: dimensions sorted by decreasing stride,
 * ties kept in index order (so size-1 dims do not reorder).
 */
template <typename StridesType, typename DimOrderType>
ET_NODISCARD inline Error stride_to_dim_order(
    const StridesType* strides, const size_t dims, DimOrderType* dim_order) {
  ET_CHECK_OR_RETURN_ERROR(
      dims <= kTensorDimensionLimit,
      InvalidArgument,
      "Rank %zu exceeds the limit %zu",
      dims,
      kTensorDimensionLimit);
  for (size_t i = 0; i < dims; ++i) {
    dim_order[i] = static_cast<DimOrderType>(i);
  }
  // Insertion sort: tiny inputs, and it is stable.
  for (size_t i = 1; i < dims; ++i) {
    const DimOrderType d = dim_order[i];
    size_t j = i;
    while (j > 0 && strides[dim_order[j - 1]] < strides[d]) {
      dim_order[j] = dim_order[j - 1];
      --j;
    }
    dim_order[j] = d;
  }
  return Error::Ok;
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::dim_order_to_stride;
using ::executorch::runtime::dim_order_to_stride_nocheck;
using ::executorch::runtime::is_channels_last_dim_order;
using ::executorch::runtime::is_contiguous_dim_order;
using ::executorch::runtime::stride_to_dim_order;
}  // namespace executor
}  // namespace torch
