// Quantized NHWC convolution driver (qconv_nhwc.h): validation, packing, the input's
// quantization into scratch, the blocks of output pixels the integer GEMM reads (window taps in
// place, or im2col rows for groups), and the depthwise rows across the thread pool.
#include "qconv_nhwc.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>

#include "parallel.h"
#include "qconv_nhwc_kernels.h"
#include "scratch.h"

namespace executorch {
namespace kernels {
namespace compute {
namespace {

std::atomic<bool> g_vnni_allowed{true};

const QConvNhwcKernels& qkernels_for(Isa isa) {
  if (static_cast<int>(isa) > static_cast<int>(detected_isa()))
    isa = detected_isa();
#if defined(__x86_64__)
  switch (isa) {
    case Isa::kAvx512: {
      static const bool vnni = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512vnni") != 0;
      }();
      return vnni && g_vnni_allowed.load(std::memory_order_relaxed) ? kQConvNhwcAvx512Vnni
                                                                    : kQConvNhwcAvx512;
    }
    case Isa::kAvx2:
      return kQConvNhwcAvx2;
    case Isa::kBaseline:
      break;
  }
#elif defined(__aarch64__)
  if (isa == Isa::kNeonDot)
    return kQConvNhwcNeonDot;
#else
  (void)isa;  // the portable loops, vectorized by the compiler, on every other architecture
#endif
  return kQConvNhwcBaseline;
}

inline int64_t min64(int64_t a, int64_t b) {
  return a < b ? a : b;
}
inline int64_t round_up4(int64_t n) {
  return (n + 3) / 4 * 4;
}

bool grid_valid(float scale, int32_t zero_point, int32_t qmin, int32_t qmax) {
  return std::isfinite(scale) && scale > 0.0f && qmin >= -128 && qmax <= 255 &&
         qmax - qmin == 255 && zero_point >= qmin && zero_point <= qmax;
}

// What the kernels see of the output grid: its bounds narrowed by the clamp, relative to the
// zero point. Each clamp bound is quantized as lrint(bound / scale) + zero_point, limited to the
// grid (an infinite bound is the grid's end).
QEpilogue epilogue_of(const QConvNhwcParams& p) {
  auto quantize_bound = [&](float bound) {
    const float q = bound / p.out_scale + static_cast<float>(p.out_zero_point);
    const float lo = static_cast<float>(p.out_qmin), hi = static_cast<float>(p.out_qmax);
    return std::nearbyint(q < lo ? lo : (q > hi ? hi : q));
  };
  const float zp = static_cast<float>(p.out_zero_point);
  QEpilogue e;
  e.lo = quantize_bound(p.conv.clamp_min) - zp;
  e.hi = quantize_bound(p.conv.clamp_max) - zp;
  if (e.hi < e.lo)  // an empty clamp range: XNNPACK refuses it; here every output is lo
    e.hi = e.lo;
  e.out_scale = p.out_scale;
  return e;
}

int64_t group_in(const QConvNhwcParams& p) {
  return p.conv.in_channels / p.conv.groups;
}
int64_t group_out(const QConvNhwcParams& p) {
  return p.conv.out_channels / p.conv.groups;
}
// Each window tap's channels padded to whole 4-byte groups (the kernels take depth 4 at a time).
int64_t tap_depth(const QConvNhwcParams& p) {
  return round_up4(group_in(p));
}
int64_t depth_of(const QConvNhwcParams& p) {
  return p.conv.kernel_h * p.conv.kernel_w * tap_depth(p);
}
int64_t panels_of(const QConvNhwcParams& p) {
  return (group_out(p) + kQPanelCols - 1) / kQPanelCols;
}
int64_t panel_bytes(int64_t depth) {
  return depth * kQPanelCols + kQPanelTailBytes;
}
// The quantized input's pixels are padded to whole 4-byte groups too, so a 1x1 convolution
// reads its rows in place.
int64_t quantized_row_bytes(const QConvNhwcParams& p) {
  return round_up4(p.conv.in_channels);
}
int64_t input_pixels(const QConvNhwcParams& p) {
  return p.conv.batch * p.conv.in_h * p.conv.in_w;
}
int64_t output_pixels(const QConvNhwcParams& p) {
  return p.conv.batch * p.conv.out_h * p.conv.out_w;
}

// A 1x1 convolution with stride 1, no padding and one group multiplies the input rows as they
// are.
bool reads_input_directly(const QConvNhwcParams& p) {
  const ConvNhwcParams& c = p.conv;
  return c.groups == 1 && c.kernel_h == 1 && c.kernel_w == 1 && c.stride_h == 1 &&
         c.stride_w == 1 && c.pad_top == 0 && c.pad_left == 0 && c.out_h == c.in_h &&
         c.out_w == c.in_w;
}

// Output pixels per block: a multiple of the tiles' heights (8 rows for VNNI, 3 for AVX2, 4
// portable) keeping the block's rows of A around kBlockBytes, so they stay in L2 while every
// panel passes over them.
constexpr int64_t kTileRowsLcm = 24;
constexpr int64_t kBlockBytes = 128 << 10;

int64_t block_rows(const QConvNhwcParams& p) {
  int64_t rows = kBlockBytes / depth_of(p) / kTileRowsLcm * kTileRowsLcm;
  if (rows < kTileRowsLcm)
    rows = kTileRowsLcm;
  return min64(rows, output_pixels(p));
}

// The unsigned activation byte of the value 0 (what padding reads): qint8 values are stored
// plus 128, so the zero point moves with them.
int32_t unsigned_zero_point(const QConvNhwcParams& p) {
  return p.in_zero_point - p.in_qmin;
}

QInputGrid input_grid(const QConvNhwcParams& p, float offset) {
  const float zp = static_cast<float>(p.in_zero_point);
  return QInputGrid{1.0f / p.in_scale, static_cast<float>(p.in_qmin) - zp,
                    static_cast<float>(p.in_qmax) - zp, offset};
}

// The input as unsigned bytes (q - in_qmin), rows padded with zeros to quantized_row_bytes.
void quantize_input_u8(const QConvNhwcParams& p, const QConvNhwcKernels& k, const float* input,
                       uint8_t* out) {
  k.quantize_u8(input, input_pixels(p), p.conv.in_channels, quantized_row_bytes(p),
                input_grid(p, static_cast<float>(unsigned_zero_point(p))), out);
}

// Output pixel q as (batch, row, column), stepped pixel by pixel: the divisions once per block,
// not per pixel.
struct PixelCursor {
  int64_t n, oh, ow;
  PixelCursor(const ConvNhwcParams& c, int64_t q)
      : n(q / (c.out_h * c.out_w)), oh((q / c.out_w) % c.out_h), ow(q % c.out_w) {}
  void next(const ConvNhwcParams& c) {
    if (++ow == c.out_w) {
      ow = 0;
      if (++oh == c.out_h) {
        oh = 0;
        ++n;
      }
    }
  }
};

// Rows q0 .. q0 + rows of group g's im2col: per window tap, the group's channels (the zero
// point outside the image), then zeros up to tap_depth.
void gather_rows(const QConvNhwcParams& p, int64_t g, const uint8_t* qin, int64_t q0, int64_t rows,
                 uint8_t* columns) {
  const ConvNhwcParams& c = p.conv;
  const int64_t gic = group_in(p), td = tap_depth(p), depth = depth_of(p);
  const int64_t row_bytes = quantized_row_bytes(p);
  const uint8_t zero = static_cast<uint8_t>(unsigned_zero_point(p));
  PixelCursor at(c, q0);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t n = at.n, oh = at.oh, ow = at.ow;
    at.next(c);
    uint8_t* dst = columns + r * depth;
    for (int64_t kr = 0; kr < c.kernel_h; ++kr) {
      const int64_t ih = oh * c.stride_h - c.pad_top + kr * c.dilation_h;
      for (int64_t ks = 0; ks < c.kernel_w; ++ks, dst += td) {
        const int64_t iw = ow * c.stride_w - c.pad_left + ks * c.dilation_w;
        // Few channels (a network's first convolution) are copied inline: a library call per
        // tap costs more than the copy.
        if (ih < 0 || ih >= c.in_h || iw < 0 || iw >= c.in_w) {
          for (int64_t j = 0; j < gic; ++j)
            dst[j] = zero;
        } else {
          const uint8_t* src = qin + ((n * c.in_h + ih) * c.in_w + iw) * row_bytes + g * gic;
          if (gic >= 16) {
            std::memcpy(dst, src, static_cast<size_t>(gic));
          } else {
            for (int64_t j = 0; j < gic; ++j)
              dst[j] = src[j];
          }
        }
        for (int64_t j = gic; j < td; ++j)
          dst[j] = 0;
      }
    }
  }
}

// A KxK convolution with one group multiplies the input pixels in place, one window tap at a
// time (taps outside the image read a row of zero points): a quantized pixel is padded with
// zeros to whole 4-byte groups, the tap's depth in the packed filter, whose weights there are
// zero. Grouped convolutions are gathered into im2col rows.
bool reads_taps_in_place(const QConvNhwcParams& p) {
  return p.conv.groups == 1;
}

// How the GEMM reads A: pieces per row, and bytes per piece.
int64_t strip_taps(const QConvNhwcParams& p) {
  return reads_input_directly(p) || !reads_taps_in_place(p) ? 1 : p.conv.kernel_h * p.conv.kernel_w;
}

// The workspace: the quantized input, a row of zero points, the block's table of row pointers
// and, when gathering, its im2col rows; each 64-byte aligned.
struct DenseWorkspace {
  uint8_t* input;
  uint8_t* zero_row;
  const uint8_t** table;
  uint8_t* columns;
};

size_t dense_workspace_bytes(const QConvNhwcParams& p) {
  size_t bytes =
      round_up_bytes(static_cast<size_t>(input_pixels(p) * quantized_row_bytes(p)), kScratchAlign) +
      round_up_bytes(static_cast<size_t>(quantized_row_bytes(p)), kScratchAlign) +
      round_up_bytes(static_cast<size_t>(block_rows(p) * strip_taps(p)) * sizeof(const uint8_t*),
                     kScratchAlign) +
      kScratchAlign;
  if (!reads_input_directly(p) && !reads_taps_in_place(p))
    bytes += static_cast<size_t>(block_rows(p) * depth_of(p));
  return bytes;
}

DenseWorkspace carve_dense_workspace(const QConvNhwcParams& p, void* ws) {
  DenseWorkspace w;
  uint8_t* at = static_cast<uint8_t*>(align_up(ws));
  w.input = at;
  at +=
      round_up_bytes(static_cast<size_t>(input_pixels(p) * quantized_row_bytes(p)), kScratchAlign);
  w.zero_row = at;
  at += round_up_bytes(static_cast<size_t>(quantized_row_bytes(p)), kScratchAlign);
  w.table = reinterpret_cast<const uint8_t**>(at);
  at += round_up_bytes(static_cast<size_t>(block_rows(p) * strip_taps(p)) * sizeof(const uint8_t*),
                       kScratchAlign);
  w.columns = at;
  return w;
}

// Row pointers of output pixels q0 .. q0 + rows, one per window tap: the input pixel, or the
// zero row where the tap is outside the image.
void tap_table(const QConvNhwcParams& p, const DenseWorkspace& w, int64_t q0, int64_t rows) {
  const ConvNhwcParams& c = p.conv;
  const int64_t row_bytes = quantized_row_bytes(p);
  const uint8_t** t = w.table;
  PixelCursor at(c, q0);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t n = at.n, oh = at.oh, ow = at.ow;
    at.next(c);
    for (int64_t kr = 0; kr < c.kernel_h; ++kr) {
      const int64_t ih = oh * c.stride_h - c.pad_top + kr * c.dilation_h;
      for (int64_t ks = 0; ks < c.kernel_w; ++ks) {
        const int64_t iw = ow * c.stride_w - c.pad_left + ks * c.dilation_w;
        const bool inside = ih >= 0 && ih < c.in_h && iw >= 0 && iw < c.in_w;
        *t++ = inside ? w.input + ((n * c.in_h + ih) * c.in_w + iw) * row_bytes : w.zero_row;
      }
    }
  }
}

// Workspace of `need` bytes: the caller's, or this thread's scratch.
void* workspace_or_scratch(void* workspace, size_t workspace_bytes, size_t need) {
  if (workspace != nullptr && workspace_bytes >= need)
    return workspace;
  return thread_scratch(ScratchSlot::kConv, need);
}

bool requant_scales(const QConvNhwcParams& p, const float* weight_scales, int64_t oc, float* out) {
  const float w = weight_scales[oc];
  if (!std::isfinite(w) || w <= 0.0f)
    return false;
  *out = p.in_scale * w / p.out_scale;
  return std::isfinite(*out);
}

}  // namespace

