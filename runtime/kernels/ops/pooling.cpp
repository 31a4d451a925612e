/*
 * max_pool2d_with_indices.out (values + int64 indices, packed outs),
 * avg_pool2d.out and _adaptive_avg_pool2d.out: 3-D [C, H, W] or 4-D
 * [N, C, H, W] inputs, padding, dilation (max), ceil_mode,
 * count_include_pad and divisor_override (avg). Tensors are addressed
 * through their strides, so contiguous and channels-last both work.
 * dtypes: float32, float64, float16, bfloat16 (max pool also integers).
 */
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include <executorch/runtime/kernels/compute/parallel.h>
#include <executorch/runtime/kernels/compute/pool.h>
#include <executorch/runtime/kernels/detail/shape_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(max_pool2d_with_indices_out_name, "aten::max_pool2d_with_indices.out");
ET_DEFINE_OPERATOR_NAME(avg_pool2d_out_name, "aten::avg_pool2d.out");
ET_DEFINE_OPERATOR_NAME(adaptive_avg_pool2d_out_name, "aten::_adaptive_avg_pool2d.out");

using std::optional;

struct Pool2d {
  int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1;
  bool ceil_mode = false;
};

// PyTorch's pooling output size into *out: floor (or, with ceil_mode, ceil)
// of (in + 2 * pad - dil * (k - 1) - 1) / stride, plus one. The stride may be
// huge, so the rounding never forms `numerator + stride - 1`. False if a term
// overflows int64 (the callers bound k, pad and dil, so it does not).
bool pool_out_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode,
                   int64_t* out) {
  int64_t two_pad, span, num;
  if (!checked_mul(pad, 2, &two_pad) || !checked_mul(dil, k - 1, &span) ||
      !checked_sub(in, span, &num) || !checked_add3(num, two_pad, -1, &num)) {
    return false;
  }
  const int64_t mag = num < 0 ? -num : num;
  const bool exact = mag % stride == 0;
  const bool round_up = ceil_mode == (num >= 0);  // away from zero for +ceil / -floor
  int64_t q = mag / stride + (round_up && !exact ? 1 : 0);
  int64_t n = (num < 0 ? -q : q) + 1;
  // The last window must start inside the input or the left padding; a
  // product that overflows is certainly past it.
  int64_t last_start;
  if (ceil_mode && n > 0 && (!checked_mul(n - 1, stride, &last_start) || last_start >= in + pad)) {
    --n;
  }
  *out = n;
  return true;
}

bool list2(KernelRuntimeContext& ctx, const char* op, const char* arg, ArrayRef<int64_t> v,
           int64_t dflt0, int64_t dflt1, int64_t* a, int64_t* b) {
  if (v.size() == 0) {
    *a = dflt0;
    *b = dflt1;
    return true;
  }
  if (v.size() == 1) {
    *a = *b = v[0];
    return true;
  }
  if (v.size() == 2) {
    *a = v[0];
    *b = v[1];
    return true;
  }
  ET_LOG(Error, "%s: argument '%s' must have 1 or 2 entries, got %zu", op, arg, v.size());
  ctx.fail(Error::InvalidArgument);
  return false;
}

// Geometry of a [N?, C, H, W] tensor: planes (N*C) addressed by strides.
struct Geo {
  int64_t n, c, h, w;
  int64_t sn, sc, sh, sw;
};

Geo geo_of(const Tensor& t) {
  const ssize_t r = t.dim();
  Geo g;
  g.n = r == 4 ? t.size(0) : 1;
  g.sn = r == 4 ? t.strides()[0] : 0;
  g.c = t.size(r - 3);
  g.sc = t.strides()[r - 3];
  g.h = t.size(r - 2);
  g.sh = t.strides()[r - 2];
  g.w = t.size(r - 1);
  g.sw = t.strides()[r - 1];
  return g;
}

