/*
 * Broadcasting (NumPy rules, right-aligned; 0-dim tensors broadcast to
 * anything) and strided iteration over an output and its inputs.
 *
 * StridedLoop<N> describes a walk over N operands (operand 0 is the output)
 * in the output's memory order (its dim order), with every input addressed
 * through its own strides (0 along broadcast dims), so contiguous,
 * channels-last and mixed dim orders all work. Adjacent dims that are
 * contiguous for every operand are merged, so same-layout elementwise work
 * becomes one flat run.
 */
#pragma once

#include <algorithm>
#include <cstdint>

#include <executorch/runtime/kernels/compute/parallel.h>
#include <executorch/runtime/kernels/detail/kernel_util.h>

namespace executorch {
namespace kernels {
namespace detail {

/* Whether `from` broadcasts to `to`. */
inline bool broadcastable_to(ArrayRef<SizesType> from, ArrayRef<SizesType> to) {
  if (from.size() > to.size()) {
    return false;
  }
  const size_t off = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] != 1 && from[i] != to[off + i]) {
      return false;
    }
  }
  return true;
}

/*
 * The broadcast shape of a and b into out[kMaxDim]; *out_dim gets its rank.
 * False if the shapes are not broadcastable.
 */
inline bool broadcast_shape(ArrayRef<SizesType> a, ArrayRef<SizesType> b, SizesType* out,
                            size_t* out_dim) {
  const size_t n = a.size() > b.size() ? a.size() : b.size();
  if (n > kMaxDim) {
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    const ssize_t ia =
        static_cast<ssize_t>(a.size()) - static_cast<ssize_t>(n) + static_cast<ssize_t>(i);
    const ssize_t ib =
        static_cast<ssize_t>(b.size()) - static_cast<ssize_t>(n) + static_cast<ssize_t>(i);
    const SizesType sa = ia >= 0 ? a[ia] : 1;
    const SizesType sb = ib >= 0 ? b[ib] : 1;
    if (sa != sb && sa != 1 && sb != 1) {
      return false;
    }
    out[i] = sa == 1 ? sb : sa;
  }
  *out_dim = n;
  return true;
}

/*
 * Computes the broadcast shape of the inputs (1 to 3 tensors; names used in
 * the error log) and resizes out to it.
 */
inline bool resize_out_to_broadcast(KernelRuntimeContext& ctx, const char* op, const Tensor& out,
                                    std::initializer_list<const Tensor*> inputs,
                                    std::initializer_list<const char*> names = {}) {
  SizesType shape[kMaxDim];
  size_t dim = 0;
  bool first = true;
  size_t idx = 0;
  for (const Tensor* t : inputs) {
    if (first) {
      for (ssize_t i = 0; i < t->dim(); ++i) {
        shape[i] = t->sizes()[i];
      }
      dim = static_cast<size_t>(t->dim());
      first = false;
    } else {
      SizesType tmp[kMaxDim];
      size_t tdim = 0;
      if (!broadcast_shape(ArrayRef<SizesType>(shape, dim), t->sizes(), tmp, &tdim)) {
        const char* name = idx < names.size() ? names.begin()[idx] : "input";
        char sa[160], sb[160];
        ET_LOG(Error, "%s: argument '%s' %s does not broadcast with %s", op, name,
               shape_str(t->sizes(), sb, sizeof sb),
               shape_str(ArrayRef<SizesType>(shape, dim), sa, sizeof sa));
        ctx.fail(Error::InvalidArgument);
        return false;
      }
      for (size_t i = 0; i < tdim; ++i) {
        shape[i] = tmp[i];
      }
      dim = tdim;
    }
    ++idx;
  }
  return resize_out(ctx, op, out, ArrayRef<SizesType>(shape, dim));
}

template <size_t N>
struct StridedLoop {
  int ndim = 1;  // >= 1; dim 0 outermost, ndim-1 innermost
  int64_t numel = 0;
  int64_t size[kMaxDim];
  int64_t stride[N][kMaxDim];  // element strides per operand

  /* Whether every operand is a flat contiguous run (stride 1 everywhere). */
  bool flat() const {
    if (ndim != 1) {
      return false;
    }
    for (size_t k = 0; k < N; ++k) {
      if (stride[k][0] != 1 && size[0] > 1) {
        return false;
      }
    }
    return true;
  }
};

/*
 * Low-level planner: the iteration space has `rank` dims of sizes[d]
 * (logical order), walked in the memory order `order` (outermost first, a
 * permutation of 0..rank-1; null means 0..rank-1). strides[k][d] is operand
 * k's element stride along logical dim d (0 to broadcast). Size-1 dims are
 * dropped and dims contiguous for every operand merged.
 */
