/*
 * Tensor predicates, checks and resize helpers for kernels.
 *
 * The ET_CHECK_* macros here abort and are meant for invariants; kernels
 * validating their arguments should use ET_KERNEL_CHECK (kernel headers) or
 * the ET_LOG_AND_RETURN_IF_FALSE style predicates, which return.
 */
#pragma once

#include <cinttypes>
#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/dim_order_util.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_dimension_limit.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/compiler.h>

// ---------------------------------------------------------------------------
// Small helpers

#define ET_MIN2(a, b) (((a) < (b)) ? (a) : (b))
#define ET_MIN3(a, b, c) ET_MIN2(ET_MIN2(a, b), c)

/* Turns a possibly negative index into [0, upper_bound). */
#define ET_NORMALIZE_IX(IX, UPPER_BOUND) \
  ((IX) < 0 ? (IX) + (UPPER_BOUND) : (IX))

// ---------------------------------------------------------------------------
// Aborting checks (invariants only)

#define ET_CHECK_VALID_IX(IX, UPPER_BOUND)                  \
  ET_CHECK_MSG(                                             \
      (IX) >= -(UPPER_BOUND) && (IX) < (UPPER_BOUND),       \
      "index %" PRId64 " must be within range [-%zd, %zd)", \
      static_cast<int64_t>(IX),                             \
      static_cast<ssize_t>(UPPER_BOUND),                    \
      static_cast<ssize_t>(UPPER_BOUND))

#define ET_CHECK_VALID_DIM(DIM, UPPER_BOUND)              \
  ET_CHECK_MSG(                                           \
      (DIM) >= -(UPPER_BOUND) && (DIM) < (UPPER_BOUND),   \
      "dim %" PRId64 " must be within range [-%zd, %zd)", \
      static_cast<int64_t>(DIM),                          \
      static_cast<ssize_t>(UPPER_BOUND),                  \
      static_cast<ssize_t>(UPPER_BOUND))

#define ET_CHECK_NON_ZERO_DIM_SIZE(DIM, T) \
  ET_CHECK_MSG(                            \
      (T).size(DIM) != 0,                  \
      "Size of dim %zd is zero",           \
      static_cast<ssize_t>(DIM))

#define ET_CHECK_SAME_SHAPE2(a__, b__)                              \
  ET_CHECK_MSG(                                                     \
      ::executorch::runtime::tensors_have_same_shape((a__), (b__)), \
      "Tensors do not have the same shape")

#define ET_CHECK_SAME_SHAPE3(a__, b__, c__)                                \
  ET_CHECK_MSG(                                                            \
      ::executorch::runtime::tensors_have_same_shape((a__), (b__), (c__)), \
      "Tensors do not have the same shape")

#define ET_CHECK_SAME_DTYPE2(a__, b__)                      \
  ET_CHECK_MSG(                                             \
      (a__).scalar_type() == (b__).scalar_type(),           \
      "Tensors do not have the same dtype: %s vs %s",       \
      ::executorch::runtime::toString((a__).scalar_type()), \
      ::executorch::runtime::toString((b__).scalar_type()))

#define ET_CHECK_SAME_DTYPE3(a__, b__, c__)           \
  ET_CHECK_MSG(                                       \
      (a__).scalar_type() == (b__).scalar_type() &&   \
          (b__).scalar_type() == (c__).scalar_type(), \
      "Tensors do not have the same dtype")

#define ET_CHECK_SAME_SHAPE_AND_DTYPE2(a__, b__) \
  do {                                           \
    ET_CHECK_SAME_SHAPE2(a__, b__);              \
    ET_CHECK_SAME_DTYPE2(a__, b__);              \
  } while (0)

#define ET_CHECK_SAME_SHAPE_AND_DTYPE3(a__, b__, c__) \
  do {                                                \
    ET_CHECK_SAME_SHAPE3(a__, b__, c__);              \
    ET_CHECK_SAME_DTYPE3(a__, b__, c__);              \
  } while (0)

#define ET_CHECK_CONTIGUOUS(a__)                        \
  ET_CHECK_MSG(                                         \
      ::executorch::runtime::tensor_is_contiguous(a__), \
      "Tensor must be contiguous")

