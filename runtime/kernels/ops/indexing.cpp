/*
 * Indexing kernels: embedding.out, gather.out, index_select.out,
 * index.Tensor_out and index_put.out / index_put_ (advanced indexing with
 * None entries, int64/int32 index tensors broadcast together, bool/uint8
 * masks, adjacent or separated indexed dims). Data is moved with strided
 * memcpy runs, so every dtype works; indices are bounds-checked (negative
 * values wrap) and a bad index fails the context.
 */
#include <cstring>
#include <vector>

#include <executorch/runtime/kernels/detail/shape_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(embedding_out_name, "aten::embedding.out");
ET_DEFINE_OPERATOR_NAME(gather_out_name, "aten::gather.out");
ET_DEFINE_OPERATOR_NAME(index_select_out_name, "aten::index_select.out");
ET_DEFINE_OPERATOR_NAME(index_tensor_out_name, "aten::index.Tensor_out");
ET_DEFINE_OPERATOR_NAME(index_put_out_name, "aten::index_put.out");
ET_DEFINE_OPERATOR_NAME(index_put_inplace_name, "aten::index_put_");

using std::optional;

bool wrap_index(KernelRuntimeContext& ctx, const char* op, const char* arg, int64_t v, int64_t n,
                int64_t* out) {
  const int64_t w = v < 0 ? v + n : v;
  if (w < 0 || w >= n) {
    ET_LOG(Error, "%s: argument '%s' has index %lld out of range for size %lld", op, arg,
           static_cast<long long>(v), static_cast<long long>(n));
    ctx.fail(Error::InvalidArgument);
    return false;
  }
  *out = w;
  return true;
}

Tensor& embedding_out(KernelRuntimeContext& ctx, const Tensor& weight, const Tensor& indices,
                      int64_t padding_idx, bool scale_grad_by_freq, bool sparse, Tensor& out) {
  (void)padding_idx;
  (void)scale_grad_by_freq;
  (void)sparse;
  const char* op = log_name(embedding_out_name);
  if (!check_rank(ctx, op, "weight", weight, 2) ||
      !check_same_dtype(ctx, op, "weight", weight, "out", out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, is_index_dtype(indices.scalar_type()), InvalidArgument, out,
                      "%s: argument 'indices' must be int64 or int32, got %s", op,
                      dtype_name(indices.scalar_type()));
  ET_KERNEL_CHECK_MSG(ctx, indices.dim() + 1 <= static_cast<ssize_t>(kMaxDim), InvalidArgument, out,
                      "%s: rank too large", op);
  SizesType shape[kMaxDim];
  for (ssize_t i = 0; i < indices.dim(); ++i) {
    shape[i] = indices.sizes()[i];
  }
  shape[indices.dim()] = weight.sizes()[1];
  if (!resize_out(ctx, op, out,
                  ArrayRef<SizesType>(shape, static_cast<size_t>(indices.dim() + 1)))) {
    return out;
  }
  const int64_t rows = weight.size(0), d = weight.size(1);
  const int64_t es = out.element_size();
  const bool fast = is_contiguous_dim_order(weight) && is_contiguous_dim_order(out);
  const char* w = static_cast<const char*>(weight.const_data_ptr());
  char* o = static_cast<char*>(out.mutable_data_ptr());
  const int64_t n = indices.numel();
  for (int64_t i = 0; i < n; ++i) {
    int64_t r;
    if (!wrap_index(ctx, op, "indices",
                    load_index(indices.const_data_ptr(), indices.scalar_type(),
                               logical_to_offset(indices, i)),
                    rows, &r)) {
      return out;
    }
    if (fast) {
      std::memcpy(o + i * d * es, w + r * d * es, static_cast<size_t>(d * es));
    } else {
      for (int64_t j = 0; j < d; ++j) {
        std::memcpy(o + logical_to_offset(out, i * d + j) * es,
                    w + (r * weight.strides()[0] + j * weight.strides()[1]) * es,
                    static_cast<size_t>(es));
      }
    }
  }
  return out;
}

Tensor& gather_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                   bool sparse_grad, Tensor& out) {
  (void)sparse_grad;
  const char* op = log_name(gather_out_name);
  int64_t d;
  if (!check_same_dtype(ctx, op, "self", self, "out", out) ||
      !check_dtype(ctx, op, "index", index, ScalarType::Long) ||
      !normalize_dim(ctx, op, "dim", dim, self.dim(), &d)) {
    return out;
  }
  const ssize_t r = self.dim() == 0 ? 1 : self.dim();
  ET_KERNEL_CHECK_MSG(ctx, index.dim() == self.dim() || (index.dim() <= 1 && self.dim() <= 1),
                      InvalidArgument, out,
                      "%s: argument 'index' must have the rank of 'self' (%zd), got %zd", op,
                      self.dim(), index.dim());
  for (ssize_t i = 0; i < index.dim() && self.dim() > 0; ++i) {
    ET_KERNEL_CHECK_MSG(ctx, i == d || index.sizes()[i] <= self.sizes()[i], InvalidArgument, out,
                        "%s: argument 'index' size %d at dim %zd exceeds 'self' size %d", op,
                        index.sizes()[i], i, self.sizes()[i]);
  }
  if (!resize_out_like(ctx, op, out, index)) {
    return out;
  }
  const int64_t es = out.element_size();
  const int64_t n = index.numel();
  const int64_t len = self.dim() == 0 ? 1 : self.size(d);
  const int64_t sd = self.dim() == 0 ? 1 : self.strides()[d];
  const char* x = static_cast<const char*>(self.const_data_ptr());
  char* y = static_cast<char*>(out.mutable_data_ptr());
  const int64_t* ix = index.const_data_ptr<int64_t>();
  int64_t coord[kMaxDim] = {0};
  for (int64_t i = 0; i < n; ++i) {
    int64_t ioff = 0, ooff = 0, soff = 0;
    for (ssize_t k = 0; k < index.dim(); ++k) {
      ioff += coord[k] * index.strides()[k];
      ooff += coord[k] * out.strides()[k];
      if (k != d) {
        soff += coord[k] * self.strides()[k];
      }
    }
    int64_t v;
    if (!wrap_index(ctx, op, "index", ix[ioff], len, &v)) {
      return out;
    }
    std::memcpy(y + ooff * es, x + (soff + v * sd) * es, static_cast<size_t>(es));
    for (ssize_t k = index.dim() - 1; k >= 0; --k) {
      if (++coord[k] < index.sizes()[k]) {
        break;
      }
      coord[k] = 0;
    }
  }
  (void)r;
  return out;
}

