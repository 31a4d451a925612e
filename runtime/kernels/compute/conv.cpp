// Convolution driver: validates, picks a path (see conv.h) and the ISA level, manages scratch.
#include "conv.h"

#include <cstring>

#include <executorch/runtime/kernels/detail/checked_math.h>

#include "conv_kernels.h"
#include "gemm.h"
#include "isa.h"
#include "parallel.h"
#include "scratch.h"

namespace executorch {
namespace kernels {
namespace compute {
namespace {

const ConvKernels& conv_kernels() {
  switch (active_isa()) {  // active_isa() never exceeds detected_isa()
#if defined(__aarch64__)
    case Isa::kNeonDot:
    case Isa::kNeon:
      return kConvNeon;
#elif defined(__x86_64__)
    case Isa::kAvx512:
      return kConvAvx512;
    case Isa::kAvx2:
      return kConvAvx2;
#else
    default:  // no ISA variants are built for this architecture
#endif
    case Isa::kBaseline:
      break;
  }
  return kConvBaseline;
}

inline int64_t min64(int64_t a, int64_t b) {
  return a < b ? a : b;
}

// in + 2 * pad - dil * (k - 1) - 1 (the output-size numerator) into *num; false if a term
// overflows int64, which only absurd parameters do.
bool size_numerator(int64_t in, int64_t k, int64_t pad, int64_t dil, int64_t* num) {
  using detail::checked_add;
  using detail::checked_mul;
  using detail::checked_sub;
  int64_t two_pad, span;
  return checked_mul(pad, 2, &two_pad) && checked_mul(dil, k - 1, &span) &&
         checked_add(in, two_pad, num) && checked_sub(*num, span, num) && checked_sub(*num, 1, num);
}

// PyTorch's output size along one dim; 0 for an invalid or overflowing geometry.
int64_t out_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil) {
  int64_t num;
  if (stride <= 0 || !size_numerator(in, k, pad, dil, &num) || num < 0)
    return 0;
  return num / stride + 1;
}

// The im2col buffer holds at most this many floats (16 MiB); larger problems are processed in
// bands of output rows, so memory stays bounded without hurting the GEMM (each band is still
// thousands of columns wide).
constexpr int64_t kIm2colBudget = int64_t{4} << 20;

bool direct_path(const Conv2dParams& p) {
  return p.in_channels / p.groups == 1;
}

bool pointwise_path(const Conv2dParams& p) {
  return p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_h == 0 &&
         p.pad_w == 0;
}

// Output rows per im2col band.
int64_t band_rows(int64_t k_dim, int64_t oh, int64_t ow) {
  int64_t rows = kIm2colBudget / (k_dim * ow);
  if (rows < 1)
    rows = 1;
  return min64(rows, oh);
}

// col[(ic*kh + r)*kw + s][(oh - oh0)*OW + ow] = x[ic][oh*sh - ph + r*dh][ow*sw - pw + s*dw], or 0
// outside the image; for output rows [oh0, oh1). Row by row, so the copy is a memcpy-like loop
// when stride_w == 1.
void im2col(const Conv2dParams& p, const float* x, int64_t cig, int64_t oh0, int64_t oh1,
            int64_t ow_n, float* col) {
  const int64_t ncols = (oh1 - oh0) * ow_n;
  for (int64_t ic = 0; ic < cig; ++ic) {
    const float* plane = x + ic * p.in_h * p.in_w;
    for (int64_t r = 0; r < p.kernel_h; ++r) {
      for (int64_t s = 0; s < p.kernel_w; ++s) {
        float* dst = col + ((ic * p.kernel_h + r) * p.kernel_w + s) * ncols;
        const int64_t off = s * p.dilation_w - p.pad_w;
        // Output columns whose input column is inside [0, in_w).
        int64_t lo = off >= 0 ? 0 : (-off + p.stride_w - 1) / p.stride_w;
        int64_t top = p.in_w - 1 - off;
        int64_t hi = top < 0 ? 0 : top / p.stride_w + 1;
        lo = min64(lo, ow_n);
        hi = min64(hi, ow_n);
        if (hi < lo)
          hi = lo;
        for (int64_t oh = oh0; oh < oh1; ++oh, dst += ow_n) {
          const int64_t ih = oh * p.stride_h - p.pad_h + r * p.dilation_h;
          if (ih < 0 || ih >= p.in_h) {
            std::memset(dst, 0, static_cast<size_t>(ow_n) * sizeof(float));
            continue;
          }
          const float* src = plane + ih * p.in_w + off;
          for (int64_t ow = 0; ow < lo; ++ow)
            dst[ow] = 0.0f;
          if (p.stride_w == 1) {
            std::memcpy(dst + lo, src + lo, static_cast<size_t>(hi - lo) * sizeof(float));
          } else {
            for (int64_t ow = lo; ow < hi; ++ow)
              dst[ow] = src[ow * p.stride_w];
          }
          for (int64_t ow = hi; ow < ow_n; ++ow)
            dst[ow] = 0.0f;
        }
      }
    }
  }
}

struct WorkspaceLayout {
  size_t col_floats = 0;
  size_t gemm_bytes = 0;
  size_t total = 0;
};

WorkspaceLayout layout(const Conv2dParams& p) {
  WorkspaceLayout l;
  if (direct_path(p))
    return l;
  const int64_t oh = conv2d_out_h(p), ow = conv2d_out_w(p);
  const int64_t cig = p.in_channels / p.groups, cog = p.out_channels / p.groups;
  const int64_t k_dim = cig * p.kernel_h * p.kernel_w;
  int64_t n_dim = oh * ow;
  if (!pointwise_path(p)) {
    n_dim = band_rows(k_dim, oh, ow) * ow;
    l.col_floats = static_cast<size_t>(k_dim * n_dim);
  }
  l.gemm_bytes = sgemm_workspace_size(cog, n_dim, k_dim);
  l.total =
      round_up_bytes(l.col_floats * sizeof(float), kScratchAlign) + l.gemm_bytes + kScratchAlign;
  return l;
}

// The fused activation on one finished output block (n floats of one output channel or of
// consecutive channels), after bias and clamp.
void conv_epilogue_activation(const Conv2dParams& p, float* y, int64_t n) {
  apply_activation(p.activation, y, y, n);
}

}  // namespace

int64_t conv2d_out_h(const Conv2dParams& p) {
  return out_size(p.in_h, p.kernel_h, p.pad_h, p.stride_h, p.dilation_h);
}

int64_t conv2d_out_w(const Conv2dParams& p) {
  return out_size(p.in_w, p.kernel_w, p.pad_w, p.stride_w, p.dilation_w);
}

bool conv2d_params_valid(const Conv2dParams& p) {
  if (p.batch < 0 || p.in_channels <= 0 || p.in_h <= 0 || p.in_w <= 0 || p.out_channels <= 0 ||
      p.kernel_h <= 0 || p.kernel_w <= 0 || p.stride_h <= 0 || p.stride_w <= 0 || p.pad_h < 0 ||
      p.pad_w < 0 || p.dilation_h <= 0 || p.dilation_w <= 0 || p.groups <= 0) {
    return false;
  }
  if (p.in_channels % p.groups != 0 || p.out_channels % p.groups != 0)
    return false;
  // The dilated kernel must fit the padded input (numerator of the size formula >= 0, and
  // computable: out_size() is 0 otherwise).
  return conv2d_out_h(p) > 0 && conv2d_out_w(p) > 0;
}

size_t conv2d_workspace_size(const Conv2dParams& p) {
  if (!conv2d_params_valid(p))
    return 0;
  return layout(p).total;
}

bool conv2d_nchw(const Conv2dParams& p, const float* input, const float* weight, const float* bias,
                 float* output, void* workspace, size_t workspace_bytes) {
  if (!conv2d_params_valid(p))
    return false;
  const ConvKernels& ck = conv_kernels();
  const int64_t oh = conv2d_out_h(p), ow = conv2d_out_w(p);
  const int64_t cig = p.in_channels / p.groups, cog = p.out_channels / p.groups;
  const int64_t in_plane = p.in_h * p.in_w, out_plane = oh * ow;
  const bool clamp = !(p.clamp_min == -std::numeric_limits<float>::infinity() &&
                       p.clamp_max == std::numeric_limits<float>::infinity());

  if (direct_path(p)) {
    // Each output channel reads one input plane: a GEMM would have K = kh*kw only, so the
    // direct loops win (this is depthwise, and also 1-channel stems).
    DwPlane d{};
    d.in_h = p.in_h;
    d.in_w = p.in_w;
    d.kh = p.kernel_h;
    d.kw = p.kernel_w;
    d.sh = p.stride_h;
    d.sw = p.stride_w;
    d.ph = p.pad_h;
    d.pw = p.pad_w;
    d.dh = p.dilation_h;
    d.dw = p.dilation_w;
    d.out_h = oh;
    d.out_w = ow;
    d.lo = p.clamp_min;
    d.hi = p.clamp_max;
    // Output planes are independent: split them (batch and channels) across the pool.
    parallel_items(p.batch * p.out_channels, out_plane * p.kernel_h * p.kernel_w,
                   [&](int64_t q0, int64_t q1) {
                     DwPlane dq = d;
                     for (int64_t q = q0; q < q1; ++q) {
                       const int64_t n = q / p.out_channels, oc = q % p.out_channels;
                       const int64_t g = oc / cog;
                       dq.in = input + (n * p.in_channels + g) * in_plane;
                       dq.w = weight + oc * p.kernel_h * p.kernel_w;
                       dq.out = output + (n * p.out_channels + oc) * out_plane;
                       dq.bias = bias != nullptr ? bias[oc] : 0.0f;
                       ck.depthwise_plane(dq);
                       conv_epilogue_activation(p, dq.out, out_plane);
                     }
                   });
    return true;
  }

  const WorkspaceLayout l = layout(p);
  void* ws = workspace;
  if (ws == nullptr || workspace_bytes < l.total) {
    ws = thread_scratch(ScratchSlot::kConv, l.total);
    if (ws == nullptr)
      return false;
  }
  float* col = static_cast<float*>(align_up(ws));
  void* gemm_ws = col + l.col_floats;
  const size_t gemm_ws_bytes = l.gemm_bytes + kScratchAlign;  // sgemm aligns it itself

  const int64_t k_dim = cig * p.kernel_h * p.kernel_w;
  const bool pointwise = pointwise_path(p);
  const int64_t rows = pointwise ? oh : band_rows(k_dim, oh, ow);
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t g = 0; g < p.groups; ++g) {
      const float* x = input + (n * p.in_channels + g * cig) * in_plane;
      const float* w = weight + g * cog * k_dim;
      float* y = output + (n * p.out_channels + g * cog) * out_plane;
      for (int64_t oh0 = 0; oh0 < oh; oh0 += rows) {
        const int64_t oh1 = min64(oh, oh0 + rows);
        const int64_t ncols = (oh1 - oh0) * ow;
        const float* b = x;
        int64_t ldb = out_plane;
        if (!pointwise) {
          // Input channels fill disjoint rows of col: split them across the pool.
          const int64_t taps = p.kernel_h * p.kernel_w;
          parallel_items(cig, taps * ncols, [&](int64_t c0, int64_t c1) {
            im2col(p, x + c0 * in_plane, c1 - c0, oh0, oh1, ow, col + c0 * taps * ncols);
          });
          b = col;
          ldb = ncols;
        }
        // y[cog, band] = W[cog, k_dim] * col[k_dim, band]; rows of y are out_plane apart.
        sgemm(Trans::kNo, Trans::kNo, cog, ncols, k_dim, 1.0f, w, k_dim, b, ldb, 0.0f, y + oh0 * ow,
              out_plane, gemm_ws, gemm_ws_bytes);
      }
      if (bias != nullptr || clamp || p.activation != Activation::kNone) {
        parallel_items(cog, out_plane, [&](int64_t c0, int64_t c1) {
          for (int64_t oc = c0; oc < c1; ++oc) {
            ck.bias_clamp(y + oc * out_plane, out_plane,
                          bias != nullptr ? bias[g * cog + oc] : 0.0f, p.clamp_min, p.clamp_max);
            conv_epilogue_activation(p, y + oc * out_plane, out_plane);
          }
        });
      }
    }
  }
  return true;
}

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