bool common_checks(KernelRuntimeContext& ctx, const char* op, const Tensor& in, const Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, in.dim() == 3 || in.dim() == 4, InvalidArgument, false,
                      "%s: argument 'self' must have rank 3 or 4, got %zd", op, in.dim());
  if (!check_same_dtype(ctx, op, "self", in, "out", out) ||
      !check_contiguous_or_channels_last(ctx, op, "self", in) ||
      !check_contiguous_or_channels_last(ctx, op, "out", out)) {
    return false;
  }
  return true;
}

bool resize_pool_out(KernelRuntimeContext& ctx, const char* op, const Tensor& in, const Tensor& out,
                     int64_t oh, int64_t ow) {
  int64_t s[4];
  const ssize_t r = in.dim();
  for (ssize_t i = 0; i < r - 2; ++i) {
    s[i] = in.sizes()[i];
  }
  s[r - 2] = oh;
  s[r - 1] = ow;
  return resize_out(ctx, op, out, ArrayRef<int64_t>(s, static_cast<size_t>(r)));
}

bool pool_params(KernelRuntimeContext& ctx, const char* op, const Tensor& in,
                 ArrayRef<int64_t> kernel_size, ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                 ArrayRef<int64_t> dilation, Pool2d* p, int64_t* oh, int64_t* ow) {
  ET_KERNEL_CHECK_MSG(ctx, kernel_size.size() >= 1, InvalidArgument, false,
                      "%s: argument 'kernel_size' is empty", op);
  if (!list2(ctx, op, "kernel_size", kernel_size, 1, 1, &p->kh, &p->kw) ||
      !list2(ctx, op, "stride", stride, p->kh, p->kw, &p->sh, &p->sw) ||
      !list2(ctx, op, "padding", padding, 0, 0, &p->ph, &p->pw) ||
      !list2(ctx, op, "dilation", dilation, 1, 1, &p->dh, &p->dw)) {
    return false;
  }
  // Kernel and dilation bounded by a dim size keep every window coordinate
  // (and avg pool's window area) far inside int64; the stride may be any
  // positive value (a huge one just means one window), so the output size
  // is computed with checked arithmetic.
  ET_KERNEL_CHECK_MSG(ctx, p->kh > 0 && p->kw > 0 && p->kh <= kMaxDimSize && p->kw <= kMaxDimSize,
                      InvalidArgument, false, "%s: argument 'kernel_size' must be in [1, %lld]", op,
                      static_cast<long long>(kMaxDimSize));
  ET_KERNEL_CHECK_MSG(ctx, p->sh > 0 && p->sw > 0, InvalidArgument, false,
                      "%s: argument 'stride' must be positive", op);
  ET_KERNEL_CHECK_MSG(ctx, p->dh > 0 && p->dw > 0 && p->dh <= kMaxDimSize && p->dw <= kMaxDimSize,
                      InvalidArgument, false, "%s: argument 'dilation' must be in [1, %lld]", op,
                      static_cast<long long>(kMaxDimSize));
  ET_KERNEL_CHECK_MSG(ctx, p->ph >= 0 && p->pw >= 0 && p->ph <= p->kh / 2 && p->pw <= p->kw / 2,
                      InvalidArgument, false,
                      "%s: argument 'padding' must be >= 0 and at most half the kernel size", op);
  const Geo g = geo_of(in);
  ET_KERNEL_CHECK_MSG(ctx,
                      pool_out_size(g.h, p->kh, p->ph, p->sh, p->dh, p->ceil_mode, oh) &&
                          pool_out_size(g.w, p->kw, p->pw, p->sw, p->dw, p->ceil_mode, ow),
                      InvalidArgument, false, "%s: the output size overflows int64", op);
  ET_KERNEL_CHECK_MSG(ctx, *oh > 0 && *ow > 0, InvalidArgument, false,
                      "%s: the output size is empty for input %lldx%lld", op,
                      static_cast<long long>(g.h), static_cast<long long>(g.w));
  return true;
}

// The taps t in [0, k) with 0 <= start + t * dil < len.
struct TapRange {
  int64_t lo, hi;
};

