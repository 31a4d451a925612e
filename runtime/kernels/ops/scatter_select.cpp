/*
 * Scatter and data-dependent selection: scatter (src and value overloads),
 * scatter_add, select_scatter, slice_scatter, masked_scatter, masked_select,
 * nonzero, topk and repeat_interleave. Every index is checked against its
 * dim before anything is written through it; outs whose size depends on the
 * data (masked_select, nonzero, repeat_interleave) must be dynamic or
 * already have that size.
 */
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <tuple>
#include <vector>

#include <executorch/runtime/kernels/detail/index_map.h>
#include <executorch/runtime/kernels/detail/shape_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(scatter_src_out_name, "aten::scatter.src_out");
ET_DEFINE_OPERATOR_NAME(scatter_value_out_name, "aten::scatter.value_out");
ET_DEFINE_OPERATOR_NAME(scatter_add_out_name, "aten::scatter_add.out");
ET_DEFINE_OPERATOR_NAME(select_scatter_out_name, "aten::select_scatter.out");
ET_DEFINE_OPERATOR_NAME(slice_scatter_out_name, "aten::slice_scatter.out");
ET_DEFINE_OPERATOR_NAME(masked_scatter_out_name, "aten::masked_scatter.out");
ET_DEFINE_OPERATOR_NAME(masked_select_out_name, "aten::masked_select.out");
ET_DEFINE_OPERATOR_NAME(nonzero_out_name, "aten::nonzero.out");
ET_DEFINE_OPERATOR_NAME(topk_values_name, "aten::topk.values");
ET_DEFINE_OPERATOR_NAME(repeat_interleave_out_name, "aten::repeat_interleave.Tensor_out");

using std::optional;

// out = a copy of self (out resized to self's shape, same dtype).
bool copy_self(KernelRuntimeContext& ctx, const char* op, const Tensor& self, const Tensor& out) {
  return check_dtype_in(ctx, op, "self", self, dtypes::kRealHBBF16) &&
         check_same_dtype(ctx, op, "self", self, "out", out) &&
         resize_out_like(ctx, op, out, self) && copy_strided(ctx, op, self, out);
}

// ---- scatter / scatter_add ------------------------------------------------------

/*
 * Validates dim and index for a scatter into `self` (src may be null for
 * the value overload) and writes the normalized dim. Index values are
 * checked while scattering.
 */
bool check_scatter(KernelRuntimeContext& ctx, const char* op, const Tensor& self, int64_t dim,
                   const Tensor& index, const Tensor* src, int64_t* d) {
  if (!normalize_dim(ctx, op, "dim", dim, self.dim(), d) ||
      !check_dtype(ctx, op, "index", index, ScalarType::Long)) {
    return false;
  }
  if (src != nullptr && !check_same_dtype(ctx, op, "self", self, "src", *src)) {
    return false;
  }
  if (index.numel() == 0) {
    return true;
  }
  ET_KERNEL_CHECK_MSG(ctx, index.dim() == self.dim() || (index.dim() <= 1 && self.dim() <= 1),
                      InvalidArgument, false,
                      "%s: argument 'index' must have the rank of 'self' (%zd), got %zd", op,
                      static_cast<ssize_t>(self.dim()), static_cast<ssize_t>(index.dim()));
  ET_KERNEL_CHECK_MSG(ctx, src == nullptr || src->dim() == index.dim() || src->numel() == 1,
                      InvalidArgument, false,
                      "%s: argument 'src' must have the rank of 'index' (%zd), got %zd", op,
                      static_cast<ssize_t>(index.dim()), static_cast<ssize_t>(src->dim()));
  for (ssize_t k = 0; k < index.dim(); ++k) {
    ET_KERNEL_CHECK_MSG(ctx, k == *d || self.dim() == 0 || index.sizes()[k] <= self.sizes()[k],
                        InvalidArgument, false,
                        "%s: argument 'index' size %d at dim %zd exceeds 'self' size %d", op,
                        index.sizes()[k], k, self.sizes()[k]);
    ET_KERNEL_CHECK_MSG(
        ctx, src == nullptr || src->dim() != index.dim() || index.sizes()[k] <= src->sizes()[k],
        InvalidArgument, false, "%s: argument 'index' size %d at dim %zd exceeds 'src' size %d", op,
        index.sizes()[k], k, src->sizes()[k]);
  }
  return true;
}

