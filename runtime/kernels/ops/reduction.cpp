/*
 * Reductions over a dim list (none or empty = all dims, negative dims,
 * keepdim): sum.IntList_out, mean.out, mean.dtype_out, amax.out, amin.out,
 * argmax.out, argmin.out, var.correction_out, var.out, var_mean, prod,
 * max/min (dim and unary); and the scan cumsum.out.
 * Any input dim order (addressed by strides); the out dtype is
 * authoritative (sum of bool/int -> int64, float accumulation in double).
 */
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>

#include <executorch/runtime/kernels/compute/parallel.h>
#include <executorch/runtime/kernels/detail/shape_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(sum_intlist_out_name, "aten::sum.IntList_out");
ET_DEFINE_OPERATOR_NAME(mean_out_name, "aten::mean.out");
ET_DEFINE_OPERATOR_NAME(mean_dtype_out_name, "aten::mean.dtype_out");
ET_DEFINE_OPERATOR_NAME(amax_out_name, "aten::amax.out");
ET_DEFINE_OPERATOR_NAME(amin_out_name, "aten::amin.out");
ET_DEFINE_OPERATOR_NAME(argmax_out_name, "aten::argmax.out");
ET_DEFINE_OPERATOR_NAME(argmin_out_name, "aten::argmin.out");
ET_DEFINE_OPERATOR_NAME(var_correction_out_name, "aten::var.correction_out");
ET_DEFINE_OPERATOR_NAME(cumsum_out_name, "aten::cumsum.out");
ET_DEFINE_OPERATOR_NAME(var_out_name, "aten::var.out");
ET_DEFINE_OPERATOR_NAME(var_mean_correction_out_name, "aten::var_mean.correction_out");
ET_DEFINE_OPERATOR_NAME(prod_out_name, "aten::prod.out");
ET_DEFINE_OPERATOR_NAME(prod_int_out_name, "aten::prod.int_out");
ET_DEFINE_OPERATOR_NAME(max_dim_max_name, "aten::max.dim_max");
ET_DEFINE_OPERATOR_NAME(min_dim_min_name, "aten::min.dim_min");
ET_DEFINE_OPERATOR_NAME(max_unary_out_name, "aten::max.unary_out");
ET_DEFINE_OPERATOR_NAME(min_unary_out_name, "aten::min.unary_out");

using std::optional;

struct ReducePlan {
  int nk = 0, nr = 0;
  int64_t ksize[kMaxDim], kin[kMaxDim], kout[kMaxDim];
  int64_t rsize[kMaxDim], rin[kMaxDim];
  int64_t count = 1;       // elements per reduction
  bool empty_out = false;  // a kept dim is empty: there is no output element
};

// Validates the dim list into mask[]; none/empty = every dim.
bool reduce_mask(KernelRuntimeContext& ctx, const char* op, const Tensor& in,
                 const optional<ArrayRef<int64_t>>& dims, bool* mask) {
  const int64_t rank = in.dim();
  const bool all = !dims.has_value() || dims->size() == 0;
  for (int64_t d = 0; d < (rank > 0 ? rank : 1); ++d) {
    mask[d] = all;
  }
  if (all) {
    return true;
  }
  for (int64_t raw : *dims) {
    int64_t d;
    if (!normalize_dim(ctx, op, "dim", raw, rank, &d)) {
      return false;
    }
    ET_KERNEL_CHECK_MSG(ctx, !mask[d], InvalidArgument, false,
                        "%s: argument 'dim' lists dim %lld twice", op, static_cast<long long>(d));
    mask[d] = true;
  }
  return true;
}

// Resizes out for the reduction and fills the plan.
bool plan_reduce(KernelRuntimeContext& ctx, const char* op, const Tensor& in, const bool* mask,
                 bool keepdim, const Tensor& out, ReducePlan* p) {
  SizesType shape[kMaxDim];
  size_t od = 0;
  for (ssize_t d = 0; d < in.dim(); ++d) {
    if (!mask[d]) {
      shape[od++] = in.sizes()[d];
    } else if (keepdim) {
      shape[od++] = 1;
    }
  }
  if (!resize_out(ctx, op, out, ArrayRef<SizesType>(shape, od))) {
    return false;
  }
  size_t oi = 0;
  for (ssize_t d = 0; d < in.dim(); ++d) {
    const int64_t sz = in.sizes()[d];
    if (mask[d]) {
      // Only an input with another, kept, empty dim can have reduced sizes
      // whose product overflows; its result is empty, so saturate.
      if (!checked_mul(p->count, sz, &p->count)) {
        p->count = INT64_MAX;
      }
      if (keepdim) {
        ++oi;
      }
      if (sz != 1) {
        p->rsize[p->nr] = sz;
        p->rin[p->nr] = in.strides()[d];
        ++p->nr;
      }
    } else {
      p->empty_out = p->empty_out || sz == 0;
      if (sz != 1) {
        p->ksize[p->nk] = sz;
        p->kin[p->nk] = in.strides()[d];
        p->kout[p->nk] = out.strides()[oi];
        ++p->nk;
      }
      ++oi;
    }
  }
  // Innermost reduced dim = smallest input stride, then merge contiguous runs.
  for (int i = 0; i < p->nr; ++i) {
    for (int j = i + 1; j < p->nr; ++j) {
      if (p->rin[j] > p->rin[i]) {
        std::swap(p->rin[i], p->rin[j]);
        std::swap(p->rsize[i], p->rsize[j]);
      }
    }
  }
  int m = 0;
  for (int i = 1; i < p->nr; ++i) {
    if (p->rin[m] == p->rin[i] * p->rsize[i]) {
      p->rsize[m] *= p->rsize[i];
      p->rin[m] = p->rin[i];
    } else {
      ++m;
      p->rsize[m] = p->rsize[i];
      p->rin[m] = p->rin[i];
    }
  }
  if (p->nr > 0) {
    p->nr = m + 1;
  }
  return true;
}

