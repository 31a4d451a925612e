/*
 * Functional view and data-movement kernels, element-size generic (every
 * dtype) and dim-order aware; contiguous runs are memcpy'd:
 * view_copy, permute_copy, t_copy, transpose_copy, expand_copy,
 * slice_copy, select_copy, narrow_copy, squeeze_copy (dim/dims),
 * unsqueeze_copy, cat, stack, split_copy, split_with_sizes_copy,
 * unbind_copy (TensorList outs), constant_pad_nd, repeat.
 */
#include <cstring>

#include <executorch/runtime/kernels/detail/shape_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(view_copy_out_name, "aten::view_copy.out");
ET_DEFINE_OPERATOR_NAME(permute_copy_out_name, "aten::permute_copy.out");
ET_DEFINE_OPERATOR_NAME(transpose_copy_out_name, "aten::transpose_copy.int_out");
ET_DEFINE_OPERATOR_NAME(t_copy_out_name, "aten::t_copy.out");
ET_DEFINE_OPERATOR_NAME(expand_copy_out_name, "aten::expand_copy.out");
ET_DEFINE_OPERATOR_NAME(slice_copy_out_name, "aten::slice_copy.Tensor_out");
ET_DEFINE_OPERATOR_NAME(narrow_copy_out_name, "aten::narrow_copy.out");
ET_DEFINE_OPERATOR_NAME(select_copy_out_name, "aten::select_copy.int_out");
ET_DEFINE_OPERATOR_NAME(squeeze_copy_dims_out_name, "aten::squeeze_copy.dims_out");
ET_DEFINE_OPERATOR_NAME(squeeze_copy_dim_out_name, "aten::squeeze_copy.dim_out");
ET_DEFINE_OPERATOR_NAME(squeeze_copy_out_name, "aten::squeeze_copy.out");
ET_DEFINE_OPERATOR_NAME(unsqueeze_copy_out_name, "aten::unsqueeze_copy.out");
ET_DEFINE_OPERATOR_NAME(cat_out_name, "aten::cat.out");
ET_DEFINE_OPERATOR_NAME(stack_out_name, "aten::stack.out");
ET_DEFINE_OPERATOR_NAME(split_with_sizes_copy_out_name, "aten::split_with_sizes_copy.out");
ET_DEFINE_OPERATOR_NAME(split_copy_tensor_out_name, "aten::split_copy.Tensor_out");
ET_DEFINE_OPERATOR_NAME(unbind_copy_int_out_name, "aten::unbind_copy.int_out");
ET_DEFINE_OPERATOR_NAME(constant_pad_nd_out_name, "aten::constant_pad_nd.out");
ET_DEFINE_OPERATOR_NAME(repeat_out_name, "aten::repeat.out");

using std::optional;

// out[i] = in[base + sum_d i_d * src_strides[d]] over out's shape.
void copy_view(const Tensor& in, const Tensor& out, int64_t base, const int64_t* src_strides) {
  int64_t sizes[kMaxDim], ds[kMaxDim];
  sizes64(out, sizes);
  strides64(out, ds);
  const size_t es = static_cast<size_t>(out.element_size());
  strided_copy(static_cast<int>(out.dim()), sizes, out.dim_order().data(), out.mutable_data_ptr(),
               ds, static_cast<const char*>(in.const_data_ptr()) + base * static_cast<int64_t>(es),
               src_strides, es);
}

bool same_dtype_out(KernelRuntimeContext& ctx, const char* op, const Tensor& in,
                    const Tensor& out) {
  return check_same_dtype(ctx, op, "self", in, "out", out);
}

Tensor& view_copy_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> size,
                      Tensor& out) {
  const char* op = log_name(view_copy_out_name);
  if (!same_dtype_out(ctx, op, self, out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, size.size() <= kMaxDim, InvalidArgument, out,
                      "%s: argument 'size' has too many dims", op);
  int64_t shape[kMaxDim];
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1) {
      ET_KERNEL_CHECK_MSG(ctx, infer < 0, InvalidArgument, out,
                          "%s: argument 'size' has more than one -1", op);
      infer = static_cast<int>(i);
      continue;
    }
    ET_KERNEL_CHECK_MSG(ctx, size[i] >= 0, InvalidArgument, out,
                        "%s: argument 'size' has a negative entry %lld", op,
                        static_cast<long long>(size[i]));
    shape[i] = size[i];
    ET_KERNEL_CHECK_MSG(ctx, checked_mul(known, size[i], &known), InvalidArgument, out,
                        "%s: argument 'size' has more elements than int64 can count", op);
  }
  if (infer >= 0) {
    ET_KERNEL_CHECK_MSG(ctx, known != 0 && self.numel() % known == 0, InvalidArgument, out,
                        "%s: argument 'size' cannot infer -1 for %zd elements", op, self.numel());
    shape[infer] = self.numel() / known;
    known *= shape[infer];
  }
  ET_KERNEL_CHECK_MSG(ctx, known == self.numel(), InvalidArgument, out,
                      "%s: argument 'size' has %lld elements but 'self' has %zd", op,
                      static_cast<long long>(known), self.numel());
  if (!resize_out(ctx, op, out, ArrayRef<int64_t>(shape, size.size()))) {
    return out;
  }
  copy_logical_order(self, out);
  return out;
}

