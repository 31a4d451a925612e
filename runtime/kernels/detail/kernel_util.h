/*
 * Shared helpers of the CPU kernel library: argument checks that report
 * through ctx.fail() (never abort) with a log naming the operator and the
 * argument, out-tensor resizing, dim normalization, dtype sets, operator
 * names and the registration macro.
 *
 * Conventions for every kernel in runtime/kernels/ops/:
 *   - signature: `Tensor& op_out(KernelRuntimeContext& ctx, <schema args>,
 *     Tensor& out)`; name it once with ET_DEFINE_OPERATOR_NAME(op_out_name,
 *     "aten::op.out"), use log_name(op_out_name) in its messages and
 *     register it with ETK_REGISTER_KERNEL(op_out_name, op_out).
 *   - validate with the check_* functions below or ET_KERNEL_CHECK_MSG; each
 *     fails after it has logged "<op>: <what is wrong with which argument>"
 *     and called ctx.fail(Error::InvalidArgument). A kernel then returns
 *     `out` at once.
 *   - compute the output shape and call resize_out() even for static shapes;
 *     a size derived from int lists or scalars is computed in int64 with
 *     checked_math.h and passed to the int64 resize_out(), never truncated.
 *   - check a rank against kMaxDim before indexing any [kMaxDim] array by it.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>

#include <executorch/extension/kernel_util/make_boxed_from_unboxed_functor.h>
#include <executorch/runtime/kernels/detail/checked_math.h>
#include <executorch/runtime/kernel/kernel_includes.h>

namespace executorch {
namespace kernels {
namespace detail {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::BFloat16;
using ::executorch::aten::DimOrderType;
using ::executorch::aten::Half;
using ::executorch::aten::IntArrayRef;
using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::SizesType;
using ::executorch::aten::StridesType;
using ::executorch::aten::Tensor;
using ::executorch::aten::TensorList;
using ::executorch::runtime::Error;
using ::executorch::runtime::EValue;
using ::executorch::runtime::KernelRuntimeContext;

constexpr size_t kMaxDim = ::executorch::runtime::kTensorDimensionLimit;

// ---------------------------------------------------------------------------
// Failing with a message

/*
 * Argument checks use ET_KERNEL_CHECK_MSG (upstream ExecuTorch's kernel
 * check, from kernel_includes.h) with a message that starts with the
 * operator: ET_KERNEL_CHECK_MSG(ctx, cond, InvalidArgument, retval,
 * "%s: argument 'x' ...", op, ...).
 */

/* Records `err` and logs; for errors other than InvalidArgument. Returns false. */
inline bool fail(KernelRuntimeContext& ctx, Error err, const char* op, const char* what) {
  ET_LOG(Error, "%s: %s", op, what);
  ctx.fail(err);
  return false;
}

/* "[2, 3, 4]" into buf, for logs. */
inline const char* shape_str(ArrayRef<SizesType> s, char* buf, size_t n) {
  size_t pos = 0;
  pos += static_cast<size_t>(std::snprintf(buf + pos, n - pos, "["));
  for (size_t i = 0; i < s.size() && pos < n; ++i) {
    pos += static_cast<size_t>(
        std::snprintf(buf + pos, n - pos, i == 0 ? "%d" : ", %d", static_cast<int>(s[i])));
  }
  if (pos < n) {
    std::snprintf(buf + pos, n - pos, "]");
  }
  return buf;
}

inline const char* dtype_name(ScalarType t) {
  return ::executorch::runtime::toString(t);
}

// ---------------------------------------------------------------------------
// Dtype sets (bit masks over ScalarType)

using DtypeSet = uint64_t;
constexpr DtypeSet dtype_bit(ScalarType t) {
  return DtypeSet(1) << static_cast<int>(t);
}
namespace dtypes {
constexpr DtypeSet kBool = dtype_bit(ScalarType::Bool);
constexpr DtypeSet kByte = dtype_bit(ScalarType::Byte);
constexpr DtypeSet kInt = dtype_bit(ScalarType::Byte) | dtype_bit(ScalarType::Char) |
                          dtype_bit(ScalarType::Short) | dtype_bit(ScalarType::Int) |
                          dtype_bit(ScalarType::Long);
constexpr DtypeSet kFloat = dtype_bit(ScalarType::Float) | dtype_bit(ScalarType::Double);
constexpr DtypeSet kHalfBF16 = dtype_bit(ScalarType::Half) | dtype_bit(ScalarType::BFloat16);
constexpr DtypeSet kFloatHBF16 = kFloat | kHalfBF16;
constexpr DtypeSet kReal = kInt | kFloat;
constexpr DtypeSet kRealHBF16 = kReal | kHalfBF16;
constexpr DtypeSet kRealHBBF16 = kRealHBF16 | kBool;  // what the elementwise ops accept
constexpr DtypeSet kIntB = kInt | kBool;
}  // namespace dtypes