TapRange taps_inside(int64_t start, int64_t dil, int64_t k, int64_t len) {
  const int64_t lo = start >= 0 ? 0 : (-start + dil - 1) / dil;
  const int64_t hi = len > start ? std::min(k, (len - start + dil - 1) / dil) : 0;
  return {std::min(lo, k), std::max(std::min(lo, k), hi)};
}

// Calls f(n, c, oh) for every output row of every (batch, channel) plane of g; rows are
// independent, so they are split across the thread pool (`work` input reads per row). Splitting
// by rows rather than planes keeps both threads busy when there are few planes.
template <class F>
void for_each_row(const Geo& g, int64_t rows, double work, const F& f) {
  compute::parallel_items(g.n * g.c * rows, work, [&](int64_t begin, int64_t end) {
    for (int64_t q = begin; q < end; ++q) {
      const int64_t plane = q / rows;
      f(plane / g.c, plane % g.c, q % rows);
    }
  });
}

// The outputs [lo, hi) along one dim whose every tap is inside [0, len): the run the vector
// rows take (empty if there is none).
struct OutRange {
  int64_t lo, hi;
};

OutRange interior_outputs(int64_t len, int64_t k, int64_t pad, int64_t stride, int64_t dil,
                          int64_t outs) {
  const int64_t lo = std::min((pad + stride - 1) / stride, outs);
  const int64_t last = len - 1 - (k - 1) * dil + pad;  // the last window start + pad that fits
  const int64_t hi = last < 0 ? 0 : std::min(last / stride + 1, outs);
  return {lo, std::max(lo, hi)};
}

// One output row: the scalar `one(ow)` for the edges, `run_fn(run)` for the interior run
// (none if `use_run` is false).
template <class One, class Run>
void row_edges_and_run(OutRange run, bool use_run, int64_t outs, const One& one,
                       const Run& run_fn) {
  if (!use_run) {
    run = {outs, outs};
  }
  for (int64_t o = 0; o < run.lo; ++o) {
    one(o);
  }
  if (run.lo < run.hi) {
    run_fn(run);
  }
  for (int64_t o = run.hi; o < outs; ++o) {
    one(o);
  }
}

// The float32 vector rows need unit-stride rows in and out (contiguous, not channels-last);
// max pool's int32 lane indices also need H * W < 2^31.
bool rows_are_contiguous(const Geo& gi, const Geo& go) {
  return gi.sw == 1 && gi.sh == gi.w && go.sw == 1;
}

// ---- Channels-last float32: each output pixel's window is visited once, a vector of channels
// per tap (compute::PoolKernels::max_pixel / avg_pixel), in the row-major tap order of the
// per-plane loops, so the results are bit-identical to theirs.

// Whether `in` is a float32 channels-last [N, C, H, W] the pixel routines take (C == 1 is
// left to the row routines: it is contiguous too).
bool pixels_are_channels_last(const Tensor& in, const Geo& g) {
  return in.scalar_type() == ScalarType::Float && in.dim() == 4 && g.sc == 1 && g.c > 1 &&
         g.sw == g.c && g.sh == g.w * g.c && g.h * g.w <= std::numeric_limits<int32_t>::max();
}

// Channels per work item of the channels-last loops: a multiple of every vector width, small
// enough that a global pool over many channels still splits across the thread pool.
constexpr int64_t kChannelChunk = 64;

// Calls f(n, oh, ow, c0, cn) for every output pixel of go and every chunk [c0, c0 + cn) of its
// channels, split across the thread pool (`work` input reads per channel).
template <class F>
void for_each_pixel_chunk(const Geo& go, double work, const F& f) {
  const int64_t chunks = (go.c + kChannelChunk - 1) / kChannelChunk;
  const int64_t pixels = go.h * go.w;
  const double chunk_work = work * static_cast<double>(std::min(go.c, kChannelChunk));
  compute::parallel_items(go.n * pixels * chunks, chunk_work, [&](int64_t begin, int64_t end) {
    for (int64_t q = begin; q < end; ++q) {
      const int64_t chunk = q % chunks, pixel = q / chunks;
      const int64_t c0 = chunk * kChannelChunk;
      f(pixel / pixels, (pixel % pixels) / go.w, pixel % go.w, c0,
        std::min(kChannelChunk, go.c - c0));
    }
  });
}