Tensor& permute_copy_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> dims,
                         Tensor& out) {
  const char* op = log_name(permute_copy_out_name);
  if (!same_dtype_out(ctx, op, self, out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, static_cast<ssize_t>(dims.size()) == self.dim(), InvalidArgument, out,
                      "%s: argument 'dims' has %zu entries for rank %zd", op, dims.size(),
                      self.dim());
  bool seen[kMaxDim] = {false};
  SizesType shape[kMaxDim];
  int64_t ss[kMaxDim];
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d;
    if (!normalize_dim(ctx, op, "dims", dims[i], self.dim(), &d)) {
      return out;
    }
    ET_KERNEL_CHECK_MSG(ctx, !seen[d], InvalidArgument, out, "%s: argument 'dims' repeats dim %lld",
                        op, static_cast<long long>(d));
    seen[d] = true;
    shape[i] = self.sizes()[d];
    ss[i] = self.strides()[d];
  }
  if (!resize_out(ctx, op, out, ArrayRef<SizesType>(shape, dims.size()))) {
    return out;
  }
  copy_view(self, out, 0, ss);
  return out;
}

Tensor& transpose_impl(const char* op, KernelRuntimeContext& ctx, const Tensor& self, int64_t d0,
                       int64_t d1, Tensor& out) {
  if (!same_dtype_out(ctx, op, self, out)) {
    return out;
  }
  int64_t a = 0, b = 0;
  if (self.dim() == 0) {
    if (!resize_out_like(ctx, op, out, self)) {
      return out;
    }
    copy_logical_order(self, out);
    return out;
  }
  if (!normalize_dim(ctx, op, "dim0", d0, self.dim(), &a) ||
      !normalize_dim(ctx, op, "dim1", d1, self.dim(), &b)) {
    return out;
  }
  SizesType shape[kMaxDim];
  int64_t ss[kMaxDim];
  for (ssize_t i = 0; i < self.dim(); ++i) {
    const ssize_t src = i == a ? b : (i == b ? a : i);
    shape[i] = self.sizes()[src];
    ss[i] = self.strides()[src];
  }
  if (!resize_out(ctx, op, out, ArrayRef<SizesType>(shape, static_cast<size_t>(self.dim())))) {
    return out;
  }
  copy_view(self, out, 0, ss);
  return out;
}

Tensor& transpose_copy_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim0,
                           int64_t dim1, Tensor& out) {
  return transpose_impl(log_name(transpose_copy_out_name), ctx, self, dim0, dim1, out);
}

Tensor& t_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.dim() <= 2, InvalidArgument, out,
                      "%s: argument 'self' must have rank <= 2", log_name(t_copy_out_name));
  if (self.dim() < 2) {
    return transpose_impl(log_name(t_copy_out_name), ctx, self, 0, 0, out);
  }
  return transpose_impl(log_name(t_copy_out_name), ctx, self, 0, 1, out);
}

Tensor& expand_copy_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> size,
                        bool implicit, Tensor& out) {
  (void)implicit;
  const char* op = log_name(expand_copy_out_name);
  if (!same_dtype_out(ctx, op, self, out)) {
    return out;
  }
  const ssize_t n = static_cast<ssize_t>(size.size());
  ET_KERNEL_CHECK_MSG(ctx, n >= self.dim() && n <= static_cast<ssize_t>(kMaxDim), InvalidArgument,
                      out, "%s: argument 'size' has %zd entries, fewer than the rank %zd of 'self'",
                      op, n, self.dim());
  int64_t shape[kMaxDim];
  int64_t ss[kMaxDim];
  const ssize_t lead = n - self.dim();
  for (ssize_t i = 0; i < n; ++i) {
    if (i < lead) {
      ET_KERNEL_CHECK_MSG(ctx, size[i] >= 0, InvalidArgument, out,
                          "%s: argument 'size' entry %zd (%lld) is invalid for a new dim", op, i,
                          static_cast<long long>(size[i]));
      shape[i] = size[i];
      ss[i] = 0;
      continue;
    }
    const int64_t have = self.sizes()[i - lead];
    const int64_t want = size[i] == -1 ? have : size[i];
    ET_KERNEL_CHECK_MSG(ctx, want == have || have == 1, InvalidArgument, out,
                        "%s: argument 'size' entry %zd (%lld) cannot expand size %lld", op, i,
                        static_cast<long long>(size[i]), static_cast<long long>(have));
    shape[i] = want;
    ss[i] = (have == 1 && want != 1) ? 0 : self.strides()[i - lead];
  }
  // The int64 overload rejects sizes a dim cannot hold (and negative ones).
  if (!resize_out(ctx, op, out, ArrayRef<int64_t>(shape, static_cast<size_t>(n)))) {
    return out;
  }
  copy_view(self, out, 0, ss);
  return out;
}

