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

// A band of output rows covers at most this many im2col floats (1 MiB); larger problems are
// processed in bands. A band that fits the L2 cache is still in it when the SGEMM packs it
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

// Planes of up to this many padded input pixels (a 28x28 plane with a 5x5 kernel) take the
// depthwise block path (DwBlock); bigger ones the per-plane loops, which are as fast there. On
// the small planes of the later layers the block path runs 1.5 to 3 times as fast (the per-plane
// loops spend most of their time outside the sums there).
constexpr double kDwBlockMaxPixels = 1024;

// Depthwise with one output channel per input channel, a kernel of at most kDwBlockMaxTaps and a
// small plane: the block path.
bool dw_block_path(const Conv2dParams& p) {
  const double hp = static_cast<double>(p.in_h) + 2.0 * static_cast<double>(p.pad_h);
  const double wp = static_cast<double>(p.in_w) + 2.0 * static_cast<double>(p.pad_w);
  return p.groups == p.in_channels && p.out_channels == p.in_channels &&
         static_cast<double>(p.kernel_h) * static_cast<double>(p.kernel_w) <= kDwBlockMaxTaps &&
         hp * wp <= kDwBlockMaxPixels;
}

// Bytes of the block path's scratch (see DwBlock::scratch).
size_t dw_block_bytes(const Conv2dParams& p, int64_t oh, int64_t ow) {
  const int64_t hp = p.in_h + 2 * p.pad_h, wp = p.in_w + 2 * p.pad_w;
  return static_cast<size_t>((hp * wp + oh * ow) * kDwBlockChannels) * sizeof(float);
}

bool pointwise_path(const Conv2dParams& p) {
  return p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_h == 0 &&
         p.pad_w == 0;
}

// The cost of one band's product of `cols` columns with m rows, in columns: the columns that the
// SGEMM gives its register tiles, padded to whole tiles of the tile it picks for them, and two
// for each column left to dot products (sgemm_packed_a_tile_columns; a dot product per output is
// about half as fast as a tile).
int64_t band_cost(int64_t m, int64_t k_dim, int64_t cols) {
  const int64_t tiled = sgemm_packed_a_tile_columns(m, cols, k_dim);
  int64_t cost = 2 * (cols - tiled);
  if (tiled > 0) {
    const int64_t nr = sgemm_packed_a_tile_cols(m, tiled, k_dim);
    cost += (tiled + nr - 1) / nr * nr;
  }
  return cost;
}