// The taps [rr) x [sr) of a window whose tap (0, 0) is at (h0, w0), spaced dh x dw, over the
// channels [c0, c0 + cn) of batch n.
compute::PoolPixel pixel_window(const float* x, const Geo& gi, int64_t n, int64_t c0, int64_t cn,
                                int64_t h0, int64_t w0, int64_t dh, int64_t dw, TapRange rr,
                                TapRange sr) {
  const int64_t h = h0 + rr.lo * dh, w = w0 + sr.lo * dw;
  return compute::PoolPixel{x + n * gi.sn + c0 + h * gi.sh + w * gi.sw,
                            rr.hi - rr.lo,
                            sr.hi - sr.lo,
                            dh * gi.sh,
                            dw * gi.sw,
                            h * gi.w + w,
                            dh * gi.w,
                            dw,
                            cn};
}

void max_pool_channels_last(const Tensor& in, const Tensor& out, const Tensor& idx,
                            const Pool2d& p) {
  const Geo gi = geo_of(in), go = geo_of(out), gx = geo_of(idx);
  const float* x = in.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  int64_t* ix = idx.mutable_data_ptr<int64_t>();
  const compute::PoolKernels& kernels = compute::pool();
  for_each_pixel_chunk(go, static_cast<double>(p.kh * p.kw),
                       [&](int64_t n, int64_t oh, int64_t ow, int64_t c0, int64_t cn) {
                         float* yp = y + n * go.sn + c0 * go.sc + oh * go.sh + ow * go.sw;
                         int64_t* ip = ix + n * gx.sn + c0 * gx.sc + oh * gx.sh + ow * gx.sw;
                         const int64_t h0 = oh * p.sh - p.ph, w0 = ow * p.sw - p.pw;
                         const TapRange rr = taps_inside(h0, p.dh, p.kh, gi.h);
                         const TapRange sr = taps_inside(w0, p.dw, p.kw, gi.w);
                         if (rr.lo == rr.hi || sr.lo == sr.hi) {  // all padding: never wins
                           for (int64_t c = 0; c < cn; ++c) {
                             yp[c * go.sc] = -std::numeric_limits<float>::infinity();
                             ip[c * gx.sc] = -1;
                           }
                           return;
                         }
                         kernels.max_pixel(
                             pixel_window(x, gi, n, c0, cn, h0, w0, p.dh, p.dw, rr, sr), yp, go.sc,
                             ip, gx.sc);
                       });
}