// Calls f(in_offset, out_offset) for the output elements [begin, end), in
// row-major order over the kept dims.
template <class F>
void for_each_output_in(const ReducePlan& p, int64_t begin, int64_t end, F& f) {
  int64_t idx[kMaxDim] = {0};
  int64_t ioff = 0, ooff = 0;
  int64_t rest = begin;
  for (int d = p.nk - 1; d >= 0; --d) {
    idx[d] = rest % p.ksize[d];
    rest /= p.ksize[d];
    ioff += idx[d] * p.kin[d];
    ooff += idx[d] * p.kout[d];
  }
  for (int64_t i = begin; i < end; ++i) {
    f(ioff, ooff);
    for (int d = p.nk - 1; d >= 0; --d) {
      if (++idx[d] < p.ksize[d]) {
        ioff += p.kin[d];
        ooff += p.kout[d];
        break;
      }
      ioff -= p.kin[d] * (p.ksize[d] - 1);
      ooff -= p.kout[d] * (p.ksize[d] - 1);
      idx[d] = 0;
    }
  }
}

// Calls f(in_offset, out_offset) for every output element (none when a kept
// dim is empty). Outputs are split across the thread pool, p.count input
// elements of work each; each output is computed whole by one call, so the
// order of its sum never depends on the thread count.
template <class F>
void for_each_output(const ReducePlan& p, F&& f) {
  if (p.empty_out) {
    return;
  }
  int64_t outputs = 1;
  for (int d = 0; d < p.nk; ++d) {
    outputs *= p.ksize[d];
  }
  compute::parallel_items(outputs, static_cast<double>(p.count),
                          [&](int64_t b, int64_t e) { for_each_output_in(p, b, e, f); });
}

// Calls f(offset, n, stride) for each innermost run of one reduction.
template <class F>
void for_each_reduced_run(const ReducePlan& p, int64_t base, F&& f) {
  if (p.count == 0) {
    return;
  }
  if (p.nr == 0) {
    f(base, 1, 1);
    return;
  }
  const int last = p.nr - 1;
  int64_t idx[kMaxDim] = {0};
  int64_t off = base;
  while (true) {
    f(off, p.rsize[last], p.rin[last]);
    int d = last - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < p.rsize[d]) {
        off += p.rin[d];
        break;
      }
      off -= p.rin[d] * (p.rsize[d] - 1);
      idx[d] = 0;
    }
    if (d < 0) {
      return;
    }
  }
}

enum class Kind { kSum, kMean };

// The float sum of a contiguous run as sum_mean adds it: partial float sums of 8 elements,
// accumulated in double, then the tail.
constexpr int64_t kSumBlock = 8;

// Whether the reduction is a channels-last [N, C, H, W] reduced over H and W (a global
// average pool), walked as a vector of contiguous channels per pixel: the innermost kept dim
// is contiguous in the input and the reduced dims form one strided run. Only that layout:
// other strided reductions keep their plain double sums (and their results).
bool reduces_across_channels(const Tensor& in, const bool* mask, const ReducePlan& p) {
  return in.dim() == 4 && is_channels_last_dim_order(in) && !mask[0] && !mask[1] && mask[2] &&
         mask[3] && p.nr == 1 && p.nk >= 1 && p.kin[p.nk - 1] == 1 && p.rin[0] != 1 && !p.empty_out;
}