// Clamps a slice [start, end) of a dim of size `len` PyTorch-style.
void clamp_slice(int64_t len, optional<int64_t> start, optional<int64_t> end, int64_t* s,
                 int64_t* e) {
  int64_t a = start.has_value() ? *start : 0;
  int64_t b = end.has_value() ? *end : len;
  if (a < 0) {
    a += len;
  }
  if (b < 0) {
    b += len;
  }
  a = a < 0 ? 0 : (a > len ? len : a);
  b = b < a ? a : (b > len ? len : b);
  *s = a;
  *e = b;
}

// Copies self's [start, start + len*step) along dim into out (already sized,
// with len = out.size(dim)); start and every taken index lie inside self.
void copy_slice(const Tensor& self, int64_t dim, int64_t start, int64_t step, const Tensor& out) {
  int64_t ss[kMaxDim];
  strides64(self, ss);
  const int64_t base = start * ss[dim];
  // With one element taken the step is never applied (and may be huge); with
  // more, step < size(dim) keeps stride * step within the tensor.
  ss[dim] = out.size(dim) > 1 ? ss[dim] * step : 0;
  copy_view(self, out, base, ss);
}

bool resize_with_dim(KernelRuntimeContext& ctx, const char* op, const Tensor& self, int64_t dim,
                     int64_t len, const Tensor& out) {
  int64_t shape[kMaxDim];
  for (ssize_t i = 0; i < self.dim(); ++i) {
    shape[i] = i == dim ? len : self.sizes()[i];
  }
  return resize_out(ctx, op, out, ArrayRef<int64_t>(shape, static_cast<size_t>(self.dim())));
}

Tensor& slice_copy_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                       optional<int64_t> start, optional<int64_t> end, int64_t step, Tensor& out) {
  const char* op = log_name(slice_copy_out_name);
  int64_t d;
  if (!same_dtype_out(ctx, op, self, out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, self.dim() > 0, InvalidArgument, out,
                      "%s: argument 'self' must have rank >= 1", op);
  if (!normalize_dim(ctx, op, "dim", dim, self.dim(), &d)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, step > 0, InvalidArgument, out,
                      "%s: argument 'step' must be positive, got %lld", op,
                      static_cast<long long>(step));
  int64_t s, e;
  clamp_slice(self.size(d), start, end, &s, &e);
  // ceil((e - s) / step) without forming e - s + step - 1 (step may be huge).
  const int64_t len = e == s ? 0 : (e - s - 1) / step + 1;
  if (!resize_with_dim(ctx, op, self, d, len, out)) {
    return out;
  }
  copy_slice(self, d, s, step, out);
  return out;
}

Tensor& narrow_copy_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, int64_t start,
                        int64_t length, Tensor& out) {
  const char* op = log_name(narrow_copy_out_name);
  int64_t d;
  if (!same_dtype_out(ctx, op, self, out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, self.dim() > 0, InvalidArgument, out,
                      "%s: argument 'self' must have rank >= 1", op);
  if (!normalize_dim(ctx, op, "dim", dim, self.dim(), &d)) {
    return out;
  }
  const int64_t len = self.size(d);
  const int64_t s = start < 0 ? start + len : start;
  ET_KERNEL_CHECK_MSG(ctx, s >= 0 && s <= len && length >= 0 && length <= len - s, InvalidArgument,
                      out, "%s: arguments 'start' %lld / 'length' %lld out of range for size %lld",
                      op, static_cast<long long>(start), static_cast<long long>(length),
                      static_cast<long long>(len));
  if (!resize_with_dim(ctx, op, self, d, length, out)) {
    return out;
  }
  copy_slice(self, d, s, 1, out);
  return out;
}

Tensor& select_copy_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, int64_t index,
                        Tensor& out) {
  const char* op = log_name(select_copy_out_name);
  int64_t d;
  if (!same_dtype_out(ctx, op, self, out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, self.dim() > 0, InvalidArgument, out,
                      "%s: argument 'self' must have rank >= 1", op);
  if (!normalize_dim(ctx, op, "dim", dim, self.dim(), &d)) {
    return out;
  }
  const int64_t len = self.size(d);
  const int64_t i = index < 0 ? index + len : index;
  ET_KERNEL_CHECK_MSG(ctx, i >= 0 && i < len, InvalidArgument, out,
                      "%s: argument 'index' %lld out of range for size %lld", op,
                      static_cast<long long>(index), static_cast<long long>(len));
  SizesType shape[kMaxDim];
  int64_t ss[kMaxDim];
  size_t n = 0;
  for (ssize_t k = 0; k < self.dim(); ++k) {
    if (k != d) {
      shape[n] = self.sizes()[k];
      ss[n] = self.strides()[k];
      ++n;
    }
  }
  if (!resize_out(ctx, op, out, ArrayRef<SizesType>(shape, n))) {
    return out;
  }
  copy_view(self, out, i * self.strides()[d], ss);
  return out;
}

// squeeze over a dim mask (only size-1 dims are removed).
Tensor& squeeze_mask(const char* op, KernelRuntimeContext& ctx, const Tensor& self,
                     const bool* mask, Tensor& out) {
  SizesType shape[kMaxDim];
  int64_t ss[kMaxDim];
  size_t n = 0;
  for (ssize_t k = 0; k < self.dim(); ++k) {
    if (mask[k] && self.sizes()[k] == 1) {
      continue;
    }
    shape[n] = self.sizes()[k];
    ss[n] = self.strides()[k];
    ++n;
  }
  if (!resize_out(ctx, op, out, ArrayRef<SizesType>(shape, n))) {
    return out;
  }
  copy_view(self, out, 0, ss);
  return out;
}

Tensor& squeeze_copy_dims_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> dims,
                              Tensor& out) {
  const char* op = log_name(squeeze_copy_dims_out_name);
  if (!same_dtype_out(ctx, op, self, out)) {
    return out;
  }
  bool mask[kMaxDim] = {false};
  for (int64_t raw : dims) {
    int64_t d;
    if (!normalize_dim(ctx, op, "dim", raw, self.dim(), &d)) {
      return out;
    }
    mask[d] = true;
  }
  return squeeze_mask(op, ctx, self, mask, out);
}