template <class T>
void max_pool_impl(const Tensor& in, const Tensor& out, const Tensor& idx, const Pool2d& p) {
  using C = std::conditional_t<std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value,
                               float, T>;
  const Geo gi = geo_of(in), go = geo_of(out), gx = geo_of(idx);
  const T* x = in.const_data_ptr<T>();
  T* y = out.mutable_data_ptr<T>();
  int64_t* ix = idx.mutable_data_ptr<int64_t>();
  const bool vector_rows = std::is_same<T, float>::value && rows_are_contiguous(gi, go) &&
                           gi.h * gi.w <= std::numeric_limits<int32_t>::max();
  const OutRange inner = interior_outputs(gi.w, p.kw, p.pw, p.sw, p.dw, go.w);
  const compute::PoolKernels& kernels = compute::pool();
  const double work = static_cast<double>(go.w * p.kh * p.kw);
  for_each_row(gi, go.h, work, [&](int64_t n, int64_t c, int64_t oh) {
    const T* xp = x + n * gi.sn + c * gi.sc;
    T* yp = y + n * go.sn + c * go.sc + oh * go.sh;
    int64_t* ip = ix + n * gx.sn + c * gx.sc + oh * gx.sh;
    const int64_t h0 = oh * p.sh - p.ph;
    // Only the taps inside the input are visited (a kernel may be far larger than the input).
    const TapRange rr = taps_inside(h0, p.dh, p.kh, gi.h);
    auto one_output = [&](int64_t ow) {
      const int64_t w0 = ow * p.sw - p.pw;
      C best = -std::numeric_limits<C>::infinity();
      if constexpr (!std::numeric_limits<C>::has_infinity) {
        best = std::numeric_limits<C>::lowest();
      }
      int64_t best_i = -1;
      bool nan = false;
      const TapRange sr = taps_inside(w0, p.dw, p.kw, gi.w);
      for (int64_t r = rr.lo; r < rr.hi && !nan; ++r) {
        const int64_t h = h0 + r * p.dh;
        for (int64_t s = sr.lo; s < sr.hi; ++s) {
          const int64_t w = w0 + s * p.dw;
          const C v = static_cast<C>(xp[h * gi.sh + w * gi.sw]);
          if (best_i < 0 || v > best) {
            best = v;
            best_i = h * gi.w + w;
          }
          if constexpr (std::is_floating_point<C>::value) {
            if (std::isnan(v)) {
              best = v;
              best_i = h * gi.w + w;
              nan = true;
              break;
            }
          }
        }
      }
      yp[ow * go.sw] = static_cast<T>(best);
      ip[ow * gx.sw] = best_i;
    };
    row_edges_and_run(inner, vector_rows && rr.lo < rr.hi, go.w, one_output, [&](OutRange run) {
      if constexpr (std::is_same<T, float>::value) {
        auto max_row = [&](int64_t lo, int64_t hi, int64_t* indices) {
          const compute::PoolRow row{xp,   gi.w, h0,   p.dh,   rr.lo, rr.hi, lo * p.sw - p.pw,
                                     p.sw, p.kw, p.dw, hi - lo};
          kernels.max_row(row, yp + lo, indices);
        };
        if (gx.sw == 1) {
          max_row(run.lo, run.hi, ip + run.lo);
          return;
        }
        // Channels-last indices beside contiguous values (the layout pass switches the indices
        // alone when the values must stay contiguous): the row kernel writes its indices
        // contiguously, so a chunk at a time goes through a buffer into the strided row.
        constexpr int64_t kChunk = 64;
        int64_t buffer[kChunk];
        for (int64_t lo = run.lo; lo < run.hi; lo += kChunk) {
          const int64_t hi = std::min(run.hi, lo + kChunk);
          max_row(lo, hi, buffer);
          for (int64_t o = lo; o < hi; ++o) {
            ip[o * gx.sw] = buffer[o - lo];
          }
        }
      }
    });
  });
}

std::tuple<Tensor&, Tensor&> max_pool2d_with_indices_out(
    KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> kernel_size,
    ArrayRef<int64_t> stride, ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation, bool ceil_mode,
    Tensor& out, Tensor& indices) {
  const char* op = log_name(max_pool2d_with_indices_out_name);
  std::tuple<Tensor&, Tensor&> ret(out, indices);
  if (!common_checks(ctx, op, self, out) ||
      !check_dtype(ctx, op, "indices", indices, ScalarType::Long) ||
      !check_dtype_in(ctx, op, "self", self, dtypes::kRealHBF16)) {
    return ret;
  }
  Pool2d p;
  p.ceil_mode = ceil_mode;
  int64_t oh, ow;
  if (!pool_params(ctx, op, self, kernel_size, stride, padding, dilation, &p, &oh, &ow) ||
      !resize_pool_out(ctx, op, self, out, oh, ow) ||
      !resize_pool_out(ctx, op, self, indices, oh, ow)) {
    return ret;
  }
  if (pixels_are_channels_last(self, geo_of(self))) {
    max_pool_channels_last(self, out, indices, p);
    return ret;
  }
  dispatch_dtype<dtypes::kRealHBF16>(ctx, op, self.scalar_type(), [&](auto tag) {
    using CTYPE = typename decltype(tag)::type;
    max_pool_impl<CTYPE>(self, out, indices, p);
  });
  return ret;
}