// sum / mean of a float input for reduces_across_channels: each channel is summed in the
// order sum_mean adds a contiguous run (blocks of kSumBlock float partial sums accumulated in
// double), so channels-last and contiguous inputs give the same bits; the channels of a
// chunk advance together, which the compiler vectorizes. Split across the thread pool by outer
// index and channel chunk.
template <Kind K>
void sum_mean_across_channels(const ReducePlan& p, const float* x, char* y, int64_t eo,
                              StoreFn<double> st) {
  constexpr int64_t kChunk = 64;
  ReducePlan outer = p;  // the kept dims outside the channels
  outer.nk = p.nk - 1;
  int64_t outers = 1;
  for (int d = 0; d < outer.nk; ++d) {
    outers *= outer.ksize[d];
  }
  const int64_t c = p.ksize[p.nk - 1], c_out = p.kout[p.nk - 1];
  const int64_t n = p.rsize[0], step = p.rin[0];
  const int64_t chunks = (c + kChunk - 1) / kChunk;
  const double work = static_cast<double>(n) * static_cast<double>(std::min(c, kChunk));
  compute::parallel_items(outers * chunks, work, [&](int64_t begin, int64_t end) {
    for (int64_t q = begin; q < end; ++q) {
      const int64_t c0 = (q % chunks) * kChunk, cn = std::min(kChunk, c - c0);
      int64_t ioff = 0, ooff = 0;
      auto locate = [&](int64_t i, int64_t o) {
        ioff = i;
        ooff = o;
      };
      for_each_output_in(outer, q / chunks, q / chunks + 1, locate);
      const float* xp = x + ioff + c0;
      double acc[kChunk] = {};
      float block[kChunk];
      int64_t i = 0;
      for (; i + kSumBlock <= n; i += kSumBlock) {
        for (int64_t ch = 0; ch < cn; ++ch) {
          block[ch] = 0.0f;
        }
        for (int64_t j = 0; j < kSumBlock; ++j) {
          const float* row = xp + (i + j) * step;
          for (int64_t ch = 0; ch < cn; ++ch) {
            block[ch] += row[ch];
          }
        }
        for (int64_t ch = 0; ch < cn; ++ch) {
          acc[ch] += static_cast<double>(block[ch]);
        }
      }
      for (; i < n; ++i) {
        for (int64_t ch = 0; ch < cn; ++ch) {
          acc[ch] += static_cast<double>(xp[i * step + ch]);
        }
      }
      for (int64_t ch = 0; ch < cn; ++ch) {
        double v = acc[ch];
        if constexpr (K == Kind::kMean) {
          v = p.count > 0 ? v / static_cast<double>(p.count)
                          : std::numeric_limits<double>::quiet_NaN();
        }
        st(v, y + (ooff + (c0 + ch) * c_out) * eo);
      }
    }
  });
}

// The accumulator dtypes of sum, mean and cumsum.
constexpr DtypeSet kWideAccumulators = dtype_bit(ScalarType::Double) | dtype_bit(ScalarType::Long);

// sum / mean: accumulate in double (floating) or int64 (integral/bool).
template <Kind K>
Tensor& sum_mean(const char* op, KernelRuntimeContext& ctx, const Tensor& in,
                 const optional<ArrayRef<int64_t>>& dims, bool keepdim, optional<ScalarType> dtype,
                 Tensor& out) {
  if (dtype.has_value()) {
    ET_KERNEL_CHECK_MSG(ctx, *dtype == out.scalar_type(), InvalidArgument, out,
                        "%s: argument 'dtype' (%s) must match the dtype of 'out' (%s)", op,
                        dtype_name(*dtype), dtype_name(out.scalar_type()));
  }
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBBF16) ||
      !check_dtype_in(ctx, op, "out", out,
                      K == Kind::kMean ? dtypes::kFloatHBF16 : dtypes::kRealHBBF16)) {
    return out;
  }
  bool mask[kMaxDim];
  ReducePlan p;
  if (!reduce_mask(ctx, op, in, dims, mask) || !plan_reduce(ctx, op, in, mask, keepdim, out, &p)) {
    return out;
  }
  if (out.numel() == 0) {
    return out;
  }
  const bool floating = ::executorch::runtime::isFloatingType(out.scalar_type()) ||
                        ::executorch::runtime::isFloatingType(in.scalar_type());
  const char* x = static_cast<const char*>(in.const_data_ptr());
  char* y = static_cast<char*>(out.mutable_data_ptr());
  const int64_t ei = in.element_size(), eo = out.element_size();
  auto run = [&](auto tag) {
    using A = typename decltype(tag)::type;
    const LoadFn<A> ld = load_fn<A>(in.scalar_type());
    const StoreFn<A> st = store_fn<A>(out.scalar_type());
    // Float partial sums are accurate enough for a float result, not for a Double one.
    const bool fast =
        in.scalar_type() == ScalarType::Float && out.scalar_type() != ScalarType::Double;
    if constexpr (std::is_same<A, double>::value) {
      if (fast && reduces_across_channels(in, mask, p)) {
        sum_mean_across_channels<K>(p, reinterpret_cast<const float*>(x), y, eo, st);
        return;
      }
    }
    for_each_output(p, [&](int64_t ioff, int64_t ooff) {
      A acc = 0;
      for_each_reduced_run(p, ioff, [&](int64_t off, int64_t n, int64_t s) {
        if (fast) {
          const float* xf = reinterpret_cast<const float*>(x) + off;
          if (s == 1) {
            // Blocks of float partial sums vectorize and stay accurate enough.
            int64_t i = 0;
            for (; i + kSumBlock <= n; i += kSumBlock) {
              float b = 0;
              for (int64_t j = 0; j < kSumBlock; ++j) {
                b += xf[i + j];
              }
              acc += static_cast<A>(b);
            }
            for (; i < n; ++i) {
              acc += static_cast<A>(xf[i]);
            }
          } else {
            for (int64_t i = 0; i < n; ++i) {
              acc += static_cast<A>(xf[i * s]);
            }
          }
        } else {
          for (int64_t i = 0; i < n; ++i) {
            acc = wrap_add(acc, ld(x + (off + i * s) * ei));
          }
        }
      });
      if constexpr (K == Kind::kMean) {
        acc = p.count > 0 ? acc / static_cast<A>(p.count) : std::numeric_limits<A>::quiet_NaN();
      }
      st(acc, y + ooff * eo);
    });
  };
  dispatch_dtype<kWideAccumulators>(
      ctx, op, floating || K == Kind::kMean ? ScalarType::Double : ScalarType::Long, run);
  return out;
}

