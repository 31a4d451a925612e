/*
 * upsample_nearest2d.vec, upsample_bilinear2d.vec and the antialiased
 * _upsample_bilinear2d_aa: resize the last two dims of an NCHW input
 * (contiguous or channels-last) to output_size, or to floor(size * scale)
 * when scale_factors are given instead. Source
 * coordinates follow PyTorch: nearest takes floor(dst * scale) with
 * scale = 1 / scale_factor (or in / out); bilinear maps pixel centres
 * (or corners with align_corners) and blends the two neighbours per axis.
 * Real dtypes, Half and BFloat16; the math runs in float (double for
 * Double), integers are truncated when stored, as in PyTorch.
 */
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include <executorch/runtime/kernels/detail/helpers.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(upsample_nearest2d_vec_out_name, "aten::upsample_nearest2d.vec_out");
ET_DEFINE_OPERATOR_NAME(upsample_bilinear2d_vec_out_name, "aten::upsample_bilinear2d.vec_out");
ET_DEFINE_OPERATOR_NAME(upsample_bilinear2d_aa_out_name, "aten::_upsample_bilinear2d_aa.out");

using std::optional;

// Input taps per output along one axis for the antialiased resize (2 * downscale + 2).
constexpr int64_t kMaxAaTaps = 130;

/*
 * Validates input, out and exactly one of output_size / scale_factors;
 * resizes out; writes the per-axis scale factors given (0 when the sizes
 * decide).
 */
bool plan_upsample(KernelRuntimeContext& ctx, const char* op, const Tensor& in,
                   const optional<ArrayRef<int64_t>>& output_size,
                   const optional<ArrayRef<double>>& scale_factors, const Tensor& out,
                   double given_scale[2]) {
  if (!check_dtype_in(ctx, op, "input", in, dtypes::kRealHBF16) ||
      !check_same_dtype(ctx, op, "input", in, "out", out) || !check_rank(ctx, op, "input", in, 4) ||
      !check_contiguous_or_channels_last(ctx, op, "input", in) ||
      !check_contiguous_or_channels_last(ctx, op, "out", out)) {
    return false;
  }
  ET_KERNEL_CHECK_MSG(ctx, output_size.has_value() != scale_factors.has_value(), InvalidArgument,
                      false, "%s: exactly one of 'output_size' and 'scale_factors' must be given",
                      op);
  int64_t shape[4] = {in.sizes()[0], in.sizes()[1], 0, 0};
  if (output_size.has_value()) {
    ET_KERNEL_CHECK_MSG(ctx, output_size->size() == 2, InvalidArgument, false,
                        "%s: argument 'output_size' must have 2 entries, got %zu", op,
                        output_size->size());
    for (int i = 0; i < 2; ++i) {
      ET_KERNEL_CHECK_MSG(ctx, (*output_size)[i] > 0, InvalidArgument, false,
                          "%s: argument 'output_size' must be positive", op);
      shape[2 + i] = (*output_size)[i];
      given_scale[i] = 0;
    }
  } else {
    ET_KERNEL_CHECK_MSG(ctx, scale_factors->size() == 2, InvalidArgument, false,
                        "%s: argument 'scale_factors' must have 2 entries, got %zu", op,
                        scale_factors->size());
    for (int i = 0; i < 2; ++i) {
      const double s = (*scale_factors)[i];
      const double size = std::floor(static_cast<double>(in.sizes()[2 + i]) * s);
      ET_KERNEL_CHECK_MSG(ctx, s > 0 && size >= 1 && size < 2147483648.0, InvalidArgument, false,
                          "%s: scale factor %g gives an output size out of range", op, s);
      shape[2 + i] = static_cast<int64_t>(size);
      given_scale[i] = s;
    }
  }
  ET_KERNEL_CHECK_MSG(ctx, in.sizes()[2] > 0 && in.sizes()[3] > 0, InvalidArgument, false,
                      "%s: the input's height and width must not be empty", op);
  return resize_out(ctx, op, out, ArrayRef<int64_t>(shape, 4));
}

/* Source units per output unit along one axis. */
template <class CT>
CT axis_scale(int64_t in_size, int64_t out_size, double given, bool align_corners) {
  if (align_corners) {
    return out_size > 1 ? static_cast<CT>(in_size - 1) / static_cast<CT>(out_size - 1) : CT(0);
  }
  return given > 0 ? static_cast<CT>(1.0 / given)
                   : static_cast<CT>(in_size) / static_cast<CT>(out_size);
}