template <class T>
void avg_pool_impl(const Tensor& in, const Tensor& out, const Pool2d& p, bool count_include_pad,
                   int64_t divisor) {
  using C = std::conditional_t<std::is_same<T, double>::value, double, float>;
  const Geo gi = geo_of(in), go = geo_of(out);
  const T* x = in.const_data_ptr<T>();
  T* y = out.mutable_data_ptr<T>();
  const bool vector_rows = std::is_same<T, float>::value && rows_are_contiguous(gi, go);
  const OutRange inner = interior_outputs(gi.w, p.kw, p.pw, p.sw, 1, go.w);
  const compute::PoolKernels& kernels = compute::pool();
  const double work = static_cast<double>(go.w * p.kh * p.kw);
  for_each_row(gi, go.h, work, [&](int64_t n, int64_t c, int64_t oh) {
    const T* xp = x + n * gi.sn + c * gi.sc;
    T* yp = y + n * go.sn + c * go.sc + oh * go.sh;
    int64_t hs = oh * p.sh - p.ph;
    int64_t he = std::min(hs + p.kh, gi.h + p.ph);
    const int64_t hpool = he - hs;
    hs = std::max<int64_t>(hs, 0);
    he = std::min(he, gi.h);
    auto one_output = [&](int64_t ow) {
      int64_t ws = ow * p.sw - p.pw;
      int64_t we = std::min(ws + p.kw, gi.w + p.pw);
      const int64_t pool = hpool * (we - ws);
      ws = std::max<int64_t>(ws, 0);
      we = std::min(we, gi.w);
      C sum = 0;
      for (int64_t h = hs; h < he; ++h) {
        for (int64_t w = ws; w < we; ++w) {
          sum += static_cast<C>(xp[h * gi.sh + w * gi.sw]);
        }
      }
      int64_t div = divisor;
      if (div == 0) {
        div = count_include_pad ? pool : (he - hs) * (we - ws);
      }
      yp[ow * go.sw] = static_cast<T>(div != 0 ? sum / static_cast<C>(div) : C(0));
    };
    // The interior windows all span kw columns, so they share one divisor.
    int64_t run_div = divisor;
    if (run_div == 0) {
      run_div = (count_include_pad ? hpool : he - hs) * p.kw;
    }
    const bool use_run = vector_rows && he > hs && run_div != 0;
    row_edges_and_run(inner, use_run, go.w, one_output, [&](OutRange run) {
      if constexpr (std::is_same<T, float>::value) {
        const compute::PoolRow row{
            xp, gi.w, hs, 1, 0, he - hs, run.lo * p.sw - p.pw, p.sw, p.kw, 1, run.hi - run.lo};
        kernels.avg_row(row, static_cast<float>(run_div), yp + run.lo);
      }
    });
  });
}