Tensor& squeeze_copy_dim_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                             Tensor& out) {
  const char* op = log_name(squeeze_copy_dim_out_name);
  int64_t d;
  if (!same_dtype_out(ctx, op, self, out) || !normalize_dim(ctx, op, "dim", dim, self.dim(), &d)) {
    return out;
  }
  bool mask[kMaxDim] = {false};
  mask[d] = true;
  return squeeze_mask(op, ctx, self, mask, out);
}

Tensor& squeeze_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  const char* op = log_name(squeeze_copy_out_name);
  if (!same_dtype_out(ctx, op, self, out)) {
    return out;
  }
  bool mask[kMaxDim];
  for (size_t i = 0; i < kMaxDim; ++i) {
    mask[i] = true;
  }
  return squeeze_mask(op, ctx, self, mask, out);
}

Tensor& unsqueeze_copy_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                           Tensor& out) {
  const char* op = log_name(unsqueeze_copy_out_name);
  int64_t d;
  if (!same_dtype_out(ctx, op, self, out) ||
      !normalize_dim(ctx, op, "dim", dim, self.dim() + 1, &d)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, self.dim() + 1 <= static_cast<ssize_t>(kMaxDim), InvalidArgument, out,
                      "%s: rank too large", op);
  SizesType shape[kMaxDim];
  int64_t ss[kMaxDim];
  for (ssize_t k = 0, j = 0; k <= self.dim(); ++k) {
    if (k == d) {
      shape[k] = 1;
      ss[k] = 0;
    } else {
      shape[k] = self.sizes()[j];
      ss[k] = self.strides()[j];
      ++j;
    }
  }
  if (!resize_out(ctx, op, out, ArrayRef<SizesType>(shape, static_cast<size_t>(self.dim() + 1)))) {
    return out;
  }
  copy_view(self, out, 0, ss);
  return out;
}

// A legacy empty 1-D tensor ([0]) is skipped by cat when out has another rank.
bool cat_skip(const Tensor& t, ssize_t out_rank) {
  return t.dim() == 1 && t.numel() == 0 && out_rank != 1;
}