Tensor& sum_intlist_out(KernelRuntimeContext& ctx, const Tensor& self,
                        optional<ArrayRef<int64_t>> dim, bool keepdim, optional<ScalarType> dtype,
                        Tensor& out) {
  return sum_mean<Kind::kSum>(log_name(sum_intlist_out_name), ctx, self, dim, keepdim, dtype, out);
}

Tensor& mean_out(KernelRuntimeContext& ctx, const Tensor& self, optional<ArrayRef<int64_t>> dim,
                 bool keepdim, optional<ScalarType> dtype, Tensor& out) {
  return sum_mean<Kind::kMean>(log_name(mean_out_name), ctx, self, dim, keepdim, dtype, out);
}

Tensor& mean_dtype_out(KernelRuntimeContext& ctx, const Tensor& self, optional<ScalarType> dtype,
                       Tensor& out) {
  return sum_mean<Kind::kMean>(log_name(mean_dtype_out_name), ctx, self, std::nullopt, false, dtype,
                               out);
}

// amax / amin (kMax = true for amax): NaN propagates.
template <bool kMax>
Tensor& amax_amin(const char* op, KernelRuntimeContext& ctx, const Tensor& in,
                  ArrayRef<int64_t> dims, bool keepdim, Tensor& out) {
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBBF16) ||
      !check_same_dtype(ctx, op, "self", in, "out", out)) {
    return out;
  }
  bool mask[kMaxDim];
  ReducePlan p;
  if (!reduce_mask(ctx, op, in, optional<ArrayRef<int64_t>>(dims), mask) ||
      !plan_reduce(ctx, op, in, mask, keepdim, out, &p)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, p.count > 0 || out.numel() == 0, InvalidArgument, out,
                      "%s: cannot reduce over an empty dim of argument 'self'", op);
  dispatch_dtype<dtypes::kRealHBBF16>(ctx, op, in.scalar_type(), [&](auto tag) {
    using CTYPE = typename decltype(tag)::type;
    using C =
        std::conditional_t<std::is_same<CTYPE, Half>::value || std::is_same<CTYPE, BFloat16>::value,
                           float, CTYPE>;
    const CTYPE* x = in.const_data_ptr<CTYPE>();
    CTYPE* y = out.mutable_data_ptr<CTYPE>();
    for_each_output(p, [&](int64_t ioff, int64_t ooff) {
      bool first = true;
      C best = C();
      for_each_reduced_run(p, ioff, [&](int64_t off, int64_t n, int64_t s) {
        for (int64_t i = 0; i < n; ++i) {
          const C v = static_cast<C>(x[off + i * s]);
          if (first) {
            best = v;
            first = false;
            continue;
          }
          if constexpr (std::is_floating_point<C>::value) {
            if (std::isnan(best)) {
              continue;
            }
            if (std::isnan(v)) {
              best = v;
              continue;
            }
          }
          if (kMax ? v > best : v < best) {
            best = v;
          }
        }
      });
      y[ooff] = static_cast<CTYPE>(best);
    });
  });
  return out;
}

Tensor& amax_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> dim, bool keepdim,
                 Tensor& out) {
  return amax_amin<true>(log_name(amax_out_name), ctx, self, dim, keepdim, out);
}

Tensor& amin_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> dim, bool keepdim,
                 Tensor& out) {
  return amax_amin<false>(log_name(amin_out_name), ctx, self, dim, keepdim, out);
}

/*
 * The index of the first largest (kMax) or smallest of get(0..n-1), n > 0,
 * and that value in *best; the first NaN wins, as in PyTorch.
 */