// Channels-last avg_pool2d: the window and divisor rules of avg_pool_impl, a vector of
// channels per tap.
void avg_pool_channels_last(const Tensor& in, const Tensor& out, const Pool2d& p,
                            bool count_include_pad, int64_t divisor) {
  const Geo gi = geo_of(in), go = geo_of(out);
  const float* x = in.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  const compute::PoolKernels& kernels = compute::pool();
  for_each_pixel_chunk(go, static_cast<double>(p.kh * p.kw),
                       [&](int64_t n, int64_t oh, int64_t ow, int64_t c0, int64_t cn) {
                         float* yp = y + n * go.sn + c0 * go.sc + oh * go.sh + ow * go.sw;
                         const int64_t hs = oh * p.sh - p.ph, ws = ow * p.sw - p.pw;
                         const int64_t hpad = std::min(hs + p.kh, gi.h + p.ph) - hs;
                         const int64_t wpad = std::min(ws + p.kw, gi.w + p.pw) - ws;
                         const TapRange rr = taps_inside(hs, 1, p.kh, gi.h);
                         const TapRange sr = taps_inside(ws, 1, p.kw, gi.w);
                         int64_t div = divisor;
                         if (div == 0) {
                           div =
                               count_include_pad ? hpad * wpad : (rr.hi - rr.lo) * (sr.hi - sr.lo);
                         }
                         if (rr.lo == rr.hi || sr.lo == sr.hi || div == 0) {
                           // No tap inside: the sum is 0 (and 0 / 0 is written as 0).
                           for (int64_t c = 0; c < cn; ++c) {
                             yp[c * go.sc] = div != 0 ? 0.0f / static_cast<float>(div) : 0.0f;
                           }
                           return;
                         }
                         kernels.avg_pixel(pixel_window(x, gi, n, c0, cn, hs, ws, 1, 1, rr, sr),
                                           static_cast<float>(div), yp, go.sc);
                       });
}

Tensor& avg_pool2d_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> kernel_size,
                       ArrayRef<int64_t> stride, ArrayRef<int64_t> padding, bool ceil_mode,
                       bool count_include_pad, optional<int64_t> divisor_override, Tensor& out) {
  const char* op = log_name(avg_pool2d_out_name);
  if (!common_checks(ctx, op, self, out) ||
      !check_dtype_in(ctx, op, "self", self, dtypes::kFloatHBF16)) {
    return out;
  }
  int64_t divisor = 0;
  if (divisor_override.has_value()) {
    divisor = *divisor_override;
    ET_KERNEL_CHECK_MSG(ctx, divisor != 0, InvalidArgument, out,
                        "%s: argument 'divisor_override' must be non-zero", op);
  }
  Pool2d p;
  p.ceil_mode = ceil_mode;
  int64_t oh, ow;
  if (!pool_params(ctx, op, self, kernel_size, stride, padding, {}, &p, &oh, &ow) ||
      !resize_pool_out(ctx, op, self, out, oh, ow)) {
    return out;
  }
  if (pixels_are_channels_last(self, geo_of(self))) {
    avg_pool_channels_last(self, out, p, count_include_pad, divisor);
    return out;
  }
  dispatch_dtype<dtypes::kFloatHBF16>(ctx, op, self.scalar_type(), [&](auto tag) {
    using CTYPE = typename decltype(tag)::type;
    avg_pool_impl<CTYPE>(self, out, p, count_include_pad, divisor);
  });
  return out;
}

template <class T>
void adaptive_avg_impl(const Tensor& in, const Tensor& out) {
  using C = std::conditional_t<std::is_same<T, double>::value, double, float>;
  const Geo gi = geo_of(in), go = geo_of(out);
  const T* x = in.const_data_ptr<T>();
  T* y = out.mutable_data_ptr<T>();
  // A row's windows cover about H / OH input rows once over.
  const double work = static_cast<double>(gi.w) * static_cast<double>((gi.h + go.h - 1) / go.h);
  // When W divides evenly the windows of a row are one fixed-size, non-overlapping tiling: the
  // vector row of avg pool (kernel = stride = W / OW) sums them in the same order.
  const bool vector_rows =
      std::is_same<T, float>::value && rows_are_contiguous(gi, go) && gi.w % go.w == 0;
  const compute::PoolKernels& kernels = compute::pool();
  for_each_row(gi, go.h, work, [&](int64_t n, int64_t c, int64_t oh) {
    const T* xp = x + n * gi.sn + c * gi.sc;
    T* yp = y + n * go.sn + c * go.sc + oh * go.sh;
    const int64_t hs = (oh * gi.h) / go.h;
    const int64_t he = ((oh + 1) * gi.h + go.h - 1) / go.h;
    if constexpr (std::is_same<T, float>::value) {
      if (vector_rows) {
        const int64_t kw = gi.w / go.w;
        const compute::PoolRow row{xp, gi.w, hs, 1, 0, he - hs, 0, kw, kw, 1, go.w};
        kernels.avg_row(row, static_cast<float>((he - hs) * kw), yp);
        return;
      }
    }
    for (int64_t ow = 0; ow < go.w; ++ow) {
      const int64_t ws = (ow * gi.w) / go.w;
      const int64_t we = ((ow + 1) * gi.w + go.w - 1) / go.w;
      C sum = 0;
      for (int64_t h = hs; h < he; ++h) {
        for (int64_t w = ws; w < we; ++w) {
          sum += static_cast<C>(xp[h * gi.sh + w * gi.sw]);
        }
      }
      yp[ow * go.sw] = static_cast<T>(sum / static_cast<C>((he - hs) * (we - ws)));
    }
  });
}