/*
 * For every element of index (logical order): f(out_offset, src_offset),
 * the out element index[i] names along dim d and the src element at i.
 * Fails (InvalidArgument) at the first index outside [0, size): nothing is
 * written through it.
 */
template <class F>
bool for_each_scatter(KernelRuntimeContext& ctx, const char* op, const Tensor& out, int64_t d,
                      const Tensor& index, const Tensor* src, F&& f) {
  const int64_t n = index.numel();
  const int64_t len = out.dim() == 0 ? 1 : out.sizes()[d];
  const int64_t sd = out.dim() == 0 ? 1 : out.strides()[d];
  const bool src_scalar = src != nullptr && src->dim() != index.dim();
  const int64_t* ix = index.const_data_ptr<int64_t>();
  int64_t coord[kMaxDim] = {0};
  for (int64_t i = 0; i < n; ++i) {
    int64_t ioff = 0, ooff = 0, soff = 0;
    for (ssize_t k = 0; k < index.dim(); ++k) {
      ioff += coord[k] * index.strides()[k];
      if (k != d && out.dim() > 0) {
        ooff += coord[k] * out.strides()[k];
      }
      if (src != nullptr && !src_scalar) {
        soff += coord[k] * src->strides()[k];
      }
    }
    const int64_t v = ix[ioff];
    ET_KERNEL_CHECK_MSG(ctx, v >= 0 && v < len, InvalidArgument, false,
                        "%s: argument 'index' value %lld is out of range for size %lld", op,
                        static_cast<long long>(v), static_cast<long long>(len));
    f(ooff + v * sd, soff);
    for (ssize_t k = index.dim() - 1; k >= 0; --k) {
      if (++coord[k] < index.sizes()[k]) {
        break;
      }
      coord[k] = 0;
    }
  }
  return true;
}

Tensor& scatter_src_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                        const Tensor& index, const Tensor& src, Tensor& out) {
  const char* op = log_name(scatter_src_out_name);
  int64_t d;
  if (!check_scatter(ctx, op, self, dim, index, &src, &d) || !copy_self(ctx, op, self, out)) {
    return out;
  }
  const size_t es = out.element_size();
  char* y = static_cast<char*>(out.mutable_data_ptr());
  const char* s = static_cast<const char*>(src.const_data_ptr());
  for_each_scatter(ctx, op, out, d, index, &src, [&](int64_t ooff, int64_t soff) {
    std::memcpy(y + ooff * static_cast<int64_t>(es), s + soff * static_cast<int64_t>(es), es);
  });
  return out;
}

Tensor& scatter_value_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                          const Tensor& index, const Scalar& value, Tensor& out) {
  const char* op = log_name(scatter_value_out_name);
  int64_t d;
  if (!check_scatter(ctx, op, self, dim, index, nullptr, &d) || !copy_self(ctx, op, self, out)) {
    return out;
  }
  dispatch_dtype<dtypes::kRealHBBF16>(ctx, op, out.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = scalar_to<T>(value);
    T* y = out.mutable_data_ptr<T>();
    for_each_scatter(ctx, op, out, d, index, nullptr, [&](int64_t ooff, int64_t) { y[ooff] = v; });
  });
  return out;
}