template <bool kMax, class C, class Get>
int64_t extreme_index(Get&& get, int64_t n, C* best) {
  int64_t bi = 0;
  *best = get(0);
  for (int64_t i = 1; i < n; ++i) {
    const C v = get(i);
    if constexpr (std::is_floating_point<C>::value) {
      if (std::isnan(*best)) {
        break;
      }
      if (std::isnan(v)) {
        *best = v;
        bi = i;
        break;
      }
    }
    if (kMax ? v > *best : v < *best) {
      *best = v;
      bi = i;
    }
  }
  return bi;
}

// argmax / argmin over one dim (or the flattened tensor when dim is None).
template <bool kMax>
Tensor& arg_reduce(const char* op, KernelRuntimeContext& ctx, const Tensor& in,
                   optional<int64_t> dim, bool keepdim, Tensor& out) {
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBF16) ||
      !check_dtype(ctx, op, "out", out, ScalarType::Long)) {
    return out;
  }
  bool mask[kMaxDim];
  ReducePlan p;
  if (dim.has_value()) {
    int64_t d;
    if (!normalize_dim(ctx, op, "dim", *dim, in.dim(), &d)) {
      return out;
    }
    for (ssize_t i = 0; i < (in.dim() > 0 ? in.dim() : 1); ++i) {
      mask[i] = i == d;
    }
  } else {
    for (ssize_t i = 0; i < (in.dim() > 0 ? in.dim() : 1); ++i) {
      mask[i] = true;
    }
    ET_KERNEL_CHECK_MSG(ctx, !keepdim || in.dim() == out.dim(), InvalidArgument, out,
                        "%s: keepdim with dim=None", op);
  }
  if (!dim.has_value() && !keepdim) {
    if (!resize_out(ctx, op, out, ArrayRef<SizesType>())) {
      return out;
    }
    p.count = in.numel();
  }
  if (dim.has_value() || keepdim) {
    if (!plan_reduce(ctx, op, in, mask, keepdim, out, &p)) {
      return out;
    }
  }
  if (out.numel() == 0) {
    return out;  // an empty kept dim: nothing to reduce
  }
  ET_KERNEL_CHECK_MSG(ctx, in.numel() > 0, InvalidArgument, out,
                      "%s: cannot reduce over an empty dim of argument 'self'", op);
  dispatch_dtype<dtypes::kRealHBF16>(ctx, op, in.scalar_type(), [&](auto tag) {
    using CTYPE = typename decltype(tag)::type;
    using C =
        std::conditional_t<std::is_same<CTYPE, Half>::value || std::is_same<CTYPE, BFloat16>::value,
                           float, CTYPE>;
    const CTYPE* x = in.const_data_ptr<CTYPE>();
    int64_t* y = out.mutable_data_ptr<int64_t>();
    auto reduce_one = [](auto&& get, int64_t n) {
      C best;
      return extreme_index<kMax, C>(get, n, &best);
    };
    if (!dim.has_value()) {
      y[0] = reduce_one([&](int64_t i) { return static_cast<C>(x[logical_to_offset(in, i)]); },
                        in.numel());
      return;
    }
    const int64_t d = *dim < 0 ? *dim + (in.dim() > 0 ? in.dim() : 1) : *dim;
    const int64_t n = in.dim() == 0 ? 1 : in.size(d);
    const int64_t s = in.dim() == 0 ? 1 : in.strides()[d];
    for_each_output(p, [&](int64_t ioff, int64_t ooff) {
      y[ooff] = reduce_one([&](int64_t i) { return static_cast<C>(x[ioff + i * s]); }, n);
    });
  });
  return out;
}

Tensor& argmax_out(KernelRuntimeContext& ctx, const Tensor& self, optional<int64_t> dim,
                   bool keepdim, Tensor& out) {
  return arg_reduce<true>(log_name(argmax_out_name), ctx, self, dim, keepdim, out);
}

Tensor& argmin_out(KernelRuntimeContext& ctx, const Tensor& self, optional<int64_t> dim,
                   bool keepdim, Tensor& out) {
  return arg_reduce<false>(log_name(argmin_out_name), ctx, self, dim, keepdim, out);
}

/*
 * The variance (two passes in double) over dims with the given correction,
 * into out; with mean_out, the mean too (var_mean).
 */
