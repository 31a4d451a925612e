/*
 * Ops that move elements without changing them: flip, roll, pixel_shuffle,
 * pixel_unshuffle, tril, diagonal_copy, unfold_copy, as_strided_copy,
 * detach_copy, lift_fresh_copy and _conj_physical. out has self's dtype
 * (any of the ten tensor dtypes); any dim orders.
 */
#include <executorch/runtime/kernels/detail/index_map.h>
#include <executorch/runtime/kernels/detail/shape_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(flip_out_name, "aten::flip.out");
ET_DEFINE_OPERATOR_NAME(roll_out_name, "aten::roll.out");
ET_DEFINE_OPERATOR_NAME(pixel_shuffle_out_name, "aten::pixel_shuffle.out");
ET_DEFINE_OPERATOR_NAME(pixel_unshuffle_out_name, "aten::pixel_unshuffle.out");
ET_DEFINE_OPERATOR_NAME(tril_out_name, "aten::tril.out");
ET_DEFINE_OPERATOR_NAME(diagonal_copy_out_name, "aten::diagonal_copy.out");
ET_DEFINE_OPERATOR_NAME(unfold_copy_out_name, "aten::unfold_copy.out");
ET_DEFINE_OPERATOR_NAME(as_strided_copy_out_name, "aten::as_strided_copy.out");
ET_DEFINE_OPERATOR_NAME(detach_copy_out_name, "aten::detach_copy.out");
ET_DEFINE_OPERATOR_NAME(lift_fresh_copy_out_name, "aten::lift_fresh_copy.out");
ET_DEFINE_OPERATOR_NAME(conj_physical_out_name, "aten::_conj_physical.out");

// self and out have the same dtype, one of the ten tensor dtypes.
bool check_in_out(KernelRuntimeContext& ctx, const char* op, const Tensor& in, const Tensor& out) {
  return check_dtype_in(ctx, op, "self", in, dtypes::kRealHBBF16) &&
         check_same_dtype(ctx, op, "self", in, "out", out);
}

// Normalizes every entry of a dim list into flags[]; a dim listed twice fails.
bool dim_flags(KernelRuntimeContext& ctx, const char* op, const char* arg, ArrayRef<int64_t> dims,
               int64_t rank, bool* flags) {
  for (size_t d = 0; d < kMaxDim; ++d) {
    flags[d] = false;
  }
  for (int64_t raw : dims) {
    int64_t d;
    if (!normalize_dim(ctx, op, arg, raw, rank, &d)) {
      return false;
    }
    ET_KERNEL_CHECK_MSG(ctx, !flags[d], InvalidArgument, false,
                        "%s: argument '%s' lists dim %lld twice", op, arg,
                        static_cast<long long>(d));
    flags[d] = true;
  }
  return true;
}

Tensor& flip_out(KernelRuntimeContext& ctx, const Tensor& in, ArrayRef<int64_t> dims, Tensor& out) {
  const char* op = log_name(flip_out_name);
  bool flip[kMaxDim];
  if (!check_in_out(ctx, op, in, out) || !dim_flags(ctx, op, "dims", dims, in.dim(), flip) ||
      !resize_out_like(ctx, op, out, in)) {
    return out;
  }
  map_elements(out, [&](const int64_t* oi, int64_t* si) {
    for (ssize_t d = 0; d < in.dim(); ++d) {
      si[d] = flip[d] ? in.sizes()[d] - 1 - oi[d] : oi[d];
    }
    return &in;
  });
  return out;
}

/*
 * roll: shifts[i] along dims[i]; with no dims the tensor is rolled as if
 * flattened (one shift).
 */
Tensor& roll_out(KernelRuntimeContext& ctx, const Tensor& in, ArrayRef<int64_t> shifts,
                 ArrayRef<int64_t> dims, Tensor& out) {
  const char* op = log_name(roll_out_name);
  if (!check_in_out(ctx, op, in, out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, dims.size() == shifts.size() || (dims.empty() && shifts.size() == 1),
                      InvalidArgument, out,
                      "%s: arguments 'shifts' (%zu) and 'dims' (%zu) must have the same length "
                      "(or one shift and no dims)",
                      op, shifts.size(), dims.size());
  int64_t shift[kMaxDim] = {0};
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d;
    if (!normalize_dim(ctx, op, "dims", dims[i], in.dim(), &d)) {
      return out;
    }
    const int64_t size = in.dim() == 0 ? 1 : in.sizes()[d];
    if (size > 0) {
      shift[d] = wrap_index(shift[d] + wrap_index(shifts[i], size), size);
    }
  }
  if (!resize_out_like(ctx, op, out, in)) {
    return out;
  }
  if (dims.empty()) {
    const int64_t n = in.numel();
    const int64_t s = n > 0 ? wrap_index(shifts[0], n) : 0;
    int64_t k = 0;
    map_elements(out, [&](const int64_t*, int64_t* si) {
      int64_t flat = wrap_index(k++ - s, n);
      for (ssize_t d = in.dim() - 1; d >= 0; --d) {
        si[d] = flat % in.sizes()[d];
        flat /= in.sizes()[d];
      }
      return &in;
    });
    return out;
  }
  map_elements(out, [&](const int64_t* oi, int64_t* si) {
    for (ssize_t d = 0; d < in.dim(); ++d) {
      si[d] = shift[d] == 0 ? oi[d] : wrap_index(oi[d] - shift[d], in.sizes()[d]);
    }
    return &in;
  });
  return out;
}