Tensor& scatter_add_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                        const Tensor& index, const Tensor& src, Tensor& out) {
  const char* op = log_name(scatter_add_out_name);
  int64_t d;
  if (!check_scatter(ctx, op, self, dim, index, &src, &d) || !copy_self(ctx, op, self, out)) {
    return out;
  }
  dispatch_dtype<dtypes::kRealHBBF16>(ctx, op, out.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using CT = std::conditional_t<
        std::is_same<T, bool>::value, bool,
        std::conditional_t<std::is_integral<T>::value, int64_t,
                           std::conditional_t<std::is_same<T, double>::value, double, float>>>;
    T* y = out.mutable_data_ptr<T>();
    const T* s = src.const_data_ptr<T>();
    for_each_scatter(ctx, op, out, d, index, &src, [&](int64_t ooff, int64_t soff) {
      if constexpr (std::is_same<CT, bool>::value) {
        y[ooff] = y[ooff] || s[soff];
      } else {
        y[ooff] = cast_value<T>(wrap_add(cast_value<CT>(y[ooff]), cast_value<CT>(s[soff])));
      }
    });
  });
  return out;
}

// ---- select_scatter / slice_scatter ---------------------------------------------

/*
 * Common checks of select_scatter and slice_scatter (src embedded into a
 * copy of self along dim): dtypes, self's rank, the normalized dim.
 */
bool check_embed_args(KernelRuntimeContext& ctx, const char* op, const Tensor& self,
                      const Tensor& src, int64_t dim, const Tensor& out, int64_t* d) {
  if (!check_dtype_in(ctx, op, "self", self, dtypes::kRealHBBF16) ||
      !check_same_dtype(ctx, op, "self", self, "src", src) ||
      !check_same_dtype(ctx, op, "self", self, "out", out)) {
    return false;
  }
  ET_KERNEL_CHECK_MSG(ctx, self.dim() > 0, InvalidArgument, false,
                      "%s: argument 'self' must have rank 1 or more", op);
  return normalize_dim(ctx, op, "dim", dim, self.dim(), d);
}

// out = self with the slice self.select(dim, index) replaced by src.
Tensor& select_scatter_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& src,
                           int64_t dim, int64_t index, Tensor& out) {
  const char* op = log_name(select_scatter_out_name);
  int64_t d;
  if (!check_embed_args(ctx, op, self, src, dim, out, &d)) {
    return out;
  }
  const int64_t len = self.sizes()[d];
  ET_KERNEL_CHECK_MSG(ctx, index >= -len && index < len, InvalidArgument, out,
                      "%s: argument 'index' (%lld) is out of range for size %lld", op,
                      static_cast<long long>(index), static_cast<long long>(len));
  const int64_t at = index < 0 ? index + len : index;
  ET_KERNEL_CHECK_MSG(ctx, src.dim() == self.dim() - 1, InvalidArgument, out,
                      "%s: argument 'src' must have rank %zd, got %zd", op,
                      static_cast<ssize_t>(self.dim() - 1), static_cast<ssize_t>(src.dim()));
  for (ssize_t k = 0, j = 0; k < self.dim(); ++k) {
    if (k != d) {
      ET_KERNEL_CHECK_MSG(ctx, src.sizes()[j] == self.sizes()[k], InvalidArgument, out,
                          "%s: argument 'src' does not have the shape of the selected slice", op);
      ++j;
    }
  }
  if (!resize_out_like(ctx, op, out, self)) {
    return out;
  }
  // Written element by element from self or src, so out may alias self.
  map_elements(out, [&](const int64_t* oi, int64_t* si) {
    if (oi[d] != at) {
      std::copy(oi, oi + self.dim(), si);
      return &self;
    }
    for (ssize_t k = 0, j = 0; k < self.dim(); ++k) {
      if (k != d) {
        si[j++] = oi[k];
      }
    }
    return &src;
  });
  return out;
}