Tensor& variance(const char* op, KernelRuntimeContext& ctx, const Tensor& in,
                 const optional<ArrayRef<int64_t>>& dims, double corr, bool keepdim, Tensor& out,
                 Tensor* mean_out) {
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kFloatHBF16) ||
      !check_dtype_in(ctx, op, "out", out, dtypes::kFloatHBF16)) {
    return out;
  }
  if (mean_out != nullptr && !check_dtype_in(ctx, op, "out1", *mean_out, dtypes::kFloatHBF16)) {
    return out;
  }
  bool mask[kMaxDim];
  ReducePlan p;
  if (!reduce_mask(ctx, op, in, dims, mask) || !plan_reduce(ctx, op, in, mask, keepdim, out, &p)) {
    return out;
  }
  if (mean_out != nullptr && !resize_out_like(ctx, op, *mean_out, out)) {
    return out;
  }
  const LoadFn<double> ld = load_fn<double>(in.scalar_type());
  const StoreFn<double> st = store_fn<double>(out.scalar_type());
  const StoreFn<double> st_mean =
      mean_out != nullptr ? store_fn<double>(mean_out->scalar_type()) : nullptr;
  const char* x = static_cast<const char*>(in.const_data_ptr());
  char* y = static_cast<char*>(out.mutable_data_ptr());
  const int64_t ei = in.element_size(), eo = out.element_size();
  for_each_output(p, [&](int64_t ioff, int64_t ooff) {
    double sum = 0;
    for_each_reduced_run(p, ioff, [&](int64_t off, int64_t n, int64_t s) {
      for (int64_t i = 0; i < n; ++i) {
        sum += ld(x + (off + i * s) * ei);
      }
    });
    const double mean = sum / static_cast<double>(p.count);
    double sq = 0;
    for_each_reduced_run(p, ioff, [&](int64_t off, int64_t n, int64_t s) {
      for (int64_t i = 0; i < n; ++i) {
        const double dv = ld(x + (off + i * s) * ei) - mean;
        sq += dv * dv;
      }
    });
    const double denom = static_cast<double>(p.count) - corr;
    st(denom > 0 ? sq / denom : std::numeric_limits<double>::quiet_NaN(), y + ooff * eo);
    if (mean_out != nullptr) {
      // mean_out has out's shape; its offset follows from out's index.
      st_mean(mean,
              static_cast<char*>(mean_out->mutable_data_ptr()) + ooff * mean_out->element_size());
    }
  });
  return out;
}

double correction_value(const optional<Scalar>& correction) {
  if (!correction.has_value()) {
    return 1.0;
  }
  return correction->isFloatingPoint() ? correction->to<double>()
                                       : static_cast<double>(correction->to<int64_t>());
}

// var.correction_out(self, dim?, correction?, keepdim, out).
Tensor& var_correction_out(KernelRuntimeContext& ctx, const Tensor& in,
                           optional<ArrayRef<int64_t>> dims, const optional<Scalar>& correction,
                           bool keepdim, Tensor& out) {
  return variance(log_name(var_correction_out_name), ctx, in, dims, correction_value(correction),
                  keepdim, out, nullptr);
}

// var.out(self, dim?, unbiased, keepdim, out): correction 1 when unbiased.
Tensor& var_out(KernelRuntimeContext& ctx, const Tensor& in, optional<ArrayRef<int64_t>> dims,
                bool unbiased, bool keepdim, Tensor& out) {
  return variance(log_name(var_out_name), ctx, in, dims, unbiased ? 1.0 : 0.0, keepdim, out,
                  nullptr);
}

// var_mean.correction_out(self, dim?, correction?, keepdim, out0 (var), out1 (mean)).
std::tuple<Tensor&, Tensor&> var_mean_correction_out(KernelRuntimeContext& ctx, const Tensor& in,
                                                     optional<ArrayRef<int64_t>> dims,
                                                     const optional<Scalar>& correction,
                                                     bool keepdim, Tensor& out0, Tensor& out1) {
  const char* op = log_name(var_mean_correction_out_name);
  std::tuple<Tensor&, Tensor&> ret(out0, out1);
  ET_KERNEL_CHECK_MSG(ctx, same_dim_order(out0, out1), InvalidArgument, ret,
                      "%s: arguments 'out0' and 'out1' must have the same dim order", op);
  variance(op, ctx, in, dims, correction_value(correction), keepdim, out0, &out1);
  return ret;
}

