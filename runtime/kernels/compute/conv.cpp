// Convolution driver: validates, picks a path (see conv.h) and the ISA level, manages scratch.
#include "conv.h"

#include <atomic>
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

// The im2col buffer holds at most this many floats (1 MiB); larger problems are processed in
// bands of output rows. A band that fits the L2 cache is still in it when the SGEMM packs it
// (a 64-channel 3x3 convolution at 56x56 ran about 15% faster than with a 16 MiB budget, whose
// one band went out to memory and back), and each band is still hundreds of columns wide.
constexpr int64_t kIm2colBudget = int64_t{1} << 18;

bool direct_path(const Conv2dParams& p) {
  return p.in_channels / p.groups == 1;
}

// Largest per-thread buffer the depthwise flat path may take (16 MiB); bigger planes (or absurd
// strides and paddings) use the row-by-row loops instead.
constexpr double kDwFlatBudgetFloats = double{1 << 22};

// Sets d.hq, d.wq, d.phase_floats for the depthwise flat path (conv_kernels_impl.inc) and
// returns the floats of its buffer, or 0 when the path does not apply (kernel not 3x3 or 5x5,
// strides above 4, or a buffer over budget).
int64_t dw_flat_floats(DwPlane* d) {
  const int64_t taps = d->kh * d->kw;
  if ((taps != 9 && taps != 25) || d->sh > 4 || d->sw > 4)
    return 0;
  const double hp = static_cast<double>(d->in_h) + 2.0 * static_cast<double>(d->ph);
  const double wp = static_cast<double>(d->in_w) + 2.0 * static_cast<double>(d->pw);
  if ((hp + static_cast<double>(d->sh)) * (wp + 2.0 * static_cast<double>(d->sw)) >
      kDwFlatBudgetFloats)
    return 0;
  d->hq = (d->in_h + 2 * d->ph + d->sh - 1) / d->sh;
  d->wq = (d->in_w + 2 * d->pw + d->sw - 1) / d->sw;
  // hq rows, at least wq zeros after them, rounded to whole cache lines, and 16 floats of
  // slack (the fill stores whole 16-float chunks).
  d->phase_floats = (d->hq * d->wq + d->wq + 15) / 16 * 16 + 16;
  const int64_t sums = d->wq > kDwFlatBlockFloats ? d->wq : kDwFlatBlockFloats;
  return d->sh * d->sw * d->phase_floats + sums;
}

bool pointwise_path(const Conv2dParams& p) {
  return p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_h == 0 &&
         p.pad_w == 0;
}

// Columns of the widest SGEMM register tile of any ISA level: a band of a multiple of this
// many columns leaves no partial tile.
constexpr int64_t kTileCols = 32;

// Padded columns (whole register tiles) of a band of `rows` output rows.
int64_t tile_cols(int64_t rows, int64_t ow) {
  return (rows * ow + kTileCols - 1) / kTileCols * kTileCols;
}