Tensor& slice_scatter_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& src,
                          int64_t dim, optional<int64_t> start, optional<int64_t> end, int64_t step,
                          Tensor& out) {
  const char* op = log_name(slice_scatter_out_name);
  int64_t d;
  if (!check_embed_args(ctx, op, self, src, dim, out, &d)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, step > 0, InvalidArgument, out,
                      "%s: argument 'step' (%lld) must be positive", op,
                      static_cast<long long>(step));
  // Python slice bounds, clamped to [0, len].
  const int64_t len = self.sizes()[d];
  auto clamp_bound = [len](int64_t v) {
    if (v < 0) {
      v = v < -len ? 0 : v + len;
    }
    return v > len ? len : v;
  };
  const int64_t lo = clamp_bound(start.value_or(0));
  const int64_t hi = std::max(lo, clamp_bound(end.value_or(len)));
  const int64_t count = (hi - lo + step - 1) / step;
  ET_KERNEL_CHECK_MSG(ctx, src.dim() == self.dim(), InvalidArgument, out,
                      "%s: argument 'src' must have rank %zd, got %zd", op,
                      static_cast<ssize_t>(self.dim()), static_cast<ssize_t>(src.dim()));
  for (ssize_t k = 0; k < self.dim(); ++k) {
    const int64_t want = k == d ? count : self.sizes()[k];
    ET_KERNEL_CHECK_MSG(ctx, src.sizes()[k] == want, InvalidArgument, out,
                        "%s: argument 'src' has size %d at dim %zd, the slice has %lld", op,
                        src.sizes()[k], k, static_cast<long long>(want));
  }
  if (!resize_out_like(ctx, op, out, self)) {
    return out;
  }
  map_elements(out, [&](const int64_t* oi, int64_t* si) {
    std::copy(oi, oi + self.dim(), si);
    const int64_t rel = oi[d] - lo;
    if (oi[d] < lo || oi[d] >= hi || rel % step != 0) {
      return &self;
    }
    si[d] = rel / step;
    return &src;
  });
  return out;
}

// ---- masked ----------------------------------------------------------------------

/*
 * The broadcast shape of self and mask (rank written to *rank); fails if
 * they do not broadcast.
 */
bool masked_shape(KernelRuntimeContext& ctx, const char* op, const Tensor& self, const Tensor& mask,
                  int64_t* shape, ssize_t* rank) {
  *rank = std::max(self.dim(), mask.dim());
  for (ssize_t k = 0; k < *rank; ++k) {
    const ssize_t ks = k - (*rank - self.dim()), km = k - (*rank - mask.dim());
    const int64_t a = ks >= 0 ? self.sizes()[ks] : 1;
    const int64_t b = km >= 0 ? mask.sizes()[km] : 1;
    ET_KERNEL_CHECK_MSG(ctx, a == b || a == 1 || b == 1, InvalidArgument, false,
                        "%s: arguments 'self' and 'mask' do not broadcast", op);
    shape[k] = a == 1 ? b : a;
  }
  return true;
}

/* Element offset in t of logical index `flat` of the broadcast shape (t broadcasts to it). */
int64_t broadcast_offset(const Tensor& t, const int64_t* shape, ssize_t rank, int64_t flat) {
  int64_t off = 0;
  for (ssize_t k = rank - 1; k >= 0; --k) {
    const int64_t i = flat % shape[k];
    flat /= shape[k];
    const ssize_t kt = k - (rank - t.dim());
    if (kt >= 0 && t.sizes()[kt] != 1) {
      off += i * t.strides()[kt];
    }
  }
  return off;
}