// prod over dims (every dim for prod.out): double for floating, wrapping int64 otherwise.
Tensor& product(const char* op, KernelRuntimeContext& ctx, const Tensor& in,
                const optional<ArrayRef<int64_t>>& dims, bool keepdim, optional<ScalarType> dtype,
                Tensor& out) {
  if (dtype.has_value()) {
    ET_KERNEL_CHECK_MSG(ctx, *dtype == out.scalar_type(), InvalidArgument, out,
                        "%s: argument 'dtype' (%s) must match the dtype of 'out' (%s)", op,
                        dtype_name(*dtype), dtype_name(out.scalar_type()));
  }
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBBF16) ||
      !check_dtype_in(ctx, op, "out", out, dtypes::kRealHBBF16)) {
    return out;
  }
  bool mask[kMaxDim];
  ReducePlan p;
  if (!reduce_mask(ctx, op, in, dims, mask) || !plan_reduce(ctx, op, in, mask, keepdim, out, &p)) {
    return out;
  }
  const bool floating = ::executorch::runtime::isFloatingType(out.scalar_type()) ||
                        ::executorch::runtime::isFloatingType(in.scalar_type());
  const char* x = static_cast<const char*>(in.const_data_ptr());
  char* y = static_cast<char*>(out.mutable_data_ptr());
  const int64_t ei = in.element_size(), eo = out.element_size();
  dispatch_dtype<kWideAccumulators>(
      ctx, op, floating ? ScalarType::Double : ScalarType::Long, [&](auto tag) {
        using A = typename decltype(tag)::type;
        const LoadFn<A> ld = load_fn<A>(in.scalar_type());
        const StoreFn<A> st = store_fn<A>(out.scalar_type());
        for_each_output(p, [&](int64_t ioff, int64_t ooff) {
          A acc = 1;
          for_each_reduced_run(p, ioff, [&](int64_t off, int64_t n, int64_t s) {
            for (int64_t i = 0; i < n; ++i) {
              acc = wrap_mul(acc, ld(x + (off + i * s) * ei));
            }
          });
          st(acc, y + ooff * eo);
        });
      });
  return out;
}

Tensor& prod_out(KernelRuntimeContext& ctx, const Tensor& in, optional<ScalarType> dtype,
                 Tensor& out) {
  return product(log_name(prod_out_name), ctx, in, std::nullopt, false, dtype, out);
}

Tensor& prod_int_out(KernelRuntimeContext& ctx, const Tensor& in, int64_t dim, bool keepdim,
                     optional<ScalarType> dtype, Tensor& out) {
  const int64_t one[1] = {dim};
  return product(log_name(prod_int_out_name), ctx, in, ArrayRef<int64_t>(one, 1), keepdim, dtype,
                 out);
}

/*
 * max.dim / min.dim: the extreme values along one dim and the index of the
 * first occurrence; a NaN wins (its first index), as in PyTorch.
 */
template <bool kMax>
std::tuple<Tensor&, Tensor&> extreme_along_dim(const char* op, KernelRuntimeContext& ctx,
                                               const Tensor& in, int64_t dim, bool keepdim,
                                               Tensor& values, Tensor& indices) {
  std::tuple<Tensor&, Tensor&> ret(values, indices);
  int64_t d;
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBBF16) ||
      !check_same_dtype(ctx, op, "self", in, "max", values) ||
      !check_dtype(ctx, op, "indices", indices, ScalarType::Long) ||
      !normalize_dim(ctx, op, "dim", dim, in.dim(), &d)) {
    return ret;
  }
  ET_KERNEL_CHECK_MSG(ctx, same_dim_order(values, indices), InvalidArgument, ret,
                      "%s: the two outs must have the same dim order", op);
  bool mask[kMaxDim] = {false};
  mask[d] = true;
  ReducePlan p;
  if (!plan_reduce(ctx, op, in, mask, keepdim, values, &p) ||
      !resize_out_like(ctx, op, indices, values)) {
    return ret;
  }
  if (values.numel() == 0) {
    return ret;
  }
  ET_KERNEL_CHECK_MSG(ctx, p.count > 0, InvalidArgument, ret,
                      "%s: cannot reduce over an empty dim of argument 'self'", op);
  const int64_t n = in.dim() == 0 ? 1 : in.sizes()[d];
  const int64_t s = in.dim() == 0 ? 1 : in.strides()[d];
  dispatch_dtype<dtypes::kRealHBBF16>(ctx, op, in.scalar_type(), [&](auto tag) {
    using CTYPE = typename decltype(tag)::type;
    using C =
        std::conditional_t<std::is_same<CTYPE, Half>::value || std::is_same<CTYPE, BFloat16>::value,
                           float, CTYPE>;
    const CTYPE* x = in.const_data_ptr<CTYPE>();
    CTYPE* vo = values.mutable_data_ptr<CTYPE>();
    int64_t* io = indices.mutable_data_ptr<int64_t>();
    for_each_output(p, [&](int64_t ioff, int64_t ooff) {
      C best;
      const int64_t bi = extreme_index<kMax, C>(
          [&](int64_t i) { return static_cast<C>(x[ioff + i * s]); }, n, &best);
      vo[ooff] = static_cast<CTYPE>(best);
      io[ooff] = bi;  // values and indices share shape and dim order: same offset
    });
  });
  return ret;
}

std::tuple<Tensor&, Tensor&> max_dim_max(KernelRuntimeContext& ctx, const Tensor& in, int64_t dim,
                                         bool keepdim, Tensor& max, Tensor& max_values) {
  return extreme_along_dim<true>(log_name(max_dim_max_name), ctx, in, dim, keepdim, max,
                                 max_values);
}

std::tuple<Tensor&, Tensor&> min_dim_min(KernelRuntimeContext& ctx, const Tensor& in, int64_t dim,
                                         bool keepdim, Tensor& min, Tensor& min_indices) {
  return extreme_along_dim<false>(log_name(min_dim_min_name), ctx, in, dim, keepdim, min,
                                  min_indices);
}