bool set_qconv_vnni_allowed(bool allowed) {
  return g_vnni_allowed.exchange(allowed);
}

const char* qconv_variant_name(Isa isa) {
  return qkernels_for(isa).name;
}

bool qconv2d_nhwc_params_valid(const QConvNhwcParams& p) {
  return conv2d_nhwc_params_valid(p.conv) && p.conv.out_scale == 0.0f &&
         grid_valid(p.in_scale, p.in_zero_point, p.in_qmin, p.in_qmax) &&
         grid_valid(p.out_scale, p.out_zero_point, p.out_qmin, p.out_qmax) &&
         depth_of(p) < (int64_t{1} << 24);
}

size_t qconv2d_nhwc_packed_size(const QConvNhwcParams& p) {
  if (!qconv2d_nhwc_params_valid(p))
    return 0;
  return static_cast<size_t>(p.conv.groups * panels_of(p) * panel_bytes(depth_of(p))) +
         kScratchAlign;
}

bool qconv2d_nhwc_pack(const QConvNhwcParams& p, const int8_t* filter, const float* weight_scales,
                       const int32_t* bias, void* packed) {
  if (!qconv2d_nhwc_params_valid(p))
    return false;
  const ConvNhwcParams& c = p.conv;
  const int64_t gic = group_in(p), goc = group_out(p), td = tap_depth(p), depth = depth_of(p);
  const int64_t taps = c.kernel_h * c.kernel_w, zero = unsigned_zero_point(p);
  int8_t* base = static_cast<int8_t*>(align_up(packed));
  std::memset(base, 0, static_cast<size_t>(c.groups * panels_of(p) * panel_bytes(depth)));
  for (int64_t g = 0; g < c.groups; ++g) {
    for (int64_t j = 0; j < panels_of(p); ++j) {
      int8_t* panel = base + (g * panels_of(p) + j) * panel_bytes(depth);
      int32_t* bias_terms = reinterpret_cast<int32_t*>(panel + depth * kQPanelCols);
      float* scales = reinterpret_cast<float*>(panel + depth * kQPanelCols + kQPanelCols * 4);
      int32_t* signed_terms =
          reinterpret_cast<int32_t*>(panel + depth * kQPanelCols + kQPanelCols * 8);
      for (int64_t col = 0; col < kQPanelCols && j * kQPanelCols + col < goc; ++col) {
        const int64_t oc = g * goc + j * kQPanelCols + col;
        int64_t weight_sum = 0;
        for (int64_t t = 0; t < taps; ++t) {
          for (int64_t ci = 0; ci < gic; ++ci) {
            const int8_t w = filter[(oc * taps + t) * gic + ci];
            const int64_t k = t * td + ci;
            panel[(k / 4) * (4 * kQPanelCols) + col * 4 + k % 4] = w;
            weight_sum += w;
          }
        }
        // The activations are stored as q - in_qmin; their zero point's share of the sum is
        // taken off once here.
        const int64_t term = (bias != nullptr ? bias[oc] : 0) - zero * weight_sum;
        const int64_t signed_term = term + 128 * weight_sum;
        auto fits = [](int64_t v) {
          return v >= std::numeric_limits<int32_t>::min() &&
                 v <= std::numeric_limits<int32_t>::max();
        };
        if (!fits(term) || !fits(signed_term) ||
            !requant_scales(p, weight_scales, oc, &scales[col]))
          return false;
        bias_terms[col] = static_cast<int32_t>(term);
        signed_terms[col] = static_cast<int32_t>(signed_term);
      }
    }
  }
  return true;
}