// Channels-last _adaptive_avg_pool2d (a global average pool when the output is 1x1): the
// windows of adaptive_avg_impl, a vector of channels per tap.
void adaptive_avg_channels_last(const Tensor& in, const Tensor& out) {
  const Geo gi = geo_of(in), go = geo_of(out);
  const float* x = in.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  const compute::PoolKernels& kernels = compute::pool();
  const double work =
      static_cast<double>((gi.h + go.h - 1) / go.h) * static_cast<double>((gi.w + go.w - 1) / go.w);
  for_each_pixel_chunk(go, work, [&](int64_t n, int64_t oh, int64_t ow, int64_t c0, int64_t cn) {
    const int64_t hs = (oh * gi.h) / go.h, he = ((oh + 1) * gi.h + go.h - 1) / go.h;
    const int64_t ws = (ow * gi.w) / go.w, we = ((ow + 1) * gi.w + go.w - 1) / go.w;
    kernels.avg_pixel(pixel_window(x, gi, n, c0, cn, hs, ws, 1, 1, {0, he - hs}, {0, we - ws}),
                      static_cast<float>((he - hs) * (we - ws)),
                      y + n * go.sn + c0 * go.sc + oh * go.sh + ow * go.sw, go.sc);
  });
}

Tensor& adaptive_avg_pool2d_out(KernelRuntimeContext& ctx, const Tensor& self,
                                ArrayRef<int64_t> output_size, Tensor& out) {
  const char* op = log_name(adaptive_avg_pool2d_out_name);
  if (!common_checks(ctx, op, self, out) ||
      !check_dtype_in(ctx, op, "self", self, dtypes::kFloatHBF16)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx,
                      output_size.size() == 2 && output_size[0] > 0 && output_size[1] > 0 &&
                          output_size[0] <= kMaxDimSize && output_size[1] <= kMaxDimSize,
                      InvalidArgument, out,
                      "%s: argument 'output_size' must be two sizes in [1, %lld]", op,
                      static_cast<long long>(kMaxDimSize));
  const Geo g = geo_of(self);
  ET_KERNEL_CHECK_MSG(ctx, g.h > 0 && g.w > 0, InvalidArgument, out,
                      "%s: argument 'self' has an empty spatial size", op);
  if (!resize_pool_out(ctx, op, self, out, output_size[0], output_size[1])) {
    return out;
  }
  if (pixels_are_channels_last(self, g)) {
    adaptive_avg_channels_last(self, out);
    return out;
  }
  dispatch_dtype<dtypes::kFloatHBF16>(ctx, op, self.scalar_type(), [&](auto tag) {
    using CTYPE = typename decltype(tag)::type;
    adaptive_avg_impl<CTYPE>(self, out);
  });
  return out;
}

}  // namespace

ETK_REGISTER_KERNEL(max_pool2d_with_indices_out_name, max_pool2d_with_indices_out);
ETK_REGISTER_KERNEL(avg_pool2d_out_name, avg_pool2d_out);
ETK_REGISTER_KERNEL(adaptive_avg_pool2d_out_name, adaptive_avg_pool2d_out);

}  // namespace kernels
}  // namespace executorch