#define ET_CHECK_SAME_STRIDES2(a__, b__)                              \
  ET_CHECK_MSG(                                                       \
      ::executorch::runtime::tensors_have_same_strides((a__), (b__)), \
      "Tensors do not have the same strides")

#define ET_CHECK_SAME_STRIDES3(a__, b__, c__)                                \
  ET_CHECK_MSG(                                                              \
      ::executorch::runtime::tensors_have_same_strides((a__), (b__), (c__)), \
      "Tensors do not have the same strides")

#define ET_CHECK_DEFAULT_OR_CHANNELSLAST_DIMORDER(t__)             \
  ET_CHECK_MSG(                                                    \
      ::executorch::runtime::is_contiguous_dim_order(              \
          (t__).dim_order().data(), (t__).dim_order().size()) ||   \
          ::executorch::runtime::is_channels_last_dim_order(       \
              (t__).dim_order().data(), (t__).dim_order().size()), \
      "Tensor must have default or channels last dim order")

// ---------------------------------------------------------------------------
// Returning checks

/* Logs the failed condition and returns false from the enclosing function. */
#define ET_LOG_AND_RETURN_IF_FALSE(cond)           \
  do {                                             \
    if (!(cond)) {                                 \
      ET_LOG(Error, "Check failed (%s): ", #cond); \
      return false;                                \
    }                                              \
  } while (0)

#define ET_LOG_MSG_AND_RETURN_IF_FALSE(cond, message, ...)                \
  do {                                                                    \
    if (!(cond)) {                                                        \
      ET_LOG(Error, "Check failed (%s): " message, #cond, ##__VA_ARGS__); \
      return false;                                                       \
    }                                                                     \
  } while (0)

/*
 * If `cond` is false: log, record `error` in the kernel context and return
 * `retval` (which may be empty for void functions).
 */
#define ET_KERNEL_CHECK(context, cond, error, retval)      \
  do {                                                     \
    if (!(cond)) {                                         \
      ET_LOG(Error, "Check failed (%s): ", #cond);         \
      (context).fail(::executorch::runtime::Error::error); \
      return retval;                                       \
    }                                                      \
  } while (0)

#define ET_KERNEL_CHECK_MSG(context, cond, error, retval, message, ...)   \
  do {                                                                    \
    if (!(cond)) {                                                        \
      ET_LOG(Error, "Check failed (%s): " message, #cond, ##__VA_ARGS__); \
      (context).fail(::executorch::runtime::Error::error);                \
      return retval;                                                      \
    }                                                                     \
  } while (0)

/*
 * Reads the single element of a one-element tensor into `out_val`, converting
 * it to the type of out_val; evaluates to false if the tensor is not a
 * one-element tensor of a real or bool dtype.
 */
#define ET_EXTRACT_SCALAR_TENSOR(scalar_tensor, out_val) \
  ::executorch::runtime::extract_scalar_tensor((scalar_tensor), &(out_val))

namespace executorch {
namespace runtime {

// ---------------------------------------------------------------------------
// Dtype predicates

inline bool tensor_is_type(
    const executorch::aten::Tensor& t, executorch::aten::ScalarType dtype) {
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      t.scalar_type() == dtype,
      "Expected %s but got %s",
      toString(dtype),
      toString(t.scalar_type()));
  return true;
}

inline bool tensor_is_type(
    const executorch::aten::Tensor& t,
    executorch::aten::ScalarType dtype,
    executorch::aten::ScalarType dtype2) {
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      t.scalar_type() == dtype || t.scalar_type() == dtype2,
      "Expected %s or %s but got %s",
      toString(dtype),
      toString(dtype2),
      toString(t.scalar_type()));
  return true;
}

inline bool tensor_is_type(
    const executorch::aten::Tensor& t,
    executorch::aten::ScalarType dtype,
    executorch::aten::ScalarType dtype2,
    executorch::aten::ScalarType dtype3) {
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      t.scalar_type() == dtype || t.scalar_type() == dtype2 ||
          t.scalar_type() == dtype3,
      "Expected %s, %s or %s but got %s",
      toString(dtype),
      toString(dtype2),
      toString(dtype3),
      toString(t.scalar_type()));
  return true;
}

#define ET_INTERNAL_DTYPE_PREDICATE(_fn, _test, _what) \
  inline bool _fn(const executorch::aten::Tensor& t) { \
    ET_LOG_MSG_AND_RETURN_IF_FALSE(                    \
        _test,                                         \
        "Expected a " _what " dtype, got %s",          \
        toString(t.scalar_type()));                    \
    return true;                                       \
  }

ET_INTERNAL_DTYPE_PREDICATE(
    tensor_is_bool_type,
    t.scalar_type() == executorch::aten::ScalarType::Bool,
    "Bool")
ET_INTERNAL_DTYPE_PREDICATE(
    tensor_is_floating_type, isFloatingType(t.scalar_type()), "floating")
ET_INTERNAL_DTYPE_PREDICATE(
    tensor_is_real_type, isRealType(t.scalar_type()), "real")
ET_INTERNAL_DTYPE_PREDICATE(
    tensor_is_realh_type, isRealHType(t.scalar_type()), "real or Half")
ET_INTERNAL_DTYPE_PREDICATE(
    tensor_is_realhb_type, isRealHBType(t.scalar_type()), "real, Half or Bool")
ET_INTERNAL_DTYPE_PREDICATE(
    tensor_is_realhbf16_type,
    isRealHBF16Type(t.scalar_type()),
    "real, Half or BFloat16")
ET_INTERNAL_DTYPE_PREDICATE(
    tensor_is_realhbbf16_type,
    isRealHBBF16Type(t.scalar_type()),
    "real, Half, Bool or BFloat16")
ET_INTERNAL_DTYPE_PREDICATE(
    tensor_is_complex_type, isComplexType(t.scalar_type()), "complex")
ET_INTERNAL_DTYPE_PREDICATE(
    tensor_is_bits_type, isBitsType(t.scalar_type()), "bits")

#undef ET_INTERNAL_DTYPE_PREDICATE

inline bool tensor_is_integral_type(
    const executorch::aten::Tensor& t, bool includeBool = false) {
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      isIntegralType(t.scalar_type(), includeBool),
      "Expected an integral dtype, got %s",
      toString(t.scalar_type()));
  return true;
}

inline bool tensor_can_cast_to(
    const executorch::aten::Tensor& a, executorch::aten::ScalarType dtype) {
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      canCast(a.scalar_type(), dtype),
      "Cannot cast %s to %s",
      toString(a.scalar_type()),
      toString(dtype));
  return true;
}

// ---------------------------------------------------------------------------
// Rank and dimension predicates

/* True if `dim` (possibly negative) indexes a dim of `t`; rank 0 accepts 0/-1. */
inline bool dim_is_valid(int64_t dim, int64_t upper_bound) {
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      dim >= -upper_bound && dim < upper_bound,
      "Dimension %" PRId64 " is out of range [-%" PRId64 ", %" PRId64 ")",
      dim,
      upper_bound,
      upper_bound);
  return true;
}