size_t qconv2d_nhwc_workspace_size(const QConvNhwcParams& p) {
  return qconv2d_nhwc_params_valid(p) ? dense_workspace_bytes(p) : 0;
}

bool qconv2d_nhwc_isa(Isa isa, const QConvNhwcParams& p, const void* packed, const float* input,
                      float* output, void* workspace, size_t workspace_bytes) {
  if (!qconv2d_nhwc_params_valid(p))
    return false;
  void* ws = workspace_or_scratch(workspace, workspace_bytes, dense_workspace_bytes(p));
  if (ws == nullptr)
    return false;
  const ConvNhwcParams& c = p.conv;
  const DenseWorkspace w = carve_dense_workspace(p, ws);
  const QConvNhwcKernels& k = qkernels_for(isa);
  quantize_input_u8(p, k, input, w.input);
  const bool direct = reads_input_directly(p), in_place = !direct && reads_taps_in_place(p);
  if (in_place) {
    std::memset(w.zero_row, static_cast<int>(unsigned_zero_point(p)),
                static_cast<size_t>(quantized_row_bytes(p)));
  }
  const QEpilogue e = epilogue_of(p);
  const int64_t depth = depth_of(p), goc = group_out(p), panels = panels_of(p);
  const int64_t pixels = output_pixels(p), block = block_rows(p), taps = strip_taps(p);
  const int64_t row_bytes = quantized_row_bytes(p);
  const int8_t* base = static_cast<const int8_t*>(align_up(const_cast<void*>(packed)));
  for (int64_t q0 = 0; q0 < pixels; q0 += block) {
    const int64_t rows = min64(block, pixels - q0);
    if (in_place)
      tap_table(p, w, q0, rows);
    for (int64_t g = 0; g < c.groups; ++g) {
      QGemmStrip s;
      if (direct) {
        for (int64_t r = 0; r < rows; ++r)
          w.table[r] = w.input + (q0 + r) * row_bytes;
      } else if (!in_place) {
        gather_rows(p, g, w.input, q0, rows, w.columns);
        for (int64_t r = 0; r < rows; ++r)
          w.table[r] = w.columns + r * depth;
      }
      s.a = w.table;
      s.taps = taps;
      s.tap_depth = depth / taps;
      s.rows = rows;
      s.depth = depth;
      s.ldc = c.out_channels;
      const int8_t* group_panels = base + g * panels * panel_bytes(depth);
      float* out = output + q0 * c.out_channels + g * goc;
      // The block's rows stay in cache while the panels, split across the threads, pass over
      // them; each output is computed whole by one thread, so results do not depend on the
      // thread count.
      parallel_items(panels, static_cast<double>(rows) * depth * kQPanelCols,
                     [&](int64_t j0, int64_t j1) {
                       QGemmStrip part = s;
                       for (int64_t j = j0; j < j1; ++j) {
                         part.panel = group_panels + j * panel_bytes(depth);
                         part.c = out + j * kQPanelCols;
                         part.cols = min64(kQPanelCols, goc - j * kQPanelCols);
                         k.gemm_strip(part, e);
                       }
                     });
    }
  }
  return true;
}