template <size_t N>
void make_strided_loop_raw(int rank, const int64_t* sizes, const DimOrderType* order,
                           const int64_t (*strides)[kMaxDim], StridedLoop<N>* loop) {
  int64_t sz_[kMaxDim];
  int64_t st_[N][kMaxDim];
  int nd = 0;
  int64_t numel = 1;
  for (int j = 0; j < rank; ++j) {
    const int d = order != nullptr ? static_cast<int>(order[j]) : j;
    numel *= sizes[d];
    if (sizes[d] == 1) {
      continue;
    }
    sz_[nd] = sizes[d];
    for (size_t k = 0; k < N; ++k) {
      st_[k][nd] = strides[k][d];
    }
    ++nd;
  }
  loop->numel = numel;
  if (nd == 0) {
    loop->ndim = 1;
    loop->size[0] = 1;
    for (size_t k = 0; k < N; ++k) {
      loop->stride[k][0] = 1;
    }
    return;
  }
  int m = 0;
  loop->size[0] = sz_[0];
  for (size_t k = 0; k < N; ++k) {
    loop->stride[k][0] = st_[k][0];
  }
  for (int i = 1; i < nd; ++i) {
    bool merge = true;
    for (size_t k = 0; k < N && merge; ++k) {
      merge = loop->stride[k][m] == st_[k][i] * sz_[i];
    }
    if (!merge) {
      ++m;
      loop->size[m] = 1;
    }
    loop->size[m] *= sz_[i];
    for (size_t k = 0; k < N; ++k) {
      loop->stride[k][m] = st_[k][i];
    }
  }
  loop->ndim = m + 1;
}

/*
 * Plans the walk of ops[0] (the output, whose shape is the iteration shape)
 * and ops[1..N-1] (inputs broadcastable to it), in the output's dim order.
 * Returns false if an input does not broadcast to the output (the caller
 * reports it).
 */
template <size_t N>
bool make_strided_loop(const Tensor* const (&ops)[N], StridedLoop<N>* loop) {
  const Tensor& out = *ops[0];
  // Common case first: every input has the output's exact sizes and strides. Tensors are
  // dense, so the whole walk is one contiguous run; planning it costs more than a small op.
  bool same_layout = true;
  for (size_t k = 1; k < N && same_layout; ++k) {
    same_layout = ops[k]->sizes() == out.sizes() && ops[k]->strides() == out.strides();
  }
  if (same_layout) {
    loop->ndim = 1;
    loop->numel = out.numel();
    loop->size[0] = loop->numel;
    for (size_t k = 0; k < N; ++k) {
      loop->stride[k][0] = 1;
    }
    return true;
  }
  const int rank = static_cast<int>(out.dim());
  int64_t sizes[kMaxDim];
  int64_t strides[N][kMaxDim];
  for (size_t k = 1; k < N; ++k) {
    if (!broadcastable_to(ops[k]->sizes(), out.sizes())) {
      return false;
    }
  }
  for (int d = 0; d < rank; ++d) {
    sizes[d] = out.sizes()[d];
    strides[0][d] = out.strides()[d];
    for (size_t k = 1; k < N; ++k) {
      const Tensor& t = *ops[k];
      const int td = d - (rank - static_cast<int>(t.dim()));
      strides[k][d] = (td < 0 || t.sizes()[td] == 1) ? 0 : t.strides()[td];
    }
  }
  make_strided_loop_raw<N>(rank, sizes, out.dim_order().data(), strides, loop);
  return true;
}

/*
 * Calls f(offsets, n, inner_strides) for the elements [begin, end) of the
 * loop (in its logical order), one call per innermost run or part of one:
 * offsets[k] is the element offset of operand k at the start, n the length
 * and inner_strides[k] the element stride of operand k along the run.
 */
template <size_t N, class F>
void for_each_run_in(const StridedLoop<N>& L, int64_t begin, int64_t end, F& f) {
  if (begin >= end) {
    return;
  }
  const int last = L.ndim - 1;
  const int64_t n = L.size[last];
  int64_t inner[N];
  int64_t run_start[N];  // offsets at the start of the current run
  int64_t idx[kMaxDim] = {0};
  int64_t rest = begin / n;
  for (size_t k = 0; k < N; ++k) {
    inner[k] = L.stride[k][last];
    run_start[k] = 0;
  }
  for (int d = last - 1; d >= 0; --d) {
    idx[d] = rest % L.size[d];
    rest /= L.size[d];
    for (size_t k = 0; k < N; ++k) {
      run_start[k] += idx[d] * L.stride[k][d];
    }
  }
  int64_t pos = begin;
  int64_t skip = begin % n;  // elements of the first run before `begin`
  while (pos < end) {
    const int64_t len = std::min(n - skip, end - pos);
    int64_t off[N];
    for (size_t k = 0; k < N; ++k) {
      off[k] = run_start[k] + skip * inner[k];
    }
    f(static_cast<const int64_t*>(off), len, static_cast<const int64_t*>(inner));
    pos += len;
    skip = 0;
    for (int d = last - 1; d >= 0; --d) {
      if (++idx[d] < L.size[d]) {
        for (size_t k = 0; k < N; ++k) {
          run_start[k] += L.stride[k][d];
        }
        break;
      }
      for (size_t k = 0; k < N; ++k) {
        run_start[k] -= L.stride[k][d] * (L.size[d] - 1);
      }
      idx[d] = 0;
    }
  }
}

/* for_each_run_in over the whole loop. */
template <size_t N, class F>
void for_each_run(const StridedLoop<N>& L, F&& f) {
  for_each_run_in(L, 0, L.numel, f);
}

/*
 * for_each_run with the elements split across the thread pool (large loops
 * only): f is called concurrently on disjoint element ranges, so it must
 * write only the elements it is given and compute each one by itself.
 */
template <size_t N, class F>
void parallel_for_each_run(const StridedLoop<N>& L, F&& f) {
  compute::parallel_items(L.numel, 1.0,
                          [&](int64_t begin, int64_t end) { for_each_run_in(L, begin, end, f); });
}

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
