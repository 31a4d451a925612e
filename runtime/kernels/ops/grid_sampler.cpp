/*
 * grid_sampler_2d.out: samples an NCHW input at the (x, y) positions of a
 * [N, Ho, Wo, 2] grid in [-1, 1] (x across the width), with bilinear,
 * nearest or bicubic interpolation and zeros, border or reflection padding,
 * following PyTorch's coordinate rules. Floating dtypes, computed in float
 * (double for Double); any dim orders.
 */
#include <cmath>

#include <executorch/runtime/kernels/detail/helpers.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(grid_sampler_2d_out_name, "aten::grid_sampler_2d.out");

enum class Interp : int64_t { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum class Padding : int64_t { kZeros = 0, kBorder = 1, kReflection = 2 };

template <class T>
T unnormalize(T coord, int64_t size, bool align_corners) {
  return align_corners ? (coord + 1) / 2 * static_cast<T>(size - 1)
                       : ((coord + 1) * static_cast<T>(size) - 1) / 2;
}

// Reflects coord into [twice_low / 2, twice_high / 2].
template <class T>
T reflect(T coord, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) {
    return T(0);
  }
  const T low = static_cast<T>(twice_low) / 2;
  const T span = static_cast<T>(twice_high - twice_low) / 2;
  coord = std::fabs(coord - low);
  const T extra = std::fmod(coord, span);
  // The flip count's parity, in floating point: the count can exceed any integer type.
  const bool even = std::fmod(std::floor(coord / span), T(2)) == 0;
  return even ? extra + low : span - extra + low;
}

template <class T>
T clip(T coord, int64_t size) {
  return std::fmin(static_cast<T>(size - 1), std::fmax(coord, T(0)));
}

// Applies the padding mode to an unnormalized coordinate.
template <class T>
T pad_coordinate(T coord, int64_t size, Padding padding, bool align_corners) {
  if (padding == Padding::kBorder) {
    return clip(coord, size);
  }
  if (padding == Padding::kReflection) {
    coord = align_corners ? reflect(coord, 0, 2 * (size - 1)) : reflect(coord, -1, 2 * size - 1);
    return clip(coord, size);
  }
  return coord;
}

template <class T>
T cubic1(T x, T a) {
  return ((a + 2) * x - (a + 3)) * x * x + 1;
}