/* Rank, treating a 0-dim tensor as 1-dim (as most ops index it). */
inline ssize_t nonzero_dim(const executorch::aten::Tensor& t) {
  return t.dim() == 0 ? 1 : t.dim();
}

/* Size of `dim`, treating a 0-dim tensor as having size 1. */
inline ssize_t nonempty_size(const executorch::aten::Tensor& t, ssize_t dim) {
  return t.dim() == 0 ? 1 : t.size(dim);
}

inline bool tensor_has_dim(const executorch::aten::Tensor& t, int64_t d) {
  const int64_t rank = static_cast<int64_t>(nonzero_dim(t));
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      d >= -rank && d < rank,
      "%" PRId64 "-dim tensor has no dim %" PRId64,
      rank,
      d);
  return true;
}

inline bool tensor_has_non_empty_dim(
    const executorch::aten::Tensor& t, int64_t d) {
  const int64_t rank = static_cast<int64_t>(nonzero_dim(t));
  ET_LOG_AND_RETURN_IF_FALSE(d >= -rank && d < rank);
  ET_LOG_AND_RETURN_IF_FALSE(nonempty_size(t, ET_NORMALIZE_IX(d, rank)) != 0);
  return true;
}

inline bool tensor_dim_has_index(
    const executorch::aten::Tensor& t, int64_t d, int64_t ix) {
  const int64_t rank = static_cast<int64_t>(nonzero_dim(t));
  ET_LOG_AND_RETURN_IF_FALSE(d >= -rank && d < rank);
  const int64_t size = nonempty_size(t, ET_NORMALIZE_IX(d, rank));
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      ix >= -size && ix < size,
      "index %" PRId64 " out of range for size %" PRId64,
      ix,
      size);
  return true;
}