inline bool dtype_in(ScalarType t, DtypeSet set) {
  const int i = static_cast<int>(t);
  return i >= 0 && i < 64 && (set & (DtypeSet(1) << i)) != 0;
}

// ---------------------------------------------------------------------------
// Argument checks: log "<op>: ..." naming the argument and fail on false.

inline bool check_dtype_in(KernelRuntimeContext& ctx, const char* op, const char* arg,
                           const Tensor& t, DtypeSet set) {
  ET_KERNEL_CHECK_MSG(ctx, dtype_in(t.scalar_type(), set), InvalidArgument, false,
                      "%s: argument '%s' has unsupported dtype %s", op, arg,
                      dtype_name(t.scalar_type()));
  return true;
}

inline bool check_dtype(KernelRuntimeContext& ctx, const char* op, const char* arg, const Tensor& t,
                        ScalarType want) {
  ET_KERNEL_CHECK_MSG(ctx, t.scalar_type() == want, InvalidArgument, false,
                      "%s: argument '%s' must have dtype %s, got %s", op, arg, dtype_name(want),
                      dtype_name(t.scalar_type()));
  return true;
}

inline bool check_same_dtype(KernelRuntimeContext& ctx, const char* op, const char* arg_a,
                             const Tensor& a, const char* arg_b, const Tensor& b) {
  ET_KERNEL_CHECK_MSG(ctx, a.scalar_type() == b.scalar_type(), InvalidArgument, false,
                      "%s: arguments '%s' (%s) and '%s' (%s) must have the same dtype", op, arg_a,
                      dtype_name(a.scalar_type()), arg_b, dtype_name(b.scalar_type()));
  return true;
}

/* `from` (a computed common dtype) can be written to out's dtype. */
inline bool check_can_cast(KernelRuntimeContext& ctx, const char* op, ScalarType from,
                           const char* arg, const Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, ::executorch::runtime::canCast(from, out.scalar_type()), InvalidArgument,
                      false, "%s: result dtype %s cannot be cast to argument '%s' of dtype %s", op,
                      dtype_name(from), arg, dtype_name(out.scalar_type()));
  return true;
}

inline bool check_rank(KernelRuntimeContext& ctx, const char* op, const char* arg, const Tensor& t,
                       ssize_t rank) {
  ET_KERNEL_CHECK_MSG(ctx, t.dim() == rank, InvalidArgument, false,
                      "%s: argument '%s' must have rank %zd, got %zd", op, arg, rank,
                      static_cast<ssize_t>(t.dim()));
  return true;
}

/* Both tensors have the same dim order (rank-0/1 tensors always agree). */
inline bool same_dim_order(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) {
    return false;
  }
  for (ssize_t i = 0; i < a.dim(); ++i) {
    if (a.dim_order()[i] != b.dim_order()[i]) {
      return false;
    }
  }
  return true;
}

inline bool check_same_dim_order(KernelRuntimeContext& ctx, const char* op, const char* arg_a,
                                 const Tensor& a, const char* arg_b, const Tensor& b) {
  ET_KERNEL_CHECK_MSG(ctx, a.dim() != b.dim() || same_dim_order(a, b), InvalidArgument, false,
                      "%s: arguments '%s' and '%s' must have the same dim order", op, arg_a, arg_b);
  return true;
}

inline bool is_contiguous_dim_order(const Tensor& t) {
  for (ssize_t i = 0; i < t.dim(); ++i) {
    if (t.dim_order()[i] != i) {
      return false;
    }
  }
  return true;
}

inline bool is_channels_last_dim_order(const Tensor& t) {
  if (t.dim() != 4 && t.dim() != 5) {
    return false;
  }
  return ::executorch::runtime::is_channels_last_dim_order(t.dim_order().data(),
                                                           static_cast<size_t>(t.dim()));
}

inline bool check_contiguous_or_channels_last(KernelRuntimeContext& ctx, const char* op,
                                              const char* arg, const Tensor& t) {
  ET_KERNEL_CHECK_MSG(ctx, is_contiguous_dim_order(t) || is_channels_last_dim_order(t),
                      InvalidArgument, false,
                      "%s: argument '%s' must be contiguous or channels-last", op, arg);
  return true;
}

inline bool check_contiguous(KernelRuntimeContext& ctx, const char* op, const char* arg,
                             const Tensor& t) {
  ET_KERNEL_CHECK_MSG(ctx, is_contiguous_dim_order(t), InvalidArgument, false,
                      "%s: argument '%s' must have the contiguous dim order", op, arg);
  return true;
}