/*
 * pixel_shuffle (kShuffle): (*, C*r*r, H, W) -> (*, C, H*r, W*r);
 * pixel_unshuffle: the inverse.
 */
template <bool kShuffle>
Tensor& pixel_shuffle_impl(const char* op, KernelRuntimeContext& ctx, const Tensor& in, int64_t r,
                           Tensor& out) {
  if (!check_in_out(ctx, op, in, out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, in.dim() >= 3, InvalidArgument, out,
                      "%s: argument 'self' must have rank 3 or more, got %zd", op,
                      static_cast<ssize_t>(in.dim()));
  ET_KERNEL_CHECK_MSG(ctx, r > 0 && r <= 65536, InvalidArgument, out,
                      "%s: the factor %lld must be in [1, 65536]", op, static_cast<long long>(r));
  const ssize_t rank = in.dim();
  const int64_t c = in.sizes()[rank - 3], h = in.sizes()[rank - 2], w = in.sizes()[rank - 1];
  int64_t shape[kMaxDim];
  for (ssize_t d = 0; d < rank - 3; ++d) {
    shape[d] = in.sizes()[d];
  }
  if (kShuffle) {
    ET_KERNEL_CHECK_MSG(ctx, c % (r * r) == 0, InvalidArgument, out,
                        "%s: channels (%lld) must be divisible by the square of the factor", op,
                        static_cast<long long>(c));
    shape[rank - 3] = c / (r * r);
    shape[rank - 2] = h * r;
    shape[rank - 1] = w * r;
  } else {
    ET_KERNEL_CHECK_MSG(ctx, h % r == 0 && w % r == 0, InvalidArgument, out,
                        "%s: height and width must be divisible by the factor", op);
    shape[rank - 3] = c * r * r;
    shape[rank - 2] = h / r;
    shape[rank - 1] = w / r;
  }
  if (!resize_out(ctx, op, out, ArrayRef<int64_t>(shape, static_cast<size_t>(rank)))) {
    return out;
  }
  map_elements(out, [&](const int64_t* oi, int64_t* si) {
    for (ssize_t d = 0; d < rank - 3; ++d) {
      si[d] = oi[d];
    }
    const int64_t oc = oi[rank - 3], oh = oi[rank - 2], ow = oi[rank - 1];
    if (kShuffle) {
      si[rank - 3] = oc * r * r + (oh % r) * r + (ow % r);
      si[rank - 2] = oh / r;
      si[rank - 1] = ow / r;
    } else {
      const int64_t sub = oc % (r * r);
      si[rank - 3] = oc / (r * r);
      si[rank - 2] = oh * r + sub / r;
      si[rank - 1] = ow * r + sub % r;
    }
    return &in;
  });
  return out;
}

Tensor& pixel_shuffle_out(KernelRuntimeContext& ctx, const Tensor& in, int64_t upscale_factor,
                          Tensor& out) {
  return pixel_shuffle_impl<true>(log_name(pixel_shuffle_out_name), ctx, in, upscale_factor, out);
}

Tensor& pixel_unshuffle_out(KernelRuntimeContext& ctx, const Tensor& in, int64_t downscale_factor,
                            Tensor& out) {
  return pixel_shuffle_impl<false>(log_name(pixel_unshuffle_out_name), ctx, in, downscale_factor,
                                   out);
}

// tril: keeps the elements on and below the `diagonal`-th diagonal of the last two dims.
Tensor& tril_out(KernelRuntimeContext& ctx, const Tensor& in, int64_t diagonal, Tensor& out) {
  const char* op = log_name(tril_out_name);
  if (!check_in_out(ctx, op, in, out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, in.dim() >= 2, InvalidArgument, out,
                      "%s: argument 'self' must have rank 2 or more, got %zd", op,
                      static_cast<ssize_t>(in.dim()));
  if (!resize_out_like(ctx, op, out, in)) {
    return out;
  }
  const ssize_t rank = in.dim();
  map_elements(out, [&](const int64_t* oi, int64_t* si) -> const Tensor* {
    // Compared as col - row <= diagonal without overflow: |row|, |col| < 2^31.
    if (oi[rank - 1] - oi[rank - 2] > diagonal) {
      return nullptr;
    }
    for (ssize_t d = 0; d < rank; ++d) {
      si[d] = oi[d];
    }
    return &in;
  });
  return out;
}

// diagonal_copy: dims dim1 and dim2 are replaced by a last dim, their diagonal at `offset`.
Tensor& diagonal_copy_out(KernelRuntimeContext& ctx, const Tensor& in, int64_t offset, int64_t dim1,
                          int64_t dim2, Tensor& out) {
  const char* op = log_name(diagonal_copy_out_name);
  int64_t d1, d2;
  if (!check_in_out(ctx, op, in, out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, in.dim() >= 2, InvalidArgument, out,
                      "%s: argument 'self' must have rank 2 or more, got %zd", op,
                      static_cast<ssize_t>(in.dim()));
  if (!normalize_dim(ctx, op, "dim1", dim1, in.dim(), &d1) ||
      !normalize_dim(ctx, op, "dim2", dim2, in.dim(), &d2)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, d1 != d2, InvalidArgument, out,
                      "%s: arguments 'dim1' and 'dim2' name the same dim %lld", op,
                      static_cast<long long>(d1));
  const int64_t s1 = in.sizes()[d1], s2 = in.sizes()[d2];
  // Offsets beyond the matrix give an empty diagonal (clamped so nothing overflows).
  int64_t len = 0;
  if (offset >= 0) {
    len = offset < s2 ? std::min(s1, s2 - offset) : 0;
  } else {
    len = offset > -s1 ? std::min(s1 + offset, s2) : 0;
  }
  int64_t shape[kMaxDim];
  int64_t src_dim[kMaxDim];  // out dim -> in dim (for the kept dims)
  size_t od = 0;
  for (ssize_t d = 0; d < in.dim(); ++d) {
    if (d != d1 && d != d2) {
      src_dim[od] = d;
      shape[od++] = in.sizes()[d];
    }
  }
  shape[od++] = len;
  if (!resize_out(ctx, op, out, ArrayRef<int64_t>(shape, od))) {
    return out;
  }
  const int64_t row0 = offset >= 0 ? 0 : -offset;
  const int64_t col0 = offset >= 0 ? offset : 0;
  map_elements(out, [&](const int64_t* oi, int64_t* si) {
    for (size_t k = 0; k + 1 < od; ++k) {
      si[src_dim[k]] = oi[k];
    }
    si[d1] = row0 + oi[od - 1];
    si[d2] = col0 + oi[od - 1];
    return &in;
  });
  return out;
}

// unfold_copy: windows of `size` every `step` along `dimension`, as a new last dim.
Tensor& unfold_copy_out(KernelRuntimeContext& ctx, const Tensor& in, int64_t dimension,
                        int64_t size, int64_t step, Tensor& out) {
  const char* op = log_name(unfold_copy_out_name);
  int64_t d;
  if (!check_in_out(ctx, op, in, out) ||
      !normalize_dim(ctx, op, "dimension", dimension, in.dim(), &d)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, in.dim() < static_cast<ssize_t>(kMaxDim), InvalidArgument, out,
                      "%s: the result's rank would exceed the limit", op);
  const int64_t extent = in.dim() == 0 ? 1 : in.sizes()[d];
  ET_KERNEL_CHECK_MSG(ctx, size >= 0 && size <= extent, InvalidArgument, out,
                      "%s: argument 'size' (%lld) must be in [0, %lld]", op,
                      static_cast<long long>(size), static_cast<long long>(extent));
  ET_KERNEL_CHECK_MSG(ctx, step > 0, InvalidArgument, out,
                      "%s: argument 'step' (%lld) must be positive", op,
                      static_cast<long long>(step));
  int64_t shape[kMaxDim];
  const ssize_t rank = in.dim();
  for (ssize_t k = 0; k < rank; ++k) {
    shape[k] = in.sizes()[k];
  }
  if (rank > 0) {
    shape[d] = (extent - size) / step + 1;
  }
  shape[rank] = size;
  if (!resize_out(ctx, op, out, ArrayRef<int64_t>(shape, static_cast<size_t>(rank + 1)))) {
    return out;
  }
  map_elements(out, [&](const int64_t* oi, int64_t* si) {
    for (ssize_t k = 0; k < rank; ++k) {
      si[k] = oi[k];
    }
    if (rank > 0) {
      si[d] = oi[d] * step + oi[rank];
    }
    return &in;
  });
  return out;
}

/*
 * as_strided_copy: out[i] = the element at storage_offset + sum(i_d * stride_d)
 * of self's elements in memory order. Every element it can reach must lie
 * inside self (checked before any is read).
 */
Tensor& as_strided_copy_out(KernelRuntimeContext& ctx, const Tensor& in, ArrayRef<int64_t> size,
                            ArrayRef<int64_t> stride, std::optional<int64_t> storage_offset,
                            Tensor& out) {
  const char* op = log_name(as_strided_copy_out_name);
  if (!check_in_out(ctx, op, in, out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, size.size() == stride.size(), InvalidArgument, out,
                      "%s: arguments 'size' (%zu) and 'stride' (%zu) must have the same length", op,
                      size.size(), stride.size());
  ET_KERNEL_CHECK_MSG(ctx, size.size() <= kMaxDim, InvalidArgument, out,
                      "%s: argument 'size' has more than %zu dims", op, kMaxDim);
  const int64_t base = storage_offset.value_or(0);
  ET_KERNEL_CHECK_MSG(ctx, base >= 0, InvalidArgument, out,
                      "%s: argument 'storage_offset' must not be negative", op);
  // The largest reachable offset, in checked arithmetic.
  int64_t last = base;
  bool empty = false;
  for (size_t k = 0; k < size.size(); ++k) {
    ET_KERNEL_CHECK_MSG(ctx, size[k] >= 0 && stride[k] >= 0, InvalidArgument, out,
                        "%s: negative size or stride at dim %zu", op, k);
    empty = empty || size[k] == 0;
    int64_t reach;
    if (size[k] > 0 &&
        (!checked_mul(size[k] - 1, stride[k], &reach) || !checked_add(last, reach, &last))) {
      fail(ctx, Error::InvalidArgument, op, "the strided view overflows");
      return out;
    }
  }
  ET_KERNEL_CHECK_MSG(ctx, empty || last < in.numel(), InvalidArgument, out,
                      "%s: the view reaches element %lld of a tensor of %zd elements", op,
                      static_cast<long long>(last), static_cast<ssize_t>(in.numel()));
  if (!resize_out(ctx, op, out, size)) {
    return out;
  }
  // Memory order of self: its element at memory position m.
  const Tensor* src = &in;
  map_elements(out, [&](const int64_t* oi, int64_t* si) {
    int64_t m = base;
    for (size_t k = 0; k < size.size(); ++k) {
      m += oi[k] * stride[k];
    }
    // Logical index of memory position m, walking self's dim order.
    for (ssize_t j = in.dim() - 1; j >= 0; --j) {
      const int64_t d = in.dim_order()[j];
      si[d] = m % in.sizes()[d];
      m /= in.sizes()[d];
    }
    return src;
  });
  return out;
}

/*
 * detach_copy / lift_fresh_copy: a plain copy (autograd has no meaning
 * here); _conj_physical too: the conjugate of a real value is itself, and
 * this runtime has no complex dtypes.
 */
Tensor& plain_copy(const char* op, KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  if (check_in_out(ctx, op, in, out) && resize_out_like(ctx, op, out, in)) {
    copy_strided(ctx, op, in, out);
  }
  return out;
}

Tensor& detach_copy_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  return plain_copy(log_name(detach_copy_out_name), ctx, in, out);
}

Tensor& lift_fresh_copy_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  return plain_copy(log_name(lift_fresh_copy_out_name), ctx, in, out);
}

Tensor& conj_physical_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  return plain_copy(log_name(conj_physical_out_name), ctx, in, out);
}

ETK_REGISTER_KERNEL(flip_out_name, flip_out);
ETK_REGISTER_KERNEL(roll_out_name, roll_out);
ETK_REGISTER_KERNEL(pixel_shuffle_out_name, pixel_shuffle_out);
ETK_REGISTER_KERNEL(pixel_unshuffle_out_name, pixel_unshuffle_out);
ETK_REGISTER_KERNEL(tril_out_name, tril_out);
ETK_REGISTER_KERNEL(diagonal_copy_out_name, diagonal_copy_out);
ETK_REGISTER_KERNEL(unfold_copy_out_name, unfold_copy_out);
ETK_REGISTER_KERNEL(as_strided_copy_out_name, as_strided_copy_out);
ETK_REGISTER_KERNEL(detach_copy_out_name, detach_copy_out);
ETK_REGISTER_KERNEL(lift_fresh_copy_out_name, lift_fresh_copy_out);
ETK_REGISTER_KERNEL(conj_physical_out_name, conj_physical_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