Tensor& masked_scatter_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mask,
                           const Tensor& source, Tensor& out) {
  const char* op = log_name(masked_scatter_out_name);
  int64_t shape[kMaxDim];
  ssize_t rank;
  if (!check_dtype(ctx, op, "mask", mask, ScalarType::Bool) ||
      !check_same_dtype(ctx, op, "self", self, "source", source) ||
      !masked_shape(ctx, op, self, mask, shape, &rank)) {
    return out;
  }
  bool fits = rank == self.dim();
  for (ssize_t k = 0; fits && k < rank; ++k) {
    fits = shape[k] == self.sizes()[k];
  }
  ET_KERNEL_CHECK_MSG(ctx, fits, InvalidArgument, out,
                      "%s: argument 'mask' does not broadcast to the shape of 'self'", op);
  if (!copy_self(ctx, op, self, out)) {
    return out;
  }
  const uint8_t* m = static_cast<const uint8_t*>(mask.const_data_ptr());
  const int64_t total = out.numel();
  // Count first: nothing is written unless source has enough elements.
  int64_t need = 0;
  for (int64_t i = 0; i < total; ++i) {
    need += m[broadcast_offset(mask, shape, rank, i)] != 0 ? 1 : 0;
  }
  ET_KERNEL_CHECK_MSG(ctx, need <= source.numel(), InvalidArgument, out,
                      "%s: the mask selects %lld elements, argument 'source' has %zd", op,
                      static_cast<long long>(need), static_cast<ssize_t>(source.numel()));
  const int64_t es = out.element_size();
  char* y = static_cast<char*>(out.mutable_data_ptr());
  const char* s = static_cast<const char*>(source.const_data_ptr());
  int64_t next = 0;
  for (int64_t i = 0; i < total; ++i) {
    if (m[broadcast_offset(mask, shape, rank, i)] != 0) {
      std::memcpy(y + broadcast_offset(out, shape, rank, i) * es,
                  s + logical_to_offset(source, next++) * es, static_cast<size_t>(es));
    }
  }
  return out;
}

Tensor& masked_select_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mask,
                          Tensor& out) {
  const char* op = log_name(masked_select_out_name);
  if (!check_dtype_in(ctx, op, "self", self, dtypes::kRealHBBF16) ||
      !check_dtype(ctx, op, "mask", mask, ScalarType::Bool) ||
      !check_same_dtype(ctx, op, "self", self, "out", out)) {
    return out;
  }
  int64_t shape[kMaxDim];
  ssize_t rank;
  if (!masked_shape(ctx, op, self, mask, shape, &rank)) {
    return out;
  }
  const int64_t total = numel_of(shape, static_cast<int>(rank));
  const uint8_t* m = static_cast<const uint8_t*>(mask.const_data_ptr());
  int64_t count = 0;
  for (int64_t i = 0; i < total; ++i) {
    count += m[broadcast_offset(mask, shape, rank, i)] != 0 ? 1 : 0;
  }
  const int64_t out_shape[1] = {count};
  if (!resize_out(ctx, op, out, ArrayRef<int64_t>(out_shape, 1))) {
    return out;
  }
  const size_t es = out.element_size();
  const char* x = static_cast<const char*>(self.const_data_ptr());
  char* y = static_cast<char*>(out.mutable_data_ptr());
  int64_t k = 0;
  for (int64_t i = 0; i < total; ++i) {
    if (m[broadcast_offset(mask, shape, rank, i)] != 0) {
      std::memcpy(y + k * out.strides()[0] * static_cast<int64_t>(es),
                  x + broadcast_offset(self, shape, rank, i) * static_cast<int64_t>(es), es);
      ++k;
    }
  }
  return out;
}

// nonzero: the [count, rank] int64 coordinates of the non-zero elements, in logical order.
Tensor& nonzero_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  const char* op = log_name(nonzero_out_name);
  if (!check_dtype_in(ctx, op, "self", self, dtypes::kRealHBBF16) ||
      !check_dtype(ctx, op, "out", out, ScalarType::Long)) {
    return out;
  }
  const int64_t n = self.numel();
  std::vector<int64_t> hits;
  const LoadFn<bool> nonzero = load_fn<bool>(self.scalar_type());
  const char* x = static_cast<const char*>(self.const_data_ptr());
  const int64_t es = self.element_size();
  for (int64_t i = 0; i < n; ++i) {
    if (nonzero(x + logical_to_offset(self, i) * es)) {
      hits.push_back(i);
    }
  }
  const int64_t shape[2] = {static_cast<int64_t>(hits.size()), self.dim()};
  if (!resize_out(ctx, op, out, ArrayRef<int64_t>(shape, 2))) {
    return out;
  }
  int64_t* y = out.mutable_data_ptr<int64_t>();
  for (size_t h = 0; h < hits.size(); ++h) {
    int64_t flat = hits[h];
    for (ssize_t k = self.dim() - 1; k >= 0; --k) {
      const int64_t row = static_cast<int64_t>(h);
      y[row * out.strides()[0] + k * out.strides()[1]] = flat % self.sizes()[k];
      flat /= self.sizes()[k];
    }
  }
  return out;
}