/*
 * Normalizes a possibly negative dim against `rank` (a rank-0 tensor accepts
 * dims 0 and -1, as in PyTorch). Writes the result to *out.
 */
inline bool normalize_dim(KernelRuntimeContext& ctx, const char* op, const char* arg, int64_t dim,
                          int64_t rank, int64_t* out) {
  const int64_t r = rank == 0 ? 1 : rank;
  if (dim < -r || dim >= r) {
    ET_LOG(Error, "%s: argument '%s' = %lld is out of range for rank %lld", op, arg,
           static_cast<long long>(dim), static_cast<long long>(rank));
    ctx.fail(Error::InvalidArgument);
    return false;
  }
  *out = dim < 0 ? dim + r : dim;
  return true;
}

// ---------------------------------------------------------------------------
// Out resizing

/*
 * Resizes `out` to `sizes` (TensorImpl rules: static shapes must match,
 * dynamic ones must fit their capacity). On error logs and fails ctx with
 * the resize error. Kernels that compute a size from their arguments do it
 * in int64 (checked_math.h) and pass it to the int64 overload below, which
 * rejects sizes a dim cannot hold instead of truncating them.
 */
inline bool resize_out(KernelRuntimeContext& ctx, const char* op, const Tensor& out,
                       ArrayRef<SizesType> sizes) {
  // An output that is also an input of this call may be written in place,
  // but a new shape would change the input under the kernel.
  if (ctx.internal_aliased_output() == out.unsafeGetTensorImpl() && out.sizes() != sizes) {
    char want[160], have[160];
    ET_LOG(Error, "%s: cannot resize argument 'out' from %s to %s: it is also an input", op,
           shape_str(out.sizes(), have, sizeof have), shape_str(sizes, want, sizeof want));
    ctx.fail(Error::InvalidArgument);
    return false;
  }
  const Error err = ::executorch::runtime::resize_tensor(out, sizes);
  if (err != Error::Ok) {
    char want[160], have[160];
    ET_LOG(Error, "%s: cannot resize argument 'out' from %s to %s", op,
           shape_str(out.sizes(), have, sizeof have), shape_str(sizes, want, sizeof want));
    ctx.fail(err);
    return false;
  }
  return true;
}

inline bool resize_out(KernelRuntimeContext& ctx, const char* op, const Tensor& out,
                       ArrayRef<int64_t> sizes) {
  if (sizes.size() > kMaxDim) {
    return fail(ctx, Error::InvalidArgument, op, "output rank exceeds the limit");
  }
  SizesType s[kMaxDim];
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!is_dim_size(sizes[i])) {
      ET_LOG(Error, "%s: output size %lld at dim %zu is out of range", op,
             static_cast<long long>(sizes[i]), i);
      ctx.fail(Error::InvalidArgument);
      return false;
    }
    s[i] = static_cast<SizesType>(sizes[i]);
  }
  return resize_out(ctx, op, out, ArrayRef<SizesType>(s, sizes.size()));
}

/* Resizes out to like's shape. */
inline bool resize_out_like(KernelRuntimeContext& ctx, const char* op, const Tensor& out,
                            const Tensor& like) {
  return resize_out(ctx, op, out, like.sizes());
}

// ---------------------------------------------------------------------------
// Registration

/*
 * An operator's name is written once, as a constant:
 *
 *   ET_DEFINE_OPERATOR_NAME(add_out_name, "aten::add.out");
 *
 * The kernel's log messages name it without its namespace,
 * log_name(add_out_name) == "add.out", and the registration uses it as is.
 */
constexpr const char* log_name(const char* full_name) {
  const char* name = full_name;
  for (const char* p = full_name; *p != '\0'; ++p) {
    if (p[0] == ':' && p[1] == ':') {
      name = p + 2;
    }
  }
  return name;
}

/*
 * ETK_REGISTER_KERNEL(add_out_name, add_out): registers the unboxed function
 * (first parameter KernelRuntimeContext&, then the schema arguments) under
 * the operator name constant from a static initializer. The boxed wrapper
 * checks the argument count (schema + return slot) and kinds.
 */
#define ETK_REGISTER_KERNEL(op_name, fn) ETK_REGISTER_KERNEL_IMPL(op_name, fn, __COUNTER__)
#define ETK_REGISTER_KERNEL_IMPL(op_name, fn, uid)                                              \
  [[maybe_unused]] static const ::executorch::runtime::Error ET_CONCATENATE(etk_op_reg_, uid) = \
      ::executorch::runtime::register_kernel(                                                   \
          ::executorch::extension::make_boxed_kernel(op_name, EXECUTORCH_FN(fn, op_name)))

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