Tensor& index_select_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                         const Tensor& index, Tensor& out) {
  const char* op = log_name(index_select_out_name);
  int64_t d;
  if (!check_same_dtype(ctx, op, "self", self, "out", out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, is_index_dtype(index.scalar_type()), InvalidArgument, out,
                      "%s: argument 'index' must be int64 or int32", op);
  ET_KERNEL_CHECK_MSG(ctx, index.dim() <= 1, InvalidArgument, out,
                      "%s: argument 'index' must have rank <= 1", op);
  if (!normalize_dim(ctx, op, "dim", dim, self.dim(), &d)) {
    return out;
  }
  if (self.dim() == 0) {
    if (!resize_out_like(ctx, op, out, self)) {
      return out;
    }
    int64_t v;
    if (index.numel() != 1 ||
        !wrap_index(ctx, op, "index", load_index(index.const_data_ptr(), index.scalar_type(), 0), 1,
                    &v)) {
      fail(ctx, Error::InvalidArgument, op, "argument 'index' must hold one valid index");
      return out;
    }
    copy_logical_order(self, out);
    return out;
  }
  SizesType shape[kMaxDim];
  int64_t sizes[kMaxDim], ss[kMaxDim], ds[kMaxDim];
  for (ssize_t i = 0; i < self.dim(); ++i) {
    shape[i] = i == d ? static_cast<SizesType>(index.numel()) : self.sizes()[i];
  }
  if (!resize_out(ctx, op, out, ArrayRef<SizesType>(shape, static_cast<size_t>(self.dim())))) {
    return out;
  }
  int m = 0;
  for (ssize_t i = 0; i < self.dim(); ++i) {
    if (i != d) {
      sizes[m] = self.sizes()[i];
      ss[m] = self.strides()[i];
      ds[m] = out.strides()[i];
      ++m;
    }
  }
  const int64_t es = out.element_size();
  for (int64_t i = 0; i < index.numel(); ++i) {
    int64_t v;
    if (!wrap_index(ctx, op, "index",
                    load_index(index.const_data_ptr(), index.scalar_type(),
                               index.dim() == 0 ? 0 : i * index.strides()[0]),
                    self.size(d), &v)) {
      return out;
    }
    strided_copy(m, sizes, nullptr,
                 static_cast<char*>(out.mutable_data_ptr()) + i * out.strides()[d] * es, ds,
                 static_cast<const char*>(self.const_data_ptr()) + v * self.strides()[d] * es, ss,
                 static_cast<size_t>(es));
  }
  return out;
}

// ---------------------------------------------------------------------------
// Advanced indexing

// One index array, addressed by broadcast strides over the common shape.
struct IndexArr {
  const void* data;
  ScalarType dtype;
  int rank;
  int64_t sizes[kMaxDim];
  int64_t strides[kMaxDim];
  int self_dim;  // the dim of self it indexes
};

struct AdvIndex {
  std::vector<std::vector<int64_t>> mask_storage;
  IndexArr arr[kMaxDim];
  int n = 0;
  int brank = 0;
  int64_t bshape[kMaxDim];
  bool indexed[kMaxDim] = {false};
  bool adjacent = true;
  int first = 0;  // first indexed dim of self
  // Output layout: out dim of each B dim starts at bpos; rest dims of self.
  int bpos = 0;
  int nrest = 0;
  int rest_self[kMaxDim];  // self dim of each rest dim
  int rest_out[kMaxDim];   // out dim of each rest dim
  int out_rank = 0;
  int64_t out_shape[kMaxDim];
};

bool build_index(KernelRuntimeContext& ctx, const char* op, const Tensor& self,
                 ArrayRef<optional<Tensor>> indices, AdvIndex* a) {
  const int rank = static_cast<int>(self.dim());
  int pos = 0;
  for (size_t k = 0; k < indices.size(); ++k) {
    if (!indices[k].has_value()) {
      ++pos;
      continue;
    }
    const Tensor& t = *indices[k];
    const ScalarType dt = t.scalar_type();
    if (dt == ScalarType::Bool || dt == ScalarType::Byte) {
      const int m = static_cast<int>(t.dim());
      ET_KERNEL_CHECK_MSG(ctx, pos + m <= rank, InvalidArgument, false,
                          "%s: argument 'indices'[%zu] (mask) has too many dims", op, k);
      for (int j = 0; j < m; ++j) {
        ET_KERNEL_CHECK_MSG(
            ctx, t.sizes()[j] == self.sizes()[pos + j], InvalidArgument, false,
            "%s: argument 'indices'[%zu] mask shape does not match 'self' at dim %d", op, k,
            pos + j);
      }
      std::vector<std::vector<int64_t>> cols(static_cast<size_t>(m));
      const uint8_t* md = static_cast<const uint8_t*>(t.const_data_ptr());
      for (int64_t i = 0; i < t.numel(); ++i) {
        if (md[logical_to_offset(t, i)] != 0) {
          int64_t rem = i;
          for (int j = m - 1; j >= 0; --j) {
            cols[j].push_back(rem % t.sizes()[j]);
            rem /= t.sizes()[j];
          }
        }
      }
      if (m == 0) {  // 0-dim mask: adds a dim of size 0 or 1 (not supported: rare)
        return fail(ctx, Error::NotSupported, op, "0-dim boolean index is not supported");
      }
      for (int j = 0; j < m; ++j) {
        a->mask_storage.push_back(std::move(cols[j]));
        IndexArr& ia = a->arr[a->n++];
        ia.data = a->mask_storage.back().data();
        ia.dtype = ScalarType::Long;
        ia.rank = 1;
        ia.sizes[0] = static_cast<int64_t>(a->mask_storage.back().size());
        ia.strides[0] = 1;
        ia.self_dim = pos + j;
      }
      pos += m;
      continue;
    }
    ET_KERNEL_CHECK_MSG(ctx, is_index_dtype(dt), InvalidArgument, false,
                        "%s: argument 'indices'[%zu] must be int64, int32, bool or uint8, got %s",
                        op, k, dtype_name(dt));
    ET_KERNEL_CHECK_MSG(ctx, pos < rank, InvalidArgument, false,
                        "%s: argument 'indices' has more entries than dims", op);
    IndexArr& ia = a->arr[a->n++];
    ia.data = t.const_data_ptr();
    ia.dtype = dt;
    ia.rank = static_cast<int>(t.dim());
    for (int j = 0; j < ia.rank; ++j) {
      ia.sizes[j] = t.sizes()[j];
      ia.strides[j] = t.strides()[j];
    }
    ia.self_dim = pos;
    ++pos;
  }
  ET_KERNEL_CHECK_MSG(ctx, pos <= rank, InvalidArgument, false,
                      "%s: argument 'indices' has more entries than dims", op);
  ET_KERNEL_CHECK_MSG(ctx, a->n > 0, InvalidArgument, false,
                      "%s: argument 'indices' has no index tensor", op);
  // Broadcast shape of the index arrays.
  a->brank = 0;
  for (int i = 0; i < a->n; ++i) {
    a->brank = a->arr[i].rank > a->brank ? a->arr[i].rank : a->brank;
  }
  for (int j = 0; j < a->brank; ++j) {
    a->bshape[j] = 1;
  }
  for (int i = 0; i < a->n; ++i) {
    const IndexArr& ia = a->arr[i];
    for (int j = 0; j < ia.rank; ++j) {
      int64_t& b = a->bshape[a->brank - ia.rank + j];
      if (ia.sizes[j] != 1) {
        ET_KERNEL_CHECK_MSG(ctx, b == 1 || b == ia.sizes[j], InvalidArgument, false,
                            "%s: argument 'indices' shapes do not broadcast together", op);
        b = ia.sizes[j];
      }
    }
  }
  // Right-align every array's strides to the broadcast rank (0 where broadcast).
  for (int i = 0; i < a->n; ++i) {
    IndexArr& ia = a->arr[i];
    int64_t st[kMaxDim];
    for (int j = 0; j < a->brank; ++j) {
      const int src = j - (a->brank - ia.rank);
      st[j] = (src < 0 || ia.sizes[src] == 1) ? 0 : ia.strides[src];
    }
    for (int j = 0; j < a->brank; ++j) {
      ia.strides[j] = st[j];
    }
    a->indexed[ia.self_dim] = true;
  }
  int first = -1, last = -1;
  for (int d = 0; d < rank; ++d) {
    if (a->indexed[d]) {
      first = first < 0 ? d : first;
      last = d;
    }
  }
  a->adjacent = true;
  for (int d = first; d <= last; ++d) {
    a->adjacent = a->adjacent && a->indexed[d];
  }
  a->first = first;
  a->bpos = a->adjacent ? first : 0;
  // The result has the broadcast index dims plus every dim of self that is
  // not indexed; check that rank before filling the [kMaxDim] shape arrays.
  int n_indexed = 0;
  for (int d = 0; d < rank; ++d) {
    n_indexed += a->indexed[d] ? 1 : 0;
  }
  ET_KERNEL_CHECK_MSG(ctx, a->brank + (rank - n_indexed) <= static_cast<int>(kMaxDim),
                      InvalidArgument, false, "%s: the result rank %d exceeds the limit %zu", op,
                      a->brank + (rank - n_indexed), kMaxDim);
  int od = 0;
  if (!a->adjacent) {
    for (int j = 0; j < a->brank; ++j) {
      a->out_shape[od++] = a->bshape[j];
    }
  }
  for (int d = 0; d < rank; ++d) {
    if (a->adjacent && d == first) {
      for (int j = 0; j < a->brank; ++j) {
        a->out_shape[od++] = a->bshape[j];
      }
    }
    if (!a->indexed[d]) {
      a->rest_self[a->nrest] = d;
      a->rest_out[a->nrest] = od;
      ++a->nrest;
      a->out_shape[od++] = self.sizes()[d];
    }
  }
  a->out_rank = od;
  return true;
}

// Calls f(b_index_linear, coord, src_offset_in_self) for every broadcast index position.
template <class F>
bool for_each_index(KernelRuntimeContext& ctx, const char* op, const Tensor& self,
                    const AdvIndex& a, F&& f) {
  const int64_t nb = numel_of(a.bshape, a.brank);
  int64_t coord[kMaxDim] = {0};
  for (int64_t b = 0; b < nb; ++b) {
    int64_t soff = 0;
    for (int i = 0; i < a.n; ++i) {
      const IndexArr& ia = a.arr[i];
      int64_t e = 0;
      for (int j = 0; j < a.brank; ++j) {
        e += coord[j] * ia.strides[j];
      }
      int64_t v;
      if (!wrap_index(ctx, op, "indices", load_index(ia.data, ia.dtype, e),
                      self.sizes()[ia.self_dim], &v)) {
        return false;
      }
      soff += v * self.strides()[ia.self_dim];
    }
    f(coord, soff);
    for (int j = a.brank - 1; j >= 0; --j) {
      if (++coord[j] < a.bshape[j]) {
        break;
      }
      coord[j] = 0;
    }
  }
  return true;
}

Tensor& index_tensor_out(KernelRuntimeContext& ctx, const Tensor& self,
                         ArrayRef<optional<Tensor>> indices, Tensor& out) {
  const char* op = log_name(index_tensor_out_name);
  if (!check_same_dtype(ctx, op, "self", self, "out", out)) {
    return out;
  }
  AdvIndex a;
  if (!build_index(ctx, op, self, indices, &a) ||
      !resize_out(ctx, op, out, ArrayRef<int64_t>(a.out_shape, static_cast<size_t>(a.out_rank)))) {
    return out;
  }
  if (out.numel() == 0) {
    return out;
  }
  int64_t rsizes[kMaxDim], rss[kMaxDim], rds[kMaxDim];
  for (int i = 0; i < a.nrest; ++i) {
    rsizes[i] = self.sizes()[a.rest_self[i]];
    rss[i] = self.strides()[a.rest_self[i]];
    rds[i] = out.strides()[a.rest_out[i]];
  }
  const int64_t es = out.element_size();
  const char* x = static_cast<const char*>(self.const_data_ptr());
  char* y = static_cast<char*>(out.mutable_data_ptr());
  for_each_index(ctx, op, self, a, [&](const int64_t* coord, int64_t soff) {
    int64_t doff = 0;
    for (int j = 0; j < a.brank; ++j) {
      doff += coord[j] * out.strides()[a.bpos + j];
    }
    strided_copy(a.nrest, rsizes, nullptr, y + doff * es, rds, x + soff * es, rss,
                 static_cast<size_t>(es));
  });
  return out;
}

// Writes values (broadcast to the indexed result shape) into dst at the indices.
void index_put_into(KernelRuntimeContext& ctx, const char* op, const Tensor& dst,
                    ArrayRef<optional<Tensor>> indices, const Tensor& values, bool accumulate) {
  AdvIndex a;
  if (!build_index(ctx, op, dst, indices, &a)) {
    return;
  }
  // values broadcast to the result shape: strides per result dim.
  ET_KERNEL_CHECK_MSG(ctx, values.dim() <= a.out_rank, InvalidArgument, ,
                      "%s: argument 'values' has rank %zd, more than the indexed result (%d)", op,
                      values.dim(), a.out_rank);
  int64_t vs[kMaxDim];
  for (int j = 0; j < a.out_rank; ++j) {
    const int src = j - (a.out_rank - static_cast<int>(values.dim()));
    if (src < 0 || values.sizes()[src] == 1) {
      vs[j] = 0;
    } else {
      ET_KERNEL_CHECK_MSG(ctx, values.sizes()[src] == a.out_shape[j], InvalidArgument, ,
                          "%s: argument 'values' does not broadcast to the indexed shape at dim %d",
                          op, j);
      vs[j] = values.strides()[src];
    }
  }
  int64_t rsizes[kMaxDim], rds[kMaxDim], rvs[kMaxDim];
  for (int i = 0; i < a.nrest; ++i) {
    rsizes[i] = dst.sizes()[a.rest_self[i]];
    rds[i] = dst.strides()[a.rest_self[i]];
    rvs[i] = vs[a.rest_out[i]];
  }
  const int64_t es = dst.element_size();
  char* y = static_cast<char*>(dst.mutable_data_ptr());
  const char* v = static_cast<const char*>(values.const_data_ptr());
  if (!accumulate) {
    for_each_index(ctx, op, dst, a, [&](const int64_t* coord, int64_t doff) {
      int64_t voff = 0;
      for (int j = 0; j < a.brank; ++j) {
        voff += coord[j] * vs[a.bpos + j];
      }
      strided_copy(a.nrest, rsizes, nullptr, y + doff * es, rds, v + voff * es, rvs,
                   static_cast<size_t>(es));
    });
    return;
  }
  dispatch_dtype<dtypes::kRealHBBF16>(ctx, op, dst.scalar_type(), [&](auto tag) {
    using CTYPE = typename decltype(tag)::type;
    for_each_index(ctx, op, dst, a, [&](const int64_t* coord, int64_t doff) {
      int64_t voff = 0;
      for (int j = 0; j < a.brank; ++j) {
        voff += coord[j] * vs[a.bpos + j];
      }
      CTYPE* yd = reinterpret_cast<CTYPE*>(y) + doff;
      const CTYPE* vd = reinterpret_cast<const CTYPE*>(v) + voff;
      int64_t idx[kMaxDim] = {0};
      const int64_t n = numel_of(rsizes, a.nrest);
      for (int64_t e = 0; e < n; ++e) {
        int64_t od = 0, ov = 0;
        for (int i = 0; i < a.nrest; ++i) {
          od += idx[i] * rds[i];
          ov += idx[i] * rvs[i];
        }
        if constexpr (std::is_same<CTYPE, bool>::value) {
          yd[od] = yd[od] || vd[ov];
        } else {
          using A = std::conditional_t<
              std::is_integral<CTYPE>::value, int64_t,
              std::conditional_t<std::is_same<CTYPE, double>::value, double, float>>;
          yd[od] = static_cast<CTYPE>(static_cast<A>(yd[od]) + static_cast<A>(vd[ov]));
        }
        for (int i = a.nrest - 1; i >= 0; --i) {
          if (++idx[i] < rsizes[i]) {
            break;
          }
          idx[i] = 0;
        }
      }
    });
  });
}

Tensor& index_put_out(KernelRuntimeContext& ctx, const Tensor& self,
                      ArrayRef<optional<Tensor>> indices, const Tensor& values, bool accumulate,
                      Tensor& out) {
  const char* op = log_name(index_put_out_name);
  if (!check_same_dtype(ctx, op, "self", self, "out", out) ||
      !check_same_dtype(ctx, op, "self", self, "values", values) ||
      !resize_out_like(ctx, op, out, self)) {
    return out;
  }
  if (self.const_data_ptr() != out.const_data_ptr()) {
    if (!copy_strided(ctx, op, self, out)) {
      return out;
    }
  }
  index_put_into(ctx, op, out, indices, values, accumulate);
  return out;
}

Tensor& index_put_inplace(KernelRuntimeContext& ctx, Tensor& self,
                          ArrayRef<optional<Tensor>> indices, const Tensor& values,
                          bool accumulate) {
  const char* op = log_name(index_put_inplace_name);
  if (!check_same_dtype(ctx, op, "self", self, "values", values)) {
    return self;
  }
  index_put_into(ctx, op, self, indices, values, accumulate);
  return self;
}

}  // namespace

ETK_REGISTER_KERNEL(embedding_out_name, embedding_out);
ETK_REGISTER_KERNEL(gather_out_name, gather_out);
ETK_REGISTER_KERNEL(index_select_out_name, index_select_out);
ETK_REGISTER_KERNEL(index_tensor_out_name, index_tensor_out);
ETK_REGISTER_KERNEL(index_put_out_name, index_put_out);
ETK_REGISTER_KERNEL(index_put_inplace_name, index_put_inplace);

}  // namespace kernels
}  // namespace executorch