inline bool tensor_is_rank(const executorch::aten::Tensor& t, size_t rank) {
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      static_cast<size_t>(t.dim()) == rank,
      "Expected rank %zu, got %zd",
      rank,
      t.dim());
  return true;
}

inline bool tensor_has_rank_greater_or_equal_to(
    const executorch::aten::Tensor& t, size_t rank) {
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      static_cast<size_t>(t.dim()) >= rank,
      "Expected rank >= %zu, got %zd",
      rank,
      t.dim());
  return true;
}

inline bool tensor_has_rank_smaller_or_equal_to(
    const executorch::aten::Tensor& t, size_t rank) {
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      static_cast<size_t>(t.dim()) <= rank,
      "Expected rank <= %zu, got %zd",
      rank,
      t.dim());
  return true;
}

inline bool tensor_has_expected_size(
    const executorch::aten::Tensor& t,
    executorch::aten::ArrayRef<executorch::aten::SizesType> expected_sizes) {
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      t.sizes().equals(expected_sizes), "Tensor has an unexpected shape");
  return true;
}

inline bool tensor_is_scalar(const executorch::aten::Tensor& t) {
  return t.dim() == 0 && t.numel() == 1;
}

// ---------------------------------------------------------------------------
// Comparisons between tensors

inline bool tensors_have_same_dtype(
    const executorch::aten::Tensor& a, const executorch::aten::Tensor& b) {
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      a.scalar_type() == b.scalar_type(),
      "Dtypes differ: %s vs %s",
      toString(a.scalar_type()),
      toString(b.scalar_type()));
  return true;
}

inline bool tensors_have_same_dtype(
    const executorch::aten::Tensor& a,
    const executorch::aten::Tensor& b,
    const executorch::aten::Tensor& c) {
  return tensors_have_same_dtype(a, b) && tensors_have_same_dtype(b, c);
}

inline bool tensors_have_same_rank(
    const executorch::aten::Tensor& a, const executorch::aten::Tensor& b) {
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      a.dim() == b.dim(), "Ranks differ: %zd vs %zd", a.dim(), b.dim());
  return true;
}

inline bool tensors_have_same_rank(
    const executorch::aten::Tensor& a,
    const executorch::aten::Tensor& b,
    const executorch::aten::Tensor& c) {
  return tensors_have_same_rank(a, b) && tensors_have_same_rank(b, c);
}

/*
 * Same shape; one-element tensors of any rank count as the same shape, as
 * kernels treat [] and [1] alike.
 */
inline bool tensors_have_same_shape(
    const executorch::aten::Tensor& a, const executorch::aten::Tensor& b) {
  if (a.numel() == 1 && b.numel() == 1) {
    return true;
  }
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      a.sizes().equals(b.sizes()),
      "Shapes differ (rank %zd vs %zd)",
      a.dim(),
      b.dim());
  return true;
}

inline bool tensors_have_same_shape(
    const executorch::aten::Tensor& a,
    const executorch::aten::Tensor& b,
    const executorch::aten::Tensor& c) {
  if (a.numel() == 1 && b.numel() == 1 && c.numel() == 1) {
    return true;
  }
  return tensors_have_same_shape(a, b) && tensors_have_same_shape(b, c);
}

inline bool tensors_have_same_shape_and_dtype(
    const executorch::aten::Tensor& a, const executorch::aten::Tensor& b) {
  return tensors_have_same_shape(a, b) && tensors_have_same_dtype(a, b);
}

inline bool tensors_have_same_shape_and_dtype(
    const executorch::aten::Tensor& a,
    const executorch::aten::Tensor& b,
    const executorch::aten::Tensor& c) {
  return tensors_have_same_shape(a, b, c) && tensors_have_same_dtype(a, b, c);
}