// max.unary_out / min.unary_out: amax / amin over every dim, into a 0-dim out.
Tensor& max_unary_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  return amax_amin<true>(log_name(max_unary_out_name), ctx, in, {}, false, out);
}

Tensor& min_unary_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  return amax_amin<false>(log_name(min_unary_out_name), ctx, in, {}, false, out);
}

// cumsum.out(self, dim, dtype?, out): out dtype authoritative (bool -> int64).
Tensor& cumsum_out(KernelRuntimeContext& ctx, const Tensor& in, int64_t dim,
                   optional<ScalarType> dtype, Tensor& out) {
  const char* op = log_name(cumsum_out_name);
  if (dtype.has_value()) {
    ET_KERNEL_CHECK_MSG(ctx, *dtype == out.scalar_type(), InvalidArgument, out,
                        "%s: argument 'dtype' (%s) must match the dtype of 'out' (%s)", op,
                        dtype_name(*dtype), dtype_name(out.scalar_type()));
  }
  int64_t d = 0;
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBBF16) ||
      !check_dtype_in(ctx, op, "out", out, dtypes::kRealHBF16) ||
      !normalize_dim(ctx, op, "dim", dim, in.dim(), &d) || !resize_out_like(ctx, op, out, in)) {
    return out;
  }
  if (in.numel() == 0) {
    return out;
  }
  const int64_t n = in.dim() == 0 ? 1 : in.size(d);
  const int64_t si = in.dim() == 0 ? 1 : in.strides()[d];
  const int64_t so = out.dim() == 0 ? 1 : out.strides()[d];
  bool mask[kMaxDim];
  for (ssize_t i = 0; i < (in.dim() > 0 ? in.dim() : 1); ++i) {
    mask[i] = i == d;
  }
  // Plan over the other dims, with out's strides (keepdim keeps ranks equal).
  ReducePlan p;
  size_t oi = 0;
  for (ssize_t i = 0; i < in.dim(); ++i, ++oi) {
    if (!mask[i] && in.sizes()[i] != 1) {
      p.ksize[p.nk] = in.sizes()[i];
      p.kin[p.nk] = in.strides()[i];
      p.kout[p.nk] = out.strides()[oi];
      ++p.nk;
    }
  }
  p.count = n;  // the work per output, for the split across threads
  const char* x = static_cast<const char*>(in.const_data_ptr());
  char* y = static_cast<char*>(out.mutable_data_ptr());
  const int64_t ei = in.element_size(), eo = out.element_size();
  auto run = [&](auto tag) {
    using A = typename decltype(tag)::type;
    const LoadFn<A> ld = load_fn<A>(in.scalar_type());
    const StoreFn<A> st = store_fn<A>(out.scalar_type());
    for_each_output(p, [&](int64_t ioff, int64_t ooff) {
      A acc = 0;
      for (int64_t i = 0; i < n; ++i) {
        acc = wrap_add(acc, ld(x + (ioff + i * si) * ei));
        st(acc, y + (ooff + i * so) * eo);
      }
    });
  };
  const bool floating = ::executorch::runtime::isFloatingType(out.scalar_type());
  dispatch_dtype<kWideAccumulators>(ctx, op, floating ? ScalarType::Double : ScalarType::Long, run);
  return out;
}

}  // namespace

ETK_REGISTER_KERNEL(sum_intlist_out_name, sum_intlist_out);
ETK_REGISTER_KERNEL(mean_out_name, mean_out);
ETK_REGISTER_KERNEL(mean_dtype_out_name, mean_dtype_out);
ETK_REGISTER_KERNEL(amax_out_name, amax_out);
ETK_REGISTER_KERNEL(amin_out_name, amin_out);
ETK_REGISTER_KERNEL(argmax_out_name, argmax_out);
ETK_REGISTER_KERNEL(argmin_out_name, argmin_out);
ETK_REGISTER_KERNEL(var_correction_out_name, var_correction_out);
ETK_REGISTER_KERNEL(cumsum_out_name, cumsum_out);
ETK_REGISTER_KERNEL(var_out_name, var_out);
ETK_REGISTER_KERNEL(var_mean_correction_out_name, var_mean_correction_out);
ETK_REGISTER_KERNEL(prod_out_name, prod_out);
ETK_REGISTER_KERNEL(prod_int_out_name, prod_int_out);
ETK_REGISTER_KERNEL(max_dim_max_name, max_dim_max);
ETK_REGISTER_KERNEL(min_dim_min_name, min_dim_min);
ETK_REGISTER_KERNEL(max_unary_out_name, max_unary_out);
ETK_REGISTER_KERNEL(min_unary_out_name, min_unary_out);

}  // namespace kernels
}  // namespace executorch