Tensor& cat_out(KernelRuntimeContext& ctx, TensorList tensors, int64_t dim, Tensor& out) {
  const char* op = log_name(cat_out_name);
  ET_KERNEL_CHECK_MSG(ctx, tensors.size() > 0, InvalidArgument, out,
                      "%s: argument 'tensors' is empty", op);
  const Tensor* ref = nullptr;
  for (const Tensor& t : tensors) {
    if (!cat_skip(t, 2)) {
      ref = &t;
      break;
    }
  }
  if (ref == nullptr) {  // every input is a legacy empty tensor
    const SizesType z[1] = {0};
    (void)resize_out(ctx, op, out, ArrayRef<SizesType>(z, 1));
    return out;
  }
  int64_t d;
  if (!normalize_dim(ctx, op, "dim", dim, ref->dim(), &d)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, ref->dim() > 0, InvalidArgument, out,
                      "%s: zero-dimensional tensors cannot be concatenated", op);
  int64_t shape[kMaxDim];
  for (ssize_t i = 0; i < ref->dim(); ++i) {
    shape[i] = ref->sizes()[i];
  }
  int64_t total = 0;
  for (size_t k = 0; k < tensors.size(); ++k) {
    const Tensor& t = tensors[k];
    if (cat_skip(t, ref->dim())) {
      continue;
    }
    // Inputs of other dtypes are converted, as PyTorch promotes them to out's dtype.
    ET_KERNEL_CHECK_MSG(
        ctx, ::executorch::runtime::canCast(t.scalar_type(), out.scalar_type()), InvalidArgument,
        out, "%s: argument 'tensors'[%zu] has dtype %s, which cannot be cast to out's %s", op, k,
        dtype_name(t.scalar_type()), dtype_name(out.scalar_type()));
    ET_KERNEL_CHECK_MSG(ctx, t.dim() == ref->dim(), InvalidArgument, out,
                        "%s: argument 'tensors'[%zu] has rank %zd, expected %zd", op, k, t.dim(),
                        ref->dim());
    for (ssize_t i = 0; i < t.dim(); ++i) {
      ET_KERNEL_CHECK_MSG(ctx, i == d || t.sizes()[i] == shape[i], InvalidArgument, out,
                          "%s: argument 'tensors'[%zu] size %d at dim %zd does not match %lld", op,
                          k, t.sizes()[i], i, static_cast<long long>(shape[i]));
    }
    ET_KERNEL_CHECK_MSG(ctx, checked_add(total, t.sizes()[d], &total), InvalidArgument, out,
                        "%s: the concatenated length overflows int64 at 'tensors'[%zu]", op, k);
  }
  // Checked against the dim limit by the int64 resize, not cut to int32.
  shape[d] = total;
  if (!resize_out(ctx, op, out, ArrayRef<int64_t>(shape, static_cast<size_t>(ref->dim())))) {
    return out;
  }
  const int64_t es = out.element_size();
  int64_t ds[kMaxDim];
  strides64(out, ds);
  int64_t at = 0;
  for (const Tensor& t : tensors) {
    if (cat_skip(t, ref->dim())) {
      continue;
    }
    char* dst = static_cast<char*>(out.mutable_data_ptr()) + at * ds[d] * es;
    if (t.scalar_type() != out.scalar_type()) {
      // The out's slice for t as a tensor of its own (t's sizes, out's strides).
      SizesType sizes[kMaxDim];
      DimOrderType order[kMaxDim];
      StridesType strides[kMaxDim];
      for (ssize_t i = 0; i < t.dim(); ++i) {
        sizes[i] = t.sizes()[i];
        order[i] = out.dim_order()[i];
        strides[i] = out.strides()[i];
      }
      ::executorch::aten::TensorImpl slice(out.scalar_type(), t.dim(), sizes, dst, order, strides);
      if (!copy_convert(ctx, op, t, Tensor(&slice))) {
        return out;
      }
    } else {
      int64_t sizes[kMaxDim], ss[kMaxDim];
      sizes64(t, sizes);
      strides64(t, ss);
      strided_copy(static_cast<int>(t.dim()), sizes, out.dim_order().data(), dst, ds,
                   t.const_data_ptr(), ss, static_cast<size_t>(es));
    }
    at += t.sizes()[d];
  }
  return out;
}