inline bool tensors_have_same_size_at_dims(
    const executorch::aten::Tensor& a,
    size_t dim_a,
    const executorch::aten::Tensor& b,
    size_t dim_b) {
  ET_LOG_AND_RETURN_IF_FALSE(dim_a < static_cast<size_t>(a.dim()));
  ET_LOG_AND_RETURN_IF_FALSE(dim_b < static_cast<size_t>(b.dim()));
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      a.size(static_cast<ssize_t>(dim_a)) ==
          b.size(static_cast<ssize_t>(dim_b)),
      "Sizes differ at dims %zu and %zu",
      dim_a,
      dim_b);
  return true;
}

inline bool tensors_have_same_strides(
    const executorch::aten::Tensor& a, const executorch::aten::Tensor& b) {
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      a.strides().equals(b.strides()), "Strides differ");
  return true;
}

inline bool tensors_have_same_strides(
    const executorch::aten::Tensor& a,
    const executorch::aten::Tensor& b,
    const executorch::aten::Tensor& c) {
  return tensors_have_same_strides(a, b) && tensors_have_same_strides(b, c);
}

/* True if the strides are those of the default (contiguous) dim order. */
inline bool tensor_is_contiguous(const executorch::aten::Tensor& t) {
  const auto strides = t.strides();
  const auto sizes = t.sizes();
  if (strides.empty()) {
    return true;
  }
  if (strides.data() == nullptr) {
    return false;
  }
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      strides[strides.size() - 1] == 1,
      "Innermost stride is %" PRId32 ", expected 1",
      strides[strides.size() - 1]);
  for (size_t i = strides.size() - 1; i > 0; --i) {
    const int64_t inner_size = sizes[i] == 0 ? 1 : sizes[i];
    ET_LOG_MSG_AND_RETURN_IF_FALSE(
        static_cast<int64_t>(strides[i - 1]) ==
            static_cast<int64_t>(strides[i]) * inner_size,
        "Stride at dim %zu is not contiguous",
        i - 1);
  }
  return true;
}

// ---------------------------------------------------------------------------
// Index arithmetic

/* Product of the sizes of dims [0, dim). */
inline size_t getLeadingDims(const executorch::aten::Tensor& t, int64_t dim) {
  ET_CHECK_MSG(dim >= 0 && dim <= t.dim(), "dim %" PRId64 " out of range", dim);
  size_t dims = 1;
  for (int64_t i = 0; i < dim; ++i) {
    dims *= static_cast<size_t>(t.size(static_cast<ssize_t>(i)));
  }
  return dims;
}

/* Product of the sizes of dims (dim, rank). */
inline size_t getTrailingDims(const executorch::aten::Tensor& t, int64_t dim) {
  ET_CHECK_MSG(dim >= -1 && dim < t.dim(), "dim %" PRId64 " out of range", dim);
  size_t dims = 1;
  for (ssize_t i = static_cast<ssize_t>(dim) + 1; i < t.dim(); ++i) {
    dims *= static_cast<size_t>(t.size(i));
  }
  return dims;
}

/* Linear (stride-weighted) offset of a coordinate. */
inline size_t coordinateToIndex(
    const executorch::aten::Tensor& t, const size_t* const coordinate) {
  size_t index = 0;
  for (ssize_t d = 0; d < t.dim(); ++d) {
    index += coordinate[d] *
             static_cast<size_t>(t.strides()[static_cast<size_t>(d)]);
  }
  return index;
}

/* Like coordinateToIndex, for precomputed (e.g. broadcast) strides. */
inline size_t coordinateToIndexWithTrailingDimsMemo(
    const executorch::aten::Tensor& tensor,
    const size_t* const coordinate,
    const size_t trailing_dims_memo[kTensorDimensionLimit]) {
  size_t index = 0;
  for (ssize_t d = 0; d < tensor.dim(); ++d) {
    index += coordinate[d] * trailing_dims_memo[d];
  }
  return index;
}