// ---- topk ------------------------------------------------------------------------

/*
 * The k largest (or smallest) elements along dim with their indices,
 * largest first (smallest first) when sorted; NaN counts as larger than
 * every number, as in PyTorch. Equal values keep their original order.
 */
std::tuple<Tensor&, Tensor&> topk_values(KernelRuntimeContext& ctx, const Tensor& self, int64_t k,
                                         int64_t dim, bool largest, bool sorted, Tensor& values,
                                         Tensor& indices) {
  (void)sorted;  // the result is always sorted, which satisfies sorted=False too
  const char* op = log_name(topk_values_name);
  std::tuple<Tensor&, Tensor&> ret(values, indices);
  int64_t d;
  if (!check_dtype_in(ctx, op, "self", self, dtypes::kRealHBF16) ||
      !check_same_dtype(ctx, op, "self", self, "values", values) ||
      !check_dtype(ctx, op, "indices", indices, ScalarType::Long) ||
      !normalize_dim(ctx, op, "dim", dim, self.dim(), &d)) {
    return ret;
  }
  const int64_t len = self.dim() == 0 ? 1 : self.sizes()[d];
  ET_KERNEL_CHECK_MSG(ctx, k >= 0 && k <= len, InvalidArgument, ret,
                      "%s: argument 'k' (%lld) is out of range for size %lld", op,
                      static_cast<long long>(k), static_cast<long long>(len));
  int64_t shape[kMaxDim];
  sizes64(self, shape);
  if (self.dim() > 0) {
    shape[d] = k;
  }
  const ArrayRef<int64_t> out_shape(shape, static_cast<size_t>(self.dim()));
  if (!resize_out(ctx, op, values, out_shape) || !resize_out(ctx, op, indices, out_shape)) {
    return ret;
  }
  if (k == 0 || self.numel() == 0) {
    return ret;
  }
  const int64_t sd = self.dim() == 0 ? 1 : self.strides()[d];
  const int64_t vd = values.dim() == 0 ? 1 : values.strides()[d];
  const int64_t id = indices.dim() == 0 ? 1 : indices.strides()[d];
  dispatch_dtype<dtypes::kRealHBF16>(ctx, op, self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using CT =
        std::conditional_t<std::is_integral<T>::value, int64_t,
                           std::conditional_t<std::is_same<T, double>::value, double, float>>;
    const T* x = self.const_data_ptr<T>();
    T* vo = values.mutable_data_ptr<T>();
    int64_t* io = indices.mutable_data_ptr<int64_t>();
    std::vector<std::pair<CT, int64_t>> row(static_cast<size_t>(len));
    // a before b in the result.
    auto before = [largest](const std::pair<CT, int64_t>& a, const std::pair<CT, int64_t>& b) {
      if constexpr (std::is_floating_point<CT>::value) {
        const bool an = std::isnan(a.first), bn = std::isnan(b.first);
        if (an || bn) {
          return largest ? (an && !bn) : (!an && bn);
        }
      }
      return largest ? a.first > b.first : a.first < b.first;
    };
    // Every slice along d: walk the other dims of self (size 1 along d).
    int64_t coord[kMaxDim] = {0};
    const int64_t slices = self.numel() / len;
    for (int64_t s = 0; s < slices; ++s) {
      int64_t xoff = 0, voff = 0, ioff = 0;
      for (ssize_t j = 0; j < self.dim(); ++j) {
        xoff += coord[j] * self.strides()[j];
        voff += coord[j] * values.strides()[j];
        ioff += coord[j] * indices.strides()[j];
      }
      for (int64_t i = 0; i < len; ++i) {
        row[static_cast<size_t>(i)] = {static_cast<CT>(x[xoff + i * sd]), i};
      }
      std::stable_sort(row.begin(), row.end(), before);
      for (int64_t i = 0; i < k; ++i) {
        vo[voff + i * vd] = static_cast<T>(row[static_cast<size_t>(i)].first);
        io[ioff + i * id] = row[static_cast<size_t>(i)].second;
      }
      for (ssize_t j = self.dim() - 1; j >= 0; --j) {
        if (j == d) {
          continue;
        }
        if (++coord[j] < self.sizes()[j]) {
          break;
        }
        coord[j] = 0;
      }
    }
  });
  return ret;
}