Tensor& stack_out(KernelRuntimeContext& ctx, TensorList tensors, int64_t dim, Tensor& out) {
  const char* op = log_name(stack_out_name);
  ET_KERNEL_CHECK_MSG(ctx, tensors.size() > 0, InvalidArgument, out,
                      "%s: argument 'tensors' is empty", op);
  const Tensor& ref = tensors[0];
  int64_t d;
  if (!normalize_dim(ctx, op, "dim", dim, ref.dim() + 1, &d)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, ref.dim() + 1 <= static_cast<ssize_t>(kMaxDim), InvalidArgument, out,
                      "%s: stacking rank-%zd tensors gives a rank above the limit %zu", op,
                      ref.dim(), kMaxDim);
  int64_t shape[kMaxDim];
  for (ssize_t i = 0, j = 0; i <= ref.dim(); ++i) {
    shape[i] = i == d ? static_cast<int64_t>(tensors.size()) : ref.sizes()[j++];
  }
  for (size_t k = 0; k < tensors.size(); ++k) {
    ET_KERNEL_CHECK_MSG(ctx, tensors[k].scalar_type() == out.scalar_type(), InvalidArgument, out,
                        "%s: argument 'tensors'[%zu] has dtype %s, out has %s", op, k,
                        dtype_name(tensors[k].scalar_type()), dtype_name(out.scalar_type()));
    ET_KERNEL_CHECK_MSG(ctx, tensors[k].sizes() == ref.sizes(), InvalidArgument, out,
                        "%s: argument 'tensors'[%zu] has a different shape", op, k);
  }
  if (!resize_out(ctx, op, out, ArrayRef<int64_t>(shape, static_cast<size_t>(ref.dim() + 1)))) {
    return out;
  }
  const int64_t es = out.element_size();
  int64_t ds_full[kMaxDim];
  strides64(out, ds_full);
  int64_t ds[kMaxDim];
  DimOrderType order[kMaxDim];
  for (ssize_t i = 0, j = 0; i <= ref.dim(); ++i) {
    if (i != d) {
      ds[j++] = ds_full[i];
    }
  }
  // Walk order: out's dim order with the stacked dim removed.
  for (ssize_t i = 0, j = 0; i <= ref.dim(); ++i) {
    const int64_t o = out.dim_order()[i];
    if (o != d) {
      order[j++] = static_cast<DimOrderType>(o > d ? o - 1 : o);
    }
  }
  for (size_t k = 0; k < tensors.size(); ++k) {
    const Tensor& t = tensors[k];
    int64_t sizes[kMaxDim], ss[kMaxDim];
    sizes64(t, sizes);
    strides64(t, ss);
    strided_copy(
        static_cast<int>(t.dim()), sizes, order,
        static_cast<char*>(out.mutable_data_ptr()) + static_cast<int64_t>(k) * ds_full[d] * es, ds,
        t.const_data_ptr(), ss, static_cast<size_t>(es));
  }
  return out;
}

// Splits self along dim into outs of the given sizes.
void split_impl(const char* op, KernelRuntimeContext& ctx, const Tensor& self, const int64_t* sizes,
                size_t n, int64_t dim, TensorList out) {
  int64_t d;
  ET_KERNEL_CHECK_MSG(ctx, self.dim() > 0, InvalidArgument, ,
                      "%s: argument 'self' must have rank >= 1", op);
  if (!normalize_dim(ctx, op, "dim", dim, self.dim(), &d)) {
    return;
  }
  ET_KERNEL_CHECK_MSG(ctx, out.size() == n, InvalidArgument, ,
                      "%s: argument 'out' has %zu tensors, expected %zu", op, out.size(), n);
  int64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    ET_KERNEL_CHECK_MSG(ctx, sizes[i] >= 0, InvalidArgument, , "%s: split size %lld is negative",
                        op, static_cast<long long>(sizes[i]));
    // A wrapped sum could equal the real length and let huge sizes through.
    ET_KERNEL_CHECK_MSG(ctx, checked_add(total, sizes[i], &total), InvalidArgument, ,
                        "%s: split sizes overflow int64 at entry %zu", op, i);
  }
  ET_KERNEL_CHECK_MSG(ctx, total == self.size(d), InvalidArgument, ,
                      "%s: split sizes sum to %lld but dim %lld of 'self' has size %zd", op,
                      static_cast<long long>(total), static_cast<long long>(d), self.size(d));
  int64_t at = 0;
  for (size_t i = 0; i < n; ++i) {
    const Tensor& o = out[i];
    ET_KERNEL_CHECK_MSG(ctx, o.scalar_type() == self.scalar_type(), InvalidArgument, ,
                        "%s: argument 'out'[%zu] has dtype %s, expected %s", op, i,
                        dtype_name(o.scalar_type()), dtype_name(self.scalar_type()));
    if (!resize_with_dim(ctx, op, self, d, sizes[i], o)) {
      return;
    }
    copy_slice(self, d, at, 1, o);
    at += sizes[i];
  }
}

void split_with_sizes_copy_out(KernelRuntimeContext& ctx, const Tensor& self,
                               ArrayRef<int64_t> split_sizes, int64_t dim, TensorList out) {
  split_impl(log_name(split_with_sizes_copy_out_name), ctx, self, split_sizes.data(),
             split_sizes.size(), dim, out);
}