// Output rows per im2col band. The band must fit the budget; within that, the height is
// chosen (from half the budget up) so that the bands waste little on partial register tiles
// (a band of 7 rows of 56 ends in a quarter-empty tile) and split evenly between two threads,
// which take the first and the second half of the bands (see run_bands): the sum of both
// efficiencies, the taller band on a tie. The height never depends on the actual thread
// count, so every output comes from the same band's product at any thread count.
int64_t band_rows(int64_t k_dim, int64_t oh, int64_t ow) {
  int64_t budget = kIm2colBudget / (k_dim * ow);
  if (budget < 1)
    budget = 1;
  if (budget >= oh)
    return oh;
  int64_t best = budget;
  double best_score = -1.0;
  for (int64_t rows = budget; rows >= (budget + 1) / 2; --rows) {
    const int64_t bands = (oh + rows - 1) / rows, first_half = (bands + 1) / 2;
    const int64_t last = oh - (bands - 1) * rows;
    const int64_t padded = (bands - 1) * tile_cols(rows, ow) + tile_cols(last, ow);
    const int64_t second = bands - first_half;
    const int64_t padded_second =
        second == 0 ? 0 : (second - 1) * tile_cols(rows, ow) + tile_cols(last, ow);
    const int64_t slowest =
        padded - padded_second > padded_second ? padded - padded_second : padded_second;
    const double useful = static_cast<double>(oh * ow);
    const double score = useful / static_cast<double>(padded) + useful / (2.0 * slowest);
    if (score > best_score + 1e-9) {
      best_score = score;
      best = rows;
    }
  }
  return best;
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

bool conv_clamps(const Conv2dParams& p) {
  return !(p.clamp_min == -std::numeric_limits<float>::infinity() &&
           p.clamp_max == std::numeric_limits<float>::infinity());
}

// The bias + clamp pass (when the SGEMM did not fuse it) and the fused activation on output
// channels [c0, c1) of group g: len floats of each, channel oc's at y + oc * ld.
void channel_epilogue(const Conv2dParams& p, const ConvKernels& ck, const float* bias,
                      bool bias_clamp_pass, int64_t g, float* y, int64_t ld, int64_t len,
                      int64_t c0, int64_t c1) {
  const int64_t cog = p.out_channels / p.groups;
  for (int64_t oc = c0; oc < c1; ++oc) {
    if (bias_clamp_pass)
      ck.bias_clamp(y + oc * ld, len, bias != nullptr ? bias[g * cog + oc] : 0.0f, p.clamp_min,
                    p.clamp_max);
    conv_epilogue_activation(p, y + oc * ld, len);
  }
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

namespace {

// What a packed weight starts with; group g's packed A follows at
// kPackedWeightHeaderBytes + g * group_bytes.
struct PackedWeightHeader {
  int64_t groups, out_channels, k_dim;
  uint64_t group_bytes;
};
constexpr size_t kPackedWeightHeaderBytes = 64;
static_assert(sizeof(PackedWeightHeader) <= kPackedWeightHeaderBytes, "header fits its slot");

int64_t weight_k_dim(const Conv2dParams& p) {
  return p.in_channels / p.groups * p.kernel_h * p.kernel_w;
}

// Group g's packed A in packed_weight if it was packed for p's weight shape, else null (the
// SGEMM checks the ISA level and the sizes again).
const void* packed_group(const void* packed_weight, const Conv2dParams& p, int64_t g) {
  if (packed_weight == nullptr)
    return nullptr;
  PackedWeightHeader h;
  std::memcpy(&h, packed_weight, sizeof h);
  if (h.groups != p.groups || h.out_channels != p.out_channels || h.k_dim != weight_k_dim(p))
    return nullptr;
  return static_cast<const char*>(packed_weight) + kPackedWeightHeaderBytes + g * h.group_bytes;
}

// Bands of output rows the im2col path cuts one (batch, group) into.
int64_t im2col_bands(const Conv2dParams& p) {
  const int64_t oh = conv2d_out_h(p);
  const int64_t rows = band_rows(weight_k_dim(p), oh, conv2d_out_w(p));
  return (oh + rows - 1) / rows;
}

// The im2col path when it has several bands: the bands of every (batch, group) split across
// the thread pool in one region. Each task fills its own thread's im2col buffer and runs the
// band's SGEMM (inline) and epilogue on it, so no thread waits between the im2col and the
// product. Only whole bands are split, and the band height does not depend on the thread
// count, so every output comes from the same band's product whoever runs it. False if scratch
// memory cannot be had.
bool run_bands(const Conv2dParams& p, const ConvKernels& ck, const WorkspaceLayout& l,
               const float* input, const float* weight, const void* packed_weight,
               const float* bias, float* output) {
  const int64_t oh = conv2d_out_h(p), ow = conv2d_out_w(p);
  const int64_t cig = p.in_channels / p.groups, cog = p.out_channels / p.groups;
  const int64_t k_dim = weight_k_dim(p);
  const int64_t rows = band_rows(k_dim, oh, ow), bands = (oh + rows - 1) / rows;
  const int64_t in_plane = p.in_h * p.in_w, out_plane = oh * ow;
  const Conv2dGeometry geom{p.in_h,  p.in_w,  p.kernel_h,   p.kernel_w,   p.stride_h, p.stride_w,
                            p.pad_h, p.pad_w, p.dilation_h, p.dilation_w, ow};
  const bool clamp = conv_clamps(p);
  const bool fused = (bias != nullptr || clamp) && sgemm_fuses_epilogue();
  const bool bias_clamp_pass = (bias != nullptr || clamp) && !fused;
  std::atomic<bool> ok{true};
  const double band_macs = static_cast<double>(cog) * static_cast<double>(k_dim * rows * ow);
  parallel_items(p.batch * p.groups * bands, band_macs, [&](int64_t i0, int64_t i1) {
    // The SGEMM packs into the other slot, so nothing else on this thread touches this one.
    void* ws = thread_scratch(ScratchSlot::kConv, l.total);
    if (ws == nullptr) {
      ok.store(false, std::memory_order_relaxed);
      return;
    }
    float* col = static_cast<float*>(align_up(ws));
    void* gemm_ws = col + l.col_floats;
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t n = i / (p.groups * bands), g = i / bands % p.groups, band = i % bands;
      const int64_t oh0 = band * rows, oh1 = min64(oh, oh0 + rows), ncols = (oh1 - oh0) * ow;
      const float* x = input + (n * p.in_channels + g * cig) * in_plane;
      float* y = output + (n * p.out_channels + g * cog) * out_plane + oh0 * ow;
      ck.im2col(geom, x, cig, oh0, oh1, col);
      const SgemmEpilogue epi{bias != nullptr ? bias + g * cog : nullptr, p.clamp_min, p.clamp_max};
      sgemm_with_packed_a(cog, ncols, k_dim, weight + g * cog * k_dim, k_dim, col, ncols, y,
                          out_plane, packed_group(packed_weight, p, g), gemm_ws,
                          l.gemm_bytes + kScratchAlign, fused ? &epi : nullptr);
      if (bias_clamp_pass || p.activation != Activation::kNone)  // this band's part of each
        channel_epilogue(p, ck, bias, bias_clamp_pass, g, y, out_plane, ncols, 0, cog);
    }
  });
  return ok.load(std::memory_order_relaxed);
}

}  // namespace

size_t conv2d_packed_weight_size(const Conv2dParams& p) {
  if (!conv2d_params_valid(p) || direct_path(p))
    return 0;
  return kPackedWeightHeaderBytes +
         static_cast<size_t>(p.groups) *
             round_up_bytes(
                 sgemm_packed_a_size(active_isa(), p.out_channels / p.groups, weight_k_dim(p)),
                 kScratchAlign);
}

bool conv2d_pack_weight(const Conv2dParams& p, const float* weight, void* dst) {
  if (conv2d_packed_weight_size(p) == 0)
    return false;
  const Isa isa = active_isa();
  const int64_t cog = p.out_channels / p.groups, k_dim = weight_k_dim(p);
  const PackedWeightHeader h{p.groups, p.out_channels, k_dim,
                             round_up_bytes(sgemm_packed_a_size(isa, cog, k_dim), kScratchAlign)};
  std::memcpy(dst, &h, sizeof h);
  for (int64_t g = 0; g < p.groups; ++g) {
    sgemm_pack_a(isa, cog, k_dim, weight + g * cog * k_dim, k_dim,
                 static_cast<char*>(dst) + kPackedWeightHeaderBytes + g * h.group_bytes);
  }
  return true;
}

bool conv2d_nchw(const Conv2dParams& p, const float* input, const float* weight, const float* bias,
                 float* output, void* workspace, size_t workspace_bytes) {
  return conv2d_nchw_packed(p, input, weight, nullptr, bias, output, workspace, workspace_bytes);
}

bool conv2d_nchw_packed(const Conv2dParams& p, const float* input, const float* weight,
                        const void* packed_weight, const float* bias, float* output,
                        void* workspace, size_t workspace_bytes) {
  if (!conv2d_params_valid(p))
    return false;
  const ConvKernels& ck = conv_kernels();
  const int64_t oh = conv2d_out_h(p), ow = conv2d_out_w(p);
  const int64_t cig = p.in_channels / p.groups, cog = p.out_channels / p.groups;
  const int64_t in_plane = p.in_h * p.in_w, out_plane = oh * ow;
  const bool clamp = conv_clamps(p);

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
    d.scratch = nullptr;
    const int64_t flat_floats = dw_flat_floats(&d);
    // Output planes are independent: split them (batch and channels) across the pool.
    parallel_items(p.batch * p.out_channels, out_plane * p.kernel_h * p.kernel_w,
                   [&](int64_t q0, int64_t q1) {
                     DwPlane dq = d;
                     // Each thread its own flat-path buffer; without one, the row loops.
                     if (flat_floats > 0)
                       dq.scratch = static_cast<float*>(thread_scratch(
                           ScratchSlot::kConv, static_cast<size_t>(flat_floats) * sizeof(float)));
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
  if (!pointwise_path(p) && im2col_bands(p) >= 2)
    return run_bands(p, ck, l, input, weight, packed_weight, bias, output);
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
  const Conv2dGeometry geom{p.in_h,  p.in_w,  p.kernel_h,   p.kernel_w,   p.stride_h, p.stride_w,
                            p.pad_h, p.pad_w, p.dilation_h, p.dilation_w, ow};
  const int64_t rows = pointwise ? oh : band_rows(k_dim, oh, ow);
  const bool fused = (bias != nullptr || clamp) && sgemm_fuses_epilogue();
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t g = 0; g < p.groups; ++g) {
      const float* x = input + (n * p.in_channels + g * cig) * in_plane;
      const float* w = weight + g * cog * k_dim;
      float* y = output + (n * p.out_channels + g * cog) * out_plane;
      const SgemmEpilogue epi{bias != nullptr ? bias + g * cog : nullptr, p.clamp_min, p.clamp_max};
      for (int64_t oh0 = 0; oh0 < oh; oh0 += rows) {
        const int64_t oh1 = min64(oh, oh0 + rows);
        const int64_t ncols = (oh1 - oh0) * ow;
        const float* b = x;
        int64_t ldb = out_plane;
        if (!pointwise) {
          // Input channels fill disjoint rows of col: split them across the pool.
          const int64_t taps = p.kernel_h * p.kernel_w;
          parallel_items(cig, taps * ncols, [&](int64_t c0, int64_t c1) {
            ck.im2col(geom, x + c0 * in_plane, c1 - c0, oh0, oh1, col + c0 * taps * ncols);
          });
          b = col;
          ldb = ncols;
        }
        // y[cog, band] = W[cog, k_dim] * col[k_dim, band]; rows of y are out_plane apart. Bias
        // and clamp go into the micro-kernel's stores when it can apply them.
        sgemm_with_packed_a(cog, ncols, k_dim, w, k_dim, b, ldb, y + oh0 * ow, out_plane,
                            packed_group(packed_weight, p, g), gemm_ws, gemm_ws_bytes,
                            fused ? &epi : nullptr);
      }
      const bool bias_clamp_pass = (bias != nullptr || clamp) && !fused;
      if (bias_clamp_pass || p.activation != Activation::kNone) {
        parallel_items(cog, out_plane, [&](int64_t c0, int64_t c1) {
          channel_epilogue(p, ck, bias, bias_clamp_pass, g, y, out_plane, out_plane, c0, c1);
        });
      }
    }
  }
  return true;
}

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