/* trailing_dims_memo[d] = product of sizes of dims after d. */
inline void memoizeTrailingDims(
    const executorch::aten::Tensor& tensor,
    size_t trailing_dims_memo[kTensorDimensionLimit]) {
  const ssize_t rank = tensor.dim();
  size_t dims = 1;
  for (ssize_t i = rank - 1; i >= 0; --i) {
    trailing_dims_memo[i] = dims;
    dims *= static_cast<size_t>(tensor.size(i));
  }
}

/* Row-major coordinate of linear `index` (sizes only, ignoring strides). */
inline void indexToCoordinate(
    const executorch::aten::Tensor& tensor, size_t index, size_t* coordinate) {
  for (ssize_t i = tensor.dim() - 1; i >= 0; --i) {
    const size_t size = static_cast<size_t>(tensor.size(i));
    coordinate[i] = size == 0 ? 0 : index % size;
    index = size == 0 ? 0 : index / size;
  }
}

/* Offset of a coordinate given explicit strides. */
template <typename StridesT>
inline size_t calculate_linear_index(
    const executorch::aten::SizesType* coordinate,
    const StridesT* strides,
    const size_t ndim) {
  size_t index = 0;
  for (size_t i = 0; i < ndim; ++i) {
    index +=
        static_cast<size_t>(coordinate[i]) * static_cast<size_t>(strides[i]);
  }
  return index;
}

/*
 * Reads the only element of a one-element real/bool tensor into *out_val.
 * Returns false (without aborting) for anything else.
 */