void split_copy_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t split_size,
                           int64_t dim, TensorList out) {
  const char* op = log_name(split_copy_tensor_out_name);
  int64_t d;
  ET_KERNEL_CHECK_MSG(ctx, self.dim() > 0, InvalidArgument, ,
                      "%s: argument 'self' must have rank >= 1", op);
  if (!normalize_dim(ctx, op, "dim", dim, self.dim(), &d)) {
    return;
  }
  const int64_t len = self.size(d);
  ET_KERNEL_CHECK_MSG(ctx, split_size > 0 || (split_size == 0 && len == 0), InvalidArgument, ,
                      "%s: argument 'split_size' must be positive", op);
  const size_t n = out.size();
  ET_KERNEL_CHECK_MSG(ctx, n <= 4096, InvalidArgument, , "%s: too many splits", op);
  int64_t sizes[4096];
  int64_t rem = len;
  for (size_t i = 0; i < n; ++i) {
    sizes[i] = rem < split_size ? rem : split_size;
    rem -= sizes[i];
  }
  split_impl(op, ctx, self, sizes, n, d, out);
}

void unbind_copy_int_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                         TensorList out) {
  const char* op = log_name(unbind_copy_int_out_name);
  int64_t d;
  ET_KERNEL_CHECK_MSG(ctx, self.dim() > 0, InvalidArgument, ,
                      "%s: argument 'self' must have rank >= 1", op);
  if (!normalize_dim(ctx, op, "dim", dim, self.dim(), &d)) {
    return;
  }
  ET_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(out.size()) == self.size(d), InvalidArgument, ,
                      "%s: argument 'out' has %zu tensors, dim has size %zd", op, out.size(),
                      self.size(d));
  for (size_t i = 0; i < out.size(); ++i) {
    Tensor& o = const_cast<Tensor&>(out[i]);
    select_copy_out(ctx, self, d, static_cast<int64_t>(i), o);
    if (ctx.failure_state() != Error::Ok) {
      return;
    }
  }
}

Tensor& constant_pad_nd_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> pad,
                            const Scalar& value, Tensor& out) {
  const char* op = log_name(constant_pad_nd_out_name);
  if (!same_dtype_out(ctx, op, self, out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(
      ctx, pad.size() % 2 == 0 && static_cast<ssize_t>(pad.size() / 2) <= self.dim(),
      InvalidArgument, out, "%s: argument 'pad' must have an even length of at most 2 * rank", op);
  const ssize_t r = self.dim();
  int64_t lo[kMaxDim] = {0}, hi[kMaxDim] = {0};
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    lo[r - 1 - static_cast<ssize_t>(i)] = pad[2 * i];
    hi[r - 1 - static_cast<ssize_t>(i)] = pad[2 * i + 1];
  }
  int64_t shape[kMaxDim];
  for (ssize_t i = 0; i < r; ++i) {
    // A negative pad crops at most the whole dim and a positive one adds at
    // most a dim's worth: with both bounded no sum or offset below can wrap.
    const int64_t len = self.sizes()[i];
    ET_KERNEL_CHECK_MSG(
        ctx, lo[i] >= -len && lo[i] <= kMaxDimSize && hi[i] >= -len && hi[i] <= kMaxDimSize,
        InvalidArgument, out,
        "%s: argument 'pad' (%lld, %lld) is out of range for dim %zd of size %lld", op,
        static_cast<long long>(lo[i]), static_cast<long long>(hi[i]), i,
        static_cast<long long>(len));
    shape[i] = len + lo[i] + hi[i];
    ET_KERNEL_CHECK_MSG(ctx, shape[i] >= 0, InvalidArgument, out,
                        "%s: argument 'pad' makes dim %zd negative", op, i);
  }
  if (!resize_out(ctx, op, out, ArrayRef<int64_t>(shape, static_cast<size_t>(r)))) {
    return out;
  }
  dispatch_dtype<dtypes::kRealHBBF16>(ctx, op, out.scalar_type(), [&](auto tag) {
    using CTYPE = typename decltype(tag)::type;
    const CTYPE v = scalar_to<CTYPE>(value);
    CTYPE* o = out.mutable_data_ptr<CTYPE>();
    for (ssize_t i = 0; i < out.numel(); ++i) {
      o[i] = v;
    }
  });
  if (ctx.failure_state() != Error::Ok) {
    return out;
  }
  int64_t sizes[kMaxDim], ss[kMaxDim], ds[kMaxDim];
  int64_t src = 0, dst = 0;
  for (ssize_t i = 0; i < r; ++i) {
    const int64_t cut_lo = lo[i] < 0 ? -lo[i] : 0, cut_hi = hi[i] < 0 ? -hi[i] : 0;
    sizes[i] = self.sizes()[i] - cut_lo - cut_hi;
    if (sizes[i] <= 0) {
      return out;
    }
    ss[i] = self.strides()[i];
    ds[i] = out.strides()[i];
    src += cut_lo * ss[i];
    dst += (lo[i] > 0 ? lo[i] : 0) * ds[i];
  }
  const int64_t es = out.element_size();
  strided_copy(static_cast<int>(r), sizes, out.dim_order().data(),
               static_cast<char*>(out.mutable_data_ptr()) + dst * es, ds,
               static_cast<const char*>(self.const_data_ptr()) + src * es, ss,
               static_cast<size_t>(es));
  return out;
}

Tensor& repeat_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> repeats,
                   Tensor& out) {
  const char* op = log_name(repeat_out_name);
  if (!same_dtype_out(ctx, op, self, out)) {
    return out;
  }
  const ssize_t n = static_cast<ssize_t>(repeats.size());
  ET_KERNEL_CHECK_MSG(ctx, n >= self.dim() && n <= static_cast<ssize_t>(kMaxDim), InvalidArgument,
                      out, "%s: argument 'repeats' must have at least rank(self) entries", op);
  const ssize_t lead = n - self.dim();
  int64_t shape[kMaxDim];
  for (ssize_t i = 0; i < n; ++i) {
    ET_KERNEL_CHECK_MSG(ctx, repeats[i] >= 0, InvalidArgument, out,
                        "%s: argument 'repeats' has a negative entry", op);
    // A wrapped product could match out's size while the tile loop below
    // still runs `repeats` times.
    ET_KERNEL_CHECK_MSG(
        ctx, checked_mul(repeats[i], i < lead ? 1 : self.sizes()[i - lead], &shape[i]),
        InvalidArgument, out, "%s: argument 'repeats' entry %zd (%lld) overflows the output size",
        op, i, static_cast<long long>(repeats[i]));
  }
  if (!resize_out(ctx, op, out, ArrayRef<int64_t>(shape, static_cast<size_t>(n)))) {
    return out;
  }
  if (out.numel() == 0) {
    return out;
  }
  // Iterate over every repeat tile: out[tile + j] = self[j]. out is not
  // empty, so the tile count is at most its (resized, checked) numel.
  int64_t tiles = 1;
  for (ssize_t i = 0; i < n; ++i) {
    tiles *= repeats[i];
  }
  int64_t sizes[kMaxDim], ss[kMaxDim], ds[kMaxDim];
  for (ssize_t i = 0; i < n; ++i) {
    sizes[i] = i < lead ? 1 : self.sizes()[i - lead];
    ss[i] = i < lead ? 0 : self.strides()[i - lead];
    ds[i] = out.strides()[i];
  }
  const int64_t es = out.element_size();
  int64_t idx[kMaxDim] = {0};
  for (int64_t t = 0; t < tiles; ++t) {
    int64_t off = 0;
    for (ssize_t i = 0; i < n; ++i) {
      off += idx[i] * sizes[i] * ds[i];
    }
    strided_copy(static_cast<int>(n), sizes, out.dim_order().data(),
                 static_cast<char*>(out.mutable_data_ptr()) + off * es, ds, self.const_data_ptr(),
                 ss, static_cast<size_t>(es));
    for (ssize_t i = n - 1; i >= 0; --i) {
      if (++idx[i] < repeats[i]) {
        break;
      }
      idx[i] = 0;
    }
  }
  return out;
}

}  // namespace