/* Calls f(n, c, oh, ow, in_plane_offset, out_offset) for each output element. */
template <class F>
void for_each_output(const Tensor& in, const Tensor& out, F&& f) {
  const int64_t nb = out.sizes()[0], nc = out.sizes()[1], oh = out.sizes()[2], ow = out.sizes()[3];
  for (int64_t n = 0; n < nb; ++n) {
    for (int64_t c = 0; c < nc; ++c) {
      const int64_t plane = n * in.strides()[0] + c * in.strides()[1];
      const int64_t oplane = n * out.strides()[0] + c * out.strides()[1];
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t x = 0; x < ow; ++x) {
          f(y, x, plane, oplane + y * out.strides()[2] + x * out.strides()[3]);
        }
      }
    }
  }
}

Tensor& upsample_nearest2d_vec_out(KernelRuntimeContext& ctx, const Tensor& in,
                                   optional<ArrayRef<int64_t>> output_size,
                                   optional<ArrayRef<double>> scale_factors, Tensor& out) {
  const char* op = log_name(upsample_nearest2d_vec_out_name);
  double given[2];
  if (!plan_upsample(ctx, op, in, output_size, scale_factors, out, given)) {
    return out;
  }
  const int64_t ih = in.sizes()[2], iw = in.sizes()[3];
  // PyTorch computes the nearest index in float.
  const float sh = axis_scale<float>(ih, out.sizes()[2], given[0], false);
  const float sw = axis_scale<float>(iw, out.sizes()[3], given[1], false);
  const size_t es = in.element_size();
  const char* src = static_cast<const char*>(in.const_data_ptr());
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  for_each_output(in, out, [&](int64_t y, int64_t x, int64_t plane, int64_t ooff) {
    const int64_t sy = std::min(static_cast<int64_t>(std::floor(y * sh)), ih - 1);
    const int64_t sx = std::min(static_cast<int64_t>(std::floor(x * sw)), iw - 1);
    const int64_t ioff = plane + sy * in.strides()[2] + sx * in.strides()[3];
    std::memcpy(dst + ooff * static_cast<int64_t>(es), src + ioff * static_cast<int64_t>(es), es);
  });
  return out;
}

/* One axis of bilinear interpolation: the two source indices and weights. */
template <class CT>
void linear_source(int64_t dst, CT scale, int64_t in_size, bool align_corners, int64_t* i0,
                   int64_t* i1, CT* w0, CT* w1) {
  CT src = align_corners ? scale * static_cast<CT>(dst)
                         : scale * (static_cast<CT>(dst) + CT(0.5)) - CT(0.5);
  if (src < CT(0)) {
    src = CT(0);
  }
  *i0 = std::min(static_cast<int64_t>(src), in_size - 1);
  *i1 = *i0 + (*i0 < in_size - 1 ? 1 : 0);
  *w1 = std::min(src - static_cast<CT>(*i0), CT(1));
  *w0 = CT(1) - *w1;
}

Tensor& upsample_bilinear2d_vec_out(KernelRuntimeContext& ctx, const Tensor& in,
                                    optional<ArrayRef<int64_t>> output_size, bool align_corners,
                                    optional<ArrayRef<double>> scale_factors, Tensor& out) {
  const char* op = log_name(upsample_bilinear2d_vec_out_name);
  double given[2];
  if (!plan_upsample(ctx, op, in, output_size, scale_factors, out, given)) {
    return out;
  }
  const int64_t ih = in.sizes()[2], iw = in.sizes()[3];
  const ScalarType ct =
      in.scalar_type() == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
  dispatch_dtype<dtypes::kFloat>(ctx, op, ct, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    const CT sh = axis_scale<CT>(ih, out.sizes()[2], given[0], align_corners);
    const CT sw = axis_scale<CT>(iw, out.sizes()[3], given[1], align_corners);
    const LoadFn<CT> ld = load_fn<CT>(in.scalar_type());
    const StoreFn<CT> st = store_fn<CT>(out.scalar_type());
    const int64_t es = in.element_size();
    const char* src = static_cast<const char*>(in.const_data_ptr());
    char* dst = static_cast<char*>(out.mutable_data_ptr());
    const int64_t s2 = in.strides()[2], s3 = in.strides()[3];
    for_each_output(in, out, [&](int64_t y, int64_t x, int64_t plane, int64_t ooff) {
      int64_t y0, y1, x0, x1;
      CT wy0, wy1, wx0, wx1;
      linear_source<CT>(y, sh, ih, align_corners, &y0, &y1, &wy0, &wy1);
      linear_source<CT>(x, sw, iw, align_corners, &x0, &x1, &wx0, &wx1);
      auto at = [&](int64_t yy, int64_t xx) { return ld(src + (plane + yy * s2 + xx * s3) * es); };
      const CT v =
          wy0 * (wx0 * at(y0, x0) + wx1 * at(y0, x1)) + wy1 * (wx0 * at(y1, x0) + wx1 * at(y1, x1));
      st(v, dst + ooff * es);
    });
  });
  return out;
}