template <typename T>
inline bool extract_scalar_tensor(executorch::aten::Tensor tensor, T* out_val) {
  if (tensor.numel() != 1) {
    return false;
  }
  switch (tensor.scalar_type()) {
#define ET_INTERNAL_EXTRACT_CASE(_ctype, _name)                  \
  case executorch::aten::ScalarType::_name:                      \
    *out_val = static_cast<T>(*tensor.const_data_ptr<_ctype>()); \
    return true;
    ET_FORALL_REAL_TYPES(ET_INTERNAL_EXTRACT_CASE)
    ET_INTERNAL_EXTRACT_CASE(bool, Bool)
    ET_INTERNAL_EXTRACT_CASE(executorch::aten::Half, Half)
    ET_INTERNAL_EXTRACT_CASE(executorch::aten::BFloat16, BFloat16)
#undef ET_INTERNAL_EXTRACT_CASE
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------
// Dim-order queries (out of line)

/* Copies t's dim order into out_dim_order (InvalidArgument if too small). */
ET_NODISCARD ET_API Error get_dim_order(
    const executorch::aten::Tensor& tensor,
    executorch::aten::DimOrderType* out_dim_order,
    size_t out_dim_order_size);

ET_API bool tensor_has_valid_dim_order(executorch::aten::Tensor t);
ET_API bool tensor_is_default_or_channels_last_dim_order(
    executorch::aten::Tensor t);
ET_API bool tensor_is_default_dim_order(executorch::aten::Tensor t);
ET_API bool tensor_is_channels_last_dim_order(executorch::aten::Tensor t);

/* True if every tensor has the same dim order as the first. */
ET_API bool tensors_have_same_dim_order(
    const executorch::aten::ArrayRef<executorch::aten::Tensor> tensor_list);

inline bool tensors_have_same_dim_order(
    const executorch::aten::Tensor& a, const executorch::aten::Tensor& b) {
  executorch::aten::Tensor list[] = {a, b};
  return tensors_have_same_dim_order(
      executorch::aten::ArrayRef<executorch::aten::Tensor>(list));
}

inline bool tensors_have_same_dim_order(
    const executorch::aten::Tensor& a,
    const executorch::aten::Tensor& b,
    const executorch::aten::Tensor& c) {
  executorch::aten::Tensor list[] = {a, b, c};
  return tensors_have_same_dim_order(
      executorch::aten::ArrayRef<executorch::aten::Tensor>(list));
}

inline bool tensors_have_same_dim_order(
    const executorch::aten::Tensor& a,
    const executorch::aten::Tensor& b,
    const executorch::aten::Tensor& c,
    const executorch::aten::Tensor& d) {
  executorch::aten::Tensor list[] = {a, b, c, d};
  return tensors_have_same_dim_order(
      executorch::aten::ArrayRef<executorch::aten::Tensor>(list));
}

// ---------------------------------------------------------------------------
// Data pointer and resize helpers (out of line)

namespace internal {

/* Points t_dst at t_src's data (same nbytes required). */
ET_NODISCARD ET_API Error share_tensor_data(
    const executorch::aten::Tensor& t_dst,
    const executorch::aten::Tensor& t_src);

/* memcpy of t_src's bytes into t_dst (same nbytes required). */
ET_NODISCARD ET_API Error copy_tensor_data(
    const executorch::aten::Tensor& t_dst,
    const executorch::aten::Tensor& t_src);

/* Points t at `buffer`, which must hold at least t.nbytes() bytes. */
ET_NODISCARD ET_API Error set_tensor_data(
    const executorch::aten::Tensor& t, void* buffer, size_t buffer_size);

/* Clears t's data pointer. */
ET_API void reset_data_ptr(const executorch::aten::Tensor& tensor);

// resize_tensor_impl(TensorImpl*, ArrayRef<SizesType>) is declared in
// tensor_impl.h: the resize rules of TensorImpl, returning an Error.

}  // namespace internal

/* Resizes t following the tensor's shape dynamism (see TensorImpl). */
ET_NODISCARD inline Error resize_tensor(
    executorch::aten::Tensor t,
    executorch::aten::ArrayRef<executorch::aten::SizesType> new_sizes) {
  return internal::resize_tensor_impl(t.unsafeGetTensorImpl(), new_sizes);
}

/*
 * Same, for sizes held in another integer type (e.g. int64_t from an
 * IntList). Fails with InvalidArgument if a size does not fit SizesType.
 */
template <
    typename T,
    typename std::enable_if<
        !std::is_same<executorch::aten::SizesType, T>::value,
        int>::type = 0>
ET_NODISCARD inline Error resize_tensor(
    executorch::aten::Tensor t, executorch::aten::ArrayRef<T> new_sizes) {
  ET_CHECK_OR_RETURN_ERROR(
      new_sizes.size() <= kTensorDimensionLimit,
      NotSupported,
      "Rank %zu exceeds the limit %zu",
      new_sizes.size(),
      kTensorDimensionLimit);
  executorch::aten::SizesType converted[kTensorDimensionLimit];
  for (size_t i = 0; i < new_sizes.size(); ++i) {
    const T v = new_sizes[i];
    ET_CHECK_OR_RETURN_ERROR(
        static_cast<T>(static_cast<executorch::aten::SizesType>(v)) == v,
        InvalidArgument,
        "Size at dim %zu does not fit in int32",
        i);
    converted[i] = static_cast<executorch::aten::SizesType>(v);
  }
  return internal::resize_tensor_impl(
      t.unsafeGetTensorImpl(),
      executorch::aten::ArrayRef<executorch::aten::SizesType>(
          converted, new_sizes.size()));
}

/* Deprecated alias of resize_tensor that ignores the result. */
template <typename T>
ET_DEPRECATED inline void resize(
    executorch::aten::Tensor t, executorch::aten::ArrayRef<T> new_sizes) {
  (void)resize_tensor(t, new_sizes);
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::coordinateToIndex;
using ::executorch::runtime::extract_scalar_tensor;
using ::executorch::runtime::get_dim_order;
using ::executorch::runtime::getLeadingDims;
using ::executorch::runtime::getTrailingDims;
using ::executorch::runtime::indexToCoordinate;
using ::executorch::runtime::resize_tensor;
using ::executorch::runtime::tensor_is_contiguous;
using ::executorch::runtime::tensors_have_same_dim_order;
using ::executorch::runtime::tensors_have_same_dtype;
using ::executorch::runtime::tensors_have_same_shape;
using ::executorch::runtime::tensors_have_same_shape_and_dtype;
namespace internal {
using ::executorch::runtime::internal::copy_tensor_data;
using ::executorch::runtime::internal::reset_data_ptr;
using ::executorch::runtime::internal::resize_tensor_impl;
using ::executorch::runtime::internal::set_tensor_data;
using ::executorch::runtime::internal::share_tensor_data;
}  // namespace internal
}  // namespace executor
}  // namespace torch