bool qconv2d_nhwc(const QConvNhwcParams& p, const void* packed, const float* input, float* output,
                  void* workspace, size_t workspace_bytes) {
  return qconv2d_nhwc_isa(active_isa(), p, packed, input, output, workspace, workspace_bytes);
}

// ---- Depthwise. Packed: the filter widened to int16 [kh, kw, out_c], then the int32 bias and
// the float requantization scale per output channel, each 64-byte aligned.

namespace {

bool depthwise_valid(const QConvNhwcParams& p) {
  return qconv2d_nhwc_params_valid(p) && p.conv.groups == p.conv.in_channels &&
         p.conv.kernel_h * p.conv.kernel_w <= kQDwMaxTaps;
}
// Each array has a block of zeros after its end (qconv_nhwc_kernels.h, QDwRow).
size_t dw_filter_bytes(const QConvNhwcParams& p) {
  return round_up_bytes(
      static_cast<size_t>(p.conv.kernel_h * p.conv.kernel_w * p.conv.out_channels + kQDwBlock) * 2,
      kScratchAlign);
}
size_t dw_channel_bytes(const QConvNhwcParams& p) {
  return round_up_bytes(static_cast<size_t>(p.conv.out_channels + kQDwBlock) * 4, kScratchAlign);
}
int64_t dw_input_values(const QConvNhwcParams& p) {
  return input_pixels(p) * p.conv.in_channels;
}
size_t dw_workspace_bytes(const QConvNhwcParams& p) {
  return static_cast<size_t>(dw_input_values(p) + kQDwBlock) * 2 + kScratchAlign;
}

}  // namespace