template <class T>
T cubic2(T x, T a) {
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

template <class T>
void cubic_coefficients(T t, T coeffs[4]) {
  const T a = T(-0.75);
  coeffs[0] = cubic2(t + 1, a);
  coeffs[1] = cubic1(t, a);
  coeffs[2] = cubic1(1 - t, a);
  coeffs[3] = cubic2(2 - t, a);
}

Tensor& grid_sampler_2d_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& grid,
                            int64_t interpolation_mode, int64_t padding_mode, bool align_corners,
                            Tensor& out) {
  const char* op = log_name(grid_sampler_2d_out_name);
  if (!check_dtype_in(ctx, op, "input", input, dtypes::kFloatHBF16) ||
      !check_same_dtype(ctx, op, "input", input, "grid", grid) ||
      !check_same_dtype(ctx, op, "input", input, "out", out) ||
      !check_rank(ctx, op, "input", input, 4) || !check_rank(ctx, op, "grid", grid, 4)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, interpolation_mode >= 0 && interpolation_mode <= 2, InvalidArgument, out,
                      "%s: argument 'interpolation_mode' (%lld) must be 0, 1 or 2", op,
                      static_cast<long long>(interpolation_mode));
  ET_KERNEL_CHECK_MSG(ctx, padding_mode >= 0 && padding_mode <= 2, InvalidArgument, out,
                      "%s: argument 'padding_mode' (%lld) must be 0, 1 or 2", op,
                      static_cast<long long>(padding_mode));
  const int64_t n = input.sizes()[0], c = input.sizes()[1], h = input.sizes()[2],
                w = input.sizes()[3];
  ET_KERNEL_CHECK_MSG(ctx, grid.sizes()[0] == n && grid.sizes()[3] == 2, InvalidArgument, out,
                      "%s: argument 'grid' must have shape [N, H_out, W_out, 2] with N = %lld", op,
                      static_cast<long long>(n));
  ET_KERNEL_CHECK_MSG(ctx, h > 0 && w > 0, InvalidArgument, out,
                      "%s: the input's height and width must not be empty", op);
  const int64_t ho = grid.sizes()[1], wo = grid.sizes()[2];
  const int64_t shape[4] = {n, c, ho, wo};
  if (!resize_out(ctx, op, out, ArrayRef<int64_t>(shape, 4))) {
    return out;
  }
  const Interp interp = static_cast<Interp>(interpolation_mode);
  const Padding padding = static_cast<Padding>(padding_mode);
  const ScalarType ct =
      input.scalar_type() == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
  dispatch_dtype<dtypes::kFloat>(ctx, op, ct, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const LoadFn<T> ld = load_fn<T>(input.scalar_type());
    const StoreFn<T> st = store_fn<T>(out.scalar_type());
    const int64_t es = input.element_size();
    const char* x = static_cast<const char*>(input.const_data_ptr());
    const char* g = static_cast<const char*>(grid.const_data_ptr());
    char* y = static_cast<char*>(out.mutable_data_ptr());
    const auto& is = input.strides();
    const auto& gs = grid.strides();
    const auto& os = out.strides();
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t oy = 0; oy < ho; ++oy) {
        for (int64_t ox = 0; ox < wo; ++ox) {
          const int64_t goff = b * gs[0] + oy * gs[1] + ox * gs[2];
          const T gx = unnormalize(ld(g + goff * es), w, align_corners);
          const T gy = unnormalize(ld(g + (goff + gs[3]) * es), h, align_corners);
          for (int64_t ch = 0; ch < c; ++ch) {
            const int64_t plane = b * is[0] + ch * is[1];
            // The input value at whole-number coordinates (xx, yy), 0 outside the input
            // (and for NaN): the range is checked in floating point, before any conversion.
            auto at = [&](T xx, T yy) -> T {
              if (!(xx >= 0 && xx < static_cast<T>(w) && yy >= 0 && yy < static_cast<T>(h))) {
                return T(0);
              }
              const int64_t ix = static_cast<int64_t>(xx), iy = static_cast<int64_t>(yy);
              return ld(x + (plane + iy * is[2] + ix * is[3]) * es);
            };
            T v = 0;
            if (interp == Interp::kBicubic) {
              // Bicubic pads each of the 16 taps, not the sampling point.
              const T fx = std::floor(gx), fy = std::floor(gy);
              T cx[4], cy[4];
              cubic_coefficients(gx - fx, cx);
              cubic_coefficients(gy - fy, cy);
              for (int j = 0; j < 4; ++j) {
                T row = 0;
                for (int i = 0; i < 4; ++i) {
                  const T px = pad_coordinate(fx - 1 + i, w, padding, align_corners);
                  const T py = pad_coordinate(fy - 1 + j, h, padding, align_corners);
                  row += cx[i] * at(px, py);
                }
                v += cy[j] * row;
              }
            } else {
              const T px = pad_coordinate(gx, w, padding, align_corners);
              const T py = pad_coordinate(gy, h, padding, align_corners);
              if (interp == Interp::kNearest) {
                v = at(std::nearbyint(px), std::nearbyint(py));
              } else {
                const T x0 = std::floor(px), y0 = std::floor(py);
                const T tx = px - x0, ty = py - y0;
                v = at(x0, y0) * (1 - tx) * (1 - ty) + at(x0 + 1, y0) * tx * (1 - ty) +
                    at(x0, y0 + 1) * (1 - tx) * ty + at(x0 + 1, y0 + 1) * tx * ty;
              }
            }
            st(v, y + (b * os[0] + ch * os[1] + oy * os[2] + ox * os[3]) * es);
          }
        }
      }
    }
  });
  return out;
}

ETK_REGISTER_KERNEL(grid_sampler_2d_out_name, grid_sampler_2d_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