// Output rows per im2col band of a product with m rows. The band must fit the budget; within
// that, the height is chosen (from half the budget up) so that the bands waste little on
// partial register tiles (a band of 7 rows of 56 ends in a 32-column tile three quarters
// empty; 6 rows fill seven 48-column tiles) and split evenly between two threads, which take
// the first and the second half of the bands (see run_bands): the sum of both efficiencies, the
// taller band on a tie. The height never depends on the actual thread count, so every output
// comes from the same band's product at any thread count.
int64_t band_rows(int64_t m, int64_t k_dim, int64_t oh, int64_t ow) {
  int64_t budget = kIm2colBudget / (k_dim * ow);
  if (budget < 1)
    budget = 1;
  if (budget >= oh)
    return oh;
  const double useful = static_cast<double>(oh * ow);
  int64_t best = budget;
  double best_score = -1.0;
  for (int64_t rows = budget; rows >= (budget + 1) / 2; --rows) {
    const int64_t bands = (oh + rows - 1) / rows, second = bands - (bands + 1) / 2;
    const int64_t full = band_cost(m, k_dim, rows * ow);
    const int64_t last = band_cost(m, k_dim, (oh - (bands - 1) * rows) * ow);
    const int64_t padded = (bands - 1) * full + last;
    const int64_t padded_second = second == 0 ? 0 : (second - 1) * full + last;
    const int64_t slowest =
        padded - padded_second > padded_second ? padded - padded_second : padded_second;
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

// Whether the im2col of p goes straight into the SGEMM's packed B panels (no column buffer):
// when the product of a whole band takes the SGEMM's tiled path, the one that packs B.
bool panel_path(const Conv2dParams& p, int64_t band_cols) {
  const int64_t cig = p.in_channels / p.groups, cog = p.out_channels / p.groups;
  return !direct_path(p) && !pointwise_path(p) &&
         sgemm_packed_a_tiles(cog, band_cols, cig * p.kernel_h * p.kernel_w);
}

WorkspaceLayout layout(const Conv2dParams& p) {
  WorkspaceLayout l;
  if (direct_path(p))
    return l;
  const int64_t oh = conv2d_out_h(p), ow = conv2d_out_w(p);
  const int64_t cig = p.in_channels / p.groups, cog = p.out_channels / p.groups;
  const int64_t k_dim = cig * p.kernel_h * p.kernel_w;
  int64_t n_dim = oh * ow;
  if (!pointwise_path(p)) {
    n_dim = band_rows(cog, k_dim, oh, ow) * ow;
    // The panel path's column buffer holds only the last few columns of a band that go to dot
    // products (sgemm_packed_a_tile_columns).
    l.col_floats = static_cast<size_t>(k_dim * (panel_path(p, n_dim) ? kSgemmDotColumns : n_dim));
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

// One band's im2col as the SGEMM's B packer (panel_path): column j of the band is output pixel
// col0 + j of the plane.
struct BandPanels {
  const ConvKernels* ck;
  const Conv2dGeometry* geom;
  const float* x;  // the group's first input plane
  int64_t col0;
};

void pack_band_panels(const void* ctx, int64_t p0, int64_t kc, int64_t j0, int64_t nc, int64_t nr,
                      float* dst) {
  const BandPanels& b = *static_cast<const BandPanels*>(ctx);
  b.ck->im2col_panels(*b.geom, b.x, p0, kc, b.col0 + j0, nc, nr, dst);
}

// The depthwise block path (dw_block_path(p)): blocks of kDwBlockChannels channels, split with
// the batch across the pool; a thread that cannot get its scratch runs its channels through the
// per-plane row loops (d: the plane geometry, without scratch).
void run_dw_blocks(const ConvKernels& ck, const Conv2dParams& p, const DwPlane& d,
                   const float* input, const float* weight, const float* bias, float* output) {
  const int64_t taps = p.kernel_h * p.kernel_w;
  const int64_t in_plane = p.in_h * p.in_w, out_plane = d.out_h * d.out_w;
  const int64_t blocks = (p.out_channels + kDwBlockChannels - 1) / kDwBlockChannels;
  const size_t bytes = dw_block_bytes(p, d.out_h, d.out_w);
  parallel_items(p.batch * blocks, kDwBlockChannels * out_plane * taps,
                 [&](int64_t q0, int64_t q1) {
                   void* scratch = thread_scratch(ScratchSlot::kConv, bytes + kScratchAlign);
                   for (int64_t q = q0; q < q1; ++q) {
                     const int64_t n = q / blocks, c0 = q % blocks * kDwBlockChannels;
                     const int64_t channels = min64(kDwBlockChannels, p.out_channels - c0);
                     float* out = output + (n * p.out_channels + c0) * out_plane;
                     if (scratch != nullptr) {
                       const DwBlock b{input + (n * p.in_channels + c0) * in_plane,
                                       channels,
                                       p.in_h,
                                       p.in_w,
                                       p.kernel_h,
                                       p.kernel_w,
                                       p.stride_h,
                                       p.stride_w,
                                       p.pad_h,
                                       p.pad_w,
                                       p.dilation_h,
                                       p.dilation_w,
                                       d.out_h,
                                       d.out_w,
                                       weight + c0 * taps,
                                       bias != nullptr ? bias + c0 : nullptr,
                                       p.clamp_min,
                                       p.clamp_max,
                                       out,
                                       static_cast<float*>(align_up(scratch))};
                       ck.depthwise_block(b);
                     } else {
                       for (int64_t c = c0; c < c0 + channels; ++c) {
                         DwPlane dq = d;
                         dq.in = input + (n * p.in_channels + c) * in_plane;
                         dq.w = weight + c * taps;
                         dq.out = output + (n * p.out_channels + c) * out_plane;
                         dq.bias = bias != nullptr ? bias[c] : 0.0f;
                         ck.depthwise_plane(dq);
                       }
                     }
                     conv_epilogue_activation(p, out, channels * out_plane);
                   }
                 });
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

// Columns of each SGEMM the convolution runs (a band of output rows, or the whole plane): what
// the packed weight's register tile is chosen for.
int64_t gemm_columns(const Conv2dParams& p) {
  const int64_t oh = conv2d_out_h(p), ow = conv2d_out_w(p);
  const int64_t cog = p.out_channels / p.groups;
  const int64_t n = pointwise_path(p) ? oh * ow : band_rows(cog, weight_k_dim(p), oh, ow) * ow;
  return sgemm_packed_a_tile_columns(cog, n, weight_k_dim(p));
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

// What every band's product of one convolution shares (the im2col path and the pointwise one).
struct BandProducts {
  const Conv2dParams& p;
  const ConvKernels& ck;
  const Conv2dGeometry& geom;
  const float* input;
  const float* weight;
  const void* packed_weight;
  const float* bias;
  float* output;
  bool pointwise;
  bool panels;  // panel_path: the im2col goes straight into the SGEMM's packed B panels
  bool fused;   // the SGEMM applies bias and clamp itself
};

// y[cog, band] = W[cog, k_dim] * im2col[k_dim, band] for output rows [oh0, oh1) of batch n,
// group g (the pointwise path: the input plane itself). The im2col goes straight into the
// SGEMM's packed B panels (b.panels) or into col, split by input channels (inline when called
// from a parallel region); the columns past the last whole register tile go to dot products, a
// product of their own (sgemm_packed_a_tile_columns).
void band_product(const BandProducts& b, int64_t n, int64_t g, int64_t oh0, int64_t oh1, float* col,
                  void* gemm_ws, size_t gemm_ws_bytes) {
  const Conv2dParams& p = b.p;
  const int64_t cig = p.in_channels / p.groups, cog = p.out_channels / p.groups;
  const int64_t k_dim = weight_k_dim(p), ow = b.geom.out_w;
  const int64_t in_plane = p.in_h * p.in_w, out_plane = conv2d_out_h(p) * ow;
  const float* x = b.input + (n * p.in_channels + g * cig) * in_plane;
  const float* w = b.weight + g * cog * k_dim;
  float* y = b.output + (n * p.out_channels + g * cog) * out_plane + oh0 * ow;
  const SgemmEpilogue epi{b.bias != nullptr ? b.bias + g * cog : nullptr, p.clamp_min, p.clamp_max};
  const SgemmEpilogue* band_epi = b.fused ? &epi : nullptr;
  const void* packed = packed_group(b.packed_weight, p, g);
  const int64_t ncols = (oh1 - oh0) * ow;
  const int64_t tiled = sgemm_packed_a_tile_columns(cog, ncols, k_dim);
  if (b.panels) {
    const BandPanels src{&b.ck, &b.geom, x, oh0 * ow};
    sgemm_with_packed_a_b_packer(cog, tiled, k_dim, w, k_dim, SgemmBPacker{pack_band_panels, &src},
                                 y, out_plane, packed, gemm_ws, gemm_ws_bytes, band_epi);
    if (tiled < ncols) {
      // Panels as wide as the columns are a row-major k_dim x (ncols - tiled) matrix.
      const int64_t rest = ncols - tiled;
      b.ck.im2col_panels(b.geom, x, 0, k_dim, oh0 * ow + tiled, rest, rest, col);
      sgemm_with_packed_a(cog, rest, k_dim, w, k_dim, col, rest, y + tiled, out_plane, packed,
                          gemm_ws, gemm_ws_bytes, band_epi);
    }
    return;
  }
  const float* src = x;
  int64_t ldb = out_plane;
  if (!b.pointwise) {
    // Input channels fill disjoint rows of col: split them across the pool.
    const int64_t taps = p.kernel_h * p.kernel_w;
    parallel_items(cig, taps * ncols, [&](int64_t c0, int64_t c1) {
      b.ck.im2col(b.geom, x + c0 * in_plane, c1 - c0, oh0, oh1, col + c0 * taps * ncols);
    });
    src = col;
    ldb = ncols;
  }
  // Rows of y are out_plane apart. Bias and clamp go into the micro-kernel's stores when it can
  // apply them.
  sgemm_with_packed_a(cog, tiled, k_dim, w, k_dim, src, ldb, y, out_plane, packed, gemm_ws,
                      gemm_ws_bytes, band_epi);
  if (tiled < ncols)
    sgemm_with_packed_a(cog, ncols - tiled, k_dim, w, k_dim, src + tiled, ldb, y + tiled, out_plane,
                        packed, gemm_ws, gemm_ws_bytes, band_epi);
}

// Bands of output rows the im2col path cuts one (batch, group) into.
int64_t im2col_bands(const Conv2dParams& p) {
  const int64_t oh = conv2d_out_h(p);
  const int64_t rows = band_rows(p.out_channels / p.groups, weight_k_dim(p), oh, conv2d_out_w(p));
  return (oh + rows - 1) / rows;
}

// The im2col path when it has several bands: the bands of every (batch, group) split across
// the thread pool in one region. Each task runs the band's im2col (into its own thread's
// buffer, or straight into the SGEMM's panels), SGEMM (inline) and epilogue, so no thread waits
// between the im2col and the product. Only whole bands are split, and the band height does not
// depend on the thread count, so every output comes from the same band's product whoever runs
// it. False if scratch memory cannot be had.
bool run_bands(const BandProducts& b, const WorkspaceLayout& l) {
  const Conv2dParams& p = b.p;
  const int64_t oh = conv2d_out_h(p), ow = conv2d_out_w(p);
  const int64_t cog = p.out_channels / p.groups, k_dim = weight_k_dim(p);
  const int64_t rows = band_rows(cog, k_dim, oh, ow), bands = (oh + rows - 1) / rows;
  const int64_t out_plane = oh * ow;
  const bool bias_clamp_pass = (b.bias != nullptr || conv_clamps(p)) && !b.fused;
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
      const int64_t oh0 = band * rows, oh1 = min64(oh, oh0 + rows);
      band_product(b, n, g, oh0, oh1, col, gemm_ws, l.gemm_bytes + kScratchAlign);
      if (bias_clamp_pass || p.activation != Activation::kNone) {  // this band's part of each
        float* y = b.output + (n * p.out_channels + g * cog) * out_plane + oh0 * ow;
        channel_epilogue(p, b.ck, b.bias, bias_clamp_pass, g, y, out_plane, (oh1 - oh0) * ow, 0,
                         cog);
      }
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
             round_up_bytes(sgemm_packed_a_size(active_isa(), p.out_channels / p.groups,
                                                weight_k_dim(p), gemm_columns(p)),
                            kScratchAlign);
}

bool conv2d_pack_weight(const Conv2dParams& p, const float* weight, void* dst) {
  if (conv2d_packed_weight_size(p) == 0)
    return false;
  const Isa isa = active_isa();
  const int64_t cog = p.out_channels / p.groups, k_dim = weight_k_dim(p);
  const int64_t n = gemm_columns(p);
  const PackedWeightHeader h{
      p.groups, p.out_channels, k_dim,
      round_up_bytes(sgemm_packed_a_size(isa, cog, k_dim, n), kScratchAlign)};
  std::memcpy(dst, &h, sizeof h);
  for (int64_t g = 0; g < p.groups; ++g) {
    sgemm_pack_a(isa, cog, k_dim, weight + g * cog * k_dim, k_dim,
                 static_cast<char*>(dst) + kPackedWeightHeaderBytes + g * h.group_bytes, n);
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
  const int64_t cog = p.out_channels / p.groups;
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
    if (dw_block_path(p)) {
      run_dw_blocks(ck, p, d, input, weight, bias, output);
      return true;
    }
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
  const bool pointwise = pointwise_path(p);
  const int64_t rows = pointwise ? oh : band_rows(cog, weight_k_dim(p), oh, ow);
  const Conv2dGeometry geom{p.in_h,  p.in_w,  p.kernel_h,   p.kernel_w,   p.stride_h, p.stride_w,
                            p.pad_h, p.pad_w, p.dilation_h, p.dilation_w, ow};
  const bool fused = (bias != nullptr || clamp) && sgemm_fuses_epilogue();
  const BandProducts b{p,         ck,
                       geom,      input,
                       weight,    packed_weight,
                       bias,      output,
                       pointwise, panel_path(p, rows * ow),
                       fused};
  if (!pointwise && im2col_bands(p) >= 2)
    return run_bands(b, l);
  // One band per (batch, group) (or the pointwise product): its SGEMM splits itself, each task
  // packing the im2col into its own panels, or the im2col into col splits by input channels.
  void* ws = workspace;
  if (ws == nullptr || workspace_bytes < l.total) {
    ws = thread_scratch(ScratchSlot::kConv, l.total);
    if (ws == nullptr)
      return false;
  }
  float* col = static_cast<float*>(align_up(ws));
  void* gemm_ws = col + l.col_floats;
  const size_t gemm_ws_bytes = l.gemm_bytes + kScratchAlign;  // sgemm aligns it itself
  const bool bias_clamp_pass = (bias != nullptr || clamp) && !fused;
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t g = 0; g < p.groups; ++g) {
      band_product(b, n, g, 0, oh, col, gemm_ws, gemm_ws_bytes);
      if (bias_clamp_pass || p.activation != Activation::kNone) {
        float* y = output + (n * p.out_channels + g * cog) * out_plane;
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