// ---- repeat_interleave -------------------------------------------------------------

// repeat_interleave.Tensor_out(repeats, output_size?): i repeated repeats[i] times.
Tensor& repeat_interleave_out(KernelRuntimeContext& ctx, const Tensor& repeats,
                              optional<int64_t> output_size, Tensor& out) {
  const char* op = log_name(repeat_interleave_out_name);
  ET_KERNEL_CHECK_MSG(ctx, is_index_dtype(repeats.scalar_type()), InvalidArgument, out,
                      "%s: argument 'repeats' must be int64 or int32", op);
  ET_KERNEL_CHECK_MSG(ctx, repeats.dim() <= 1, InvalidArgument, out,
                      "%s: argument 'repeats' must have rank 0 or 1", op);
  if (!check_same_dtype(ctx, op, "repeats", repeats, "out", out)) {
    return out;
  }
  const int64_t n = repeats.numel();
  const void* rp = repeats.const_data_ptr();
  const int64_t rs = repeats.dim() == 0 ? 1 : repeats.strides()[0];
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = load_index(rp, repeats.scalar_type(), i * rs);
    ET_KERNEL_CHECK_MSG(ctx, r >= 0, InvalidArgument, out,
                        "%s: argument 'repeats' has a negative entry %lld", op,
                        static_cast<long long>(r));
    ET_KERNEL_CHECK_MSG(ctx, checked_add(total, r, &total), InvalidArgument, out,
                        "%s: the repeats add up beyond int64", op);
  }
  ET_KERNEL_CHECK_MSG(ctx, !output_size.has_value() || *output_size == total, InvalidArgument, out,
                      "%s: argument 'output_size' (%lld) does not match the repeats' sum %lld", op,
                      static_cast<long long>(output_size.value_or(0)),
                      static_cast<long long>(total));
  const int64_t shape[1] = {total};
  if (!resize_out(ctx, op, out, ArrayRef<int64_t>(shape, 1))) {
    return out;
  }
  const int64_t os = out.strides()[0];
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = load_index(rp, repeats.scalar_type(), i * rs);
    for (int64_t j = 0; j < r; ++j, ++k) {
      if (out.scalar_type() == ScalarType::Long) {
        out.mutable_data_ptr<int64_t>()[k * os] = i;
      } else {
        out.mutable_data_ptr<int32_t>()[k * os] = static_cast<int32_t>(i);
      }
    }
  }
  return out;
}

ETK_REGISTER_KERNEL(scatter_src_out_name, scatter_src_out);
ETK_REGISTER_KERNEL(scatter_value_out_name, scatter_value_out);
ETK_REGISTER_KERNEL(scatter_add_out_name, scatter_add_out);
ETK_REGISTER_KERNEL(select_scatter_out_name, select_scatter_out);
ETK_REGISTER_KERNEL(slice_scatter_out_name, slice_scatter_out);
ETK_REGISTER_KERNEL(masked_scatter_out_name, masked_scatter_out);
ETK_REGISTER_KERNEL(masked_select_out_name, masked_select_out);
ETK_REGISTER_KERNEL(nonzero_out_name, nonzero_out);
ETK_REGISTER_KERNEL(topk_values_name, topk_values);
ETK_REGISTER_KERNEL(repeat_interleave_out_name, repeat_interleave_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