ETK_REGISTER_KERNEL(view_copy_out_name, view_copy_out);
ETK_REGISTER_KERNEL(permute_copy_out_name, permute_copy_out);
ETK_REGISTER_KERNEL(transpose_copy_out_name, transpose_copy_out);
ETK_REGISTER_KERNEL(t_copy_out_name, t_copy_out);
ETK_REGISTER_KERNEL(expand_copy_out_name, expand_copy_out);
ETK_REGISTER_KERNEL(slice_copy_out_name, slice_copy_out);
ETK_REGISTER_KERNEL(narrow_copy_out_name, narrow_copy_out);
ETK_REGISTER_KERNEL(select_copy_out_name, select_copy_out);
ETK_REGISTER_KERNEL(squeeze_copy_dims_out_name, squeeze_copy_dims_out);
ETK_REGISTER_KERNEL(squeeze_copy_dim_out_name, squeeze_copy_dim_out);
ETK_REGISTER_KERNEL(squeeze_copy_out_name, squeeze_copy_out);
ETK_REGISTER_KERNEL(unsqueeze_copy_out_name, unsqueeze_copy_out);
ETK_REGISTER_KERNEL(cat_out_name, cat_out);
ETK_REGISTER_KERNEL(stack_out_name, stack_out);
ETK_REGISTER_KERNEL(split_with_sizes_copy_out_name, split_with_sizes_copy_out);
ETK_REGISTER_KERNEL(split_copy_tensor_out_name, split_copy_tensor_out);
ETK_REGISTER_KERNEL(unbind_copy_int_out_name, unbind_copy_int_out);
ETK_REGISTER_KERNEL(constant_pad_nd_out_name, constant_pad_nd_out);
ETK_REGISTER_KERNEL(repeat_out_name, repeat_out);

}  // namespace kernels
}  // namespace executorch