size_t qdepthwise_conv2d_nhwc_packed_size(const QConvNhwcParams& p) {
  if (!depthwise_valid(p))
    return 0;
  return dw_filter_bytes(p) + 2 * dw_channel_bytes(p) + kScratchAlign;
}

bool qdepthwise_conv2d_nhwc_pack(const QConvNhwcParams& p, const int8_t* filter,
                                 const float* weight_scales, const int32_t* bias, void* packed) {
  if (!depthwise_valid(p))
    return false;
  uint8_t* base = static_cast<uint8_t*>(align_up(packed));
  std::memset(base, 0, dw_filter_bytes(p) + 2 * dw_channel_bytes(p));
  int16_t* w = reinterpret_cast<int16_t*>(base);
  int32_t* b = reinterpret_cast<int32_t*>(base + dw_filter_bytes(p));
  float* s = reinterpret_cast<float*>(base + dw_filter_bytes(p) + dw_channel_bytes(p));
  const int64_t n = p.conv.kernel_h * p.conv.kernel_w * p.conv.out_channels;
  for (int64_t i = 0; i < n; ++i)
    w[i] = filter[i];
  for (int64_t oc = 0; oc < p.conv.out_channels; ++oc) {
    b[oc] = bias != nullptr ? bias[oc] : 0;
    if (!requant_scales(p, weight_scales, oc, &s[oc]))
      return false;
  }
  return true;
}