/*
 * One axis of antialiased bilinear resampling: the input range [lo, lo + n)
 * that output index i averages, with the triangle filter stretched by the
 * downscale factor (so every input pixel contributes), weights normalized to
 * sum to 1 (PyTorch's separable antialias kernel).
 */
struct AaTaps {
  int64_t lo = 0;
  int64_t n = 0;
  double w[kMaxAaTaps];
};

bool aa_taps(double scale, int64_t i, int64_t in_size, AaTaps* t) {
  const double support = scale >= 1.0 ? scale : 1.0;
  const double invscale = scale >= 1.0 ? 1.0 / scale : 1.0;
  const double center = scale * (static_cast<double>(i) + 0.5);
  t->lo = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
  const int64_t hi = std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in_size);
  t->n = std::max<int64_t>(hi - t->lo, 0);
  if (t->n > kMaxAaTaps) {
    return false;
  }
  double total = 0;
  for (int64_t k = 0; k < t->n; ++k) {
    const double x = std::fabs((static_cast<double>(t->lo + k) - center + 0.5) * invscale);
    t->w[k] = x < 1.0 ? 1.0 - x : 0.0;
    total += t->w[k];
  }
  for (int64_t k = 0; k < t->n && total != 0; ++k) {
    t->w[k] /= total;
  }
  return true;
}

/*
 * _upsample_bilinear2d_aa.out(self, output_size, align_corners, scales_h?,
 * scales_w?): bilinear resize that averages over the whole footprint when
 * shrinking. Floating dtypes; weights and sums in double.
 */
Tensor& upsample_bilinear2d_aa_out(KernelRuntimeContext& ctx, const Tensor& in,
                                   ArrayRef<int64_t> output_size, bool align_corners,
                                   optional<double> scales_h, optional<double> scales_w,
                                   Tensor& out) {
  const char* op = log_name(upsample_bilinear2d_aa_out_name);
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kFloatHBF16)) {
    return out;
  }
  double given[2];
  if (!plan_upsample(ctx, op, in, optional<ArrayRef<int64_t>>(output_size), std::nullopt, out,
                     given)) {
    return out;
  }
  const int64_t ih = in.sizes()[2], iw = in.sizes()[3];
  const double sh = axis_scale<double>(ih, out.sizes()[2], scales_h.value_or(0), align_corners);
  const double sw = axis_scale<double>(iw, out.sizes()[3], scales_w.value_or(0), align_corners);
  // A footprint wider than the tap buffer would need a shrink by more than kMaxAaTaps / 2.
  ET_KERNEL_CHECK_MSG(ctx, sh * 2 + 2 <= kMaxAaTaps && sw * 2 + 2 <= kMaxAaTaps, InvalidArgument,
                      out, "%s: downscaling by more than %d is not supported", op,
                      static_cast<int>(kMaxAaTaps / 2 - 1));
  const LoadFn<double> ld = load_fn<double>(in.scalar_type());
  const StoreFn<double> st = store_fn<double>(out.scalar_type());
  const int64_t es = in.element_size();
  const char* src = static_cast<const char*>(in.const_data_ptr());
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  AaTaps ty, tx;
  for_each_output(in, out, [&](int64_t y, int64_t x, int64_t plane, int64_t ooff) {
    if (!aa_taps(sh, y, ih, &ty) || !aa_taps(sw, x, iw, &tx)) {
      return;  // excluded by the check above
    }
    double v = 0;
    for (int64_t a = 0; a < ty.n; ++a) {
      double row = 0;
      for (int64_t b = 0; b < tx.n; ++b) {
        row +=
            tx.w[b] *
            ld(src + (plane + (ty.lo + a) * in.strides()[2] + (tx.lo + b) * in.strides()[3]) * es);
      }
      v += ty.w[a] * row;
    }
    st(v, dst + ooff * es);
  });
  return out;
}

ETK_REGISTER_KERNEL(upsample_nearest2d_vec_out_name, upsample_nearest2d_vec_out);
ETK_REGISTER_KERNEL(upsample_bilinear2d_aa_out_name, upsample_bilinear2d_aa_out);
ETK_REGISTER_KERNEL(upsample_bilinear2d_vec_out_name, upsample_bilinear2d_vec_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