size_t qdepthwise_conv2d_nhwc_workspace_size(const QConvNhwcParams& p) {
  return depthwise_valid(p) ? dw_workspace_bytes(p) : 0;
}

bool qdepthwise_conv2d_nhwc_isa(Isa isa, const QConvNhwcParams& p, const void* packed,
                                const float* input, float* output, void* workspace,
                                size_t workspace_bytes) {
  if (!depthwise_valid(p))
    return false;
  void* ws = workspace_or_scratch(workspace, workspace_bytes, dw_workspace_bytes(p));
  if (ws == nullptr)
    return false;
  const ConvNhwcParams& c = p.conv;
  int16_t* qin = static_cast<int16_t*>(align_up(ws));
  const QConvNhwcKernels& k = qkernels_for(isa);
  k.quantize_s16(input, dw_input_values(p), input_grid(p, 0.0f), qin);
  std::memset(qin + dw_input_values(p), 0, kQDwBlock * sizeof(int16_t));
  const uint8_t* base = static_cast<const uint8_t*>(align_up(const_cast<void*>(packed)));
  QDwRow proto;
  proto.in_h = c.in_h;
  proto.in_w = c.in_w;
  proto.in_c = c.in_channels;
  proto.w = reinterpret_cast<const int16_t*>(base);
  proto.bias = reinterpret_cast<const int32_t*>(base + dw_filter_bytes(p));
  proto.scale = reinterpret_cast<const float*>(base + dw_filter_bytes(p) + dw_channel_bytes(p));
  proto.kh = c.kernel_h;
  proto.kw = c.kernel_w;
  proto.sw = c.stride_w;
  proto.dh = c.dilation_h;
  proto.dw = c.dilation_w;
  proto.pad_left = c.pad_left;
  proto.multiplier = c.out_channels / c.in_channels;
  proto.out_w = c.out_w;
  proto.out_c = c.out_channels;
  proto.epilogue = epilogue_of(p);
  const int64_t rows = c.batch * c.out_h;
  const double work = static_cast<double>(c.out_w * c.out_channels * c.kernel_h * c.kernel_w);
  parallel_items(rows, work, [&](int64_t begin, int64_t end) {
    QDwRow r = proto;
    for (int64_t i = begin; i < end; ++i) {
      const int64_t n = i / c.out_h, oh = i % c.out_h;
      r.image = qin + n * c.in_h * c.in_w * c.in_channels;
      r.ih0 = oh * c.stride_h - c.pad_top;
      r.out = output + i * c.out_w * c.out_channels;
      k.depthwise_row(r);
    }
  });
  return true;
}

bool qdepthwise_conv2d_nhwc(const QConvNhwcParams& p, const void* packed, const float* input,
                            float* output, void* workspace, size_t workspace_bytes) {
  return qdepthwise_conv2d_nhwc_isa(active_isa(), p, packed, input, output, workspace,
                                    workspace_bytes);
}

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
