// NHWC convolution driver (conv_nhwc.h): validation, the packed filter, the blocked implicit
// im2col around the SGEMM, and the depthwise rows across the thread pool.
#include "conv_nhwc.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

#include <executorch/extension/threadpool/threadpool.h>

#include "conv_nhwc_kernels.h"
#include "parallel.h"
#include "scratch.h"

namespace executorch {
namespace kernels {
namespace compute {
namespace {

const ConvNhwcKernels& kernels_for(Isa isa) {
  if (static_cast<int>(isa) > static_cast<int>(detected_isa()))
    isa = detected_isa();
  switch (isa) {
#if defined(__aarch64__)
    case Isa::kNeonDot:
    case Isa::kNeon:
      return kConvNhwcNeon;
#elif defined(__x86_64__)
    case Isa::kAvx512:
      return kConvNhwcAvx512;
    case Isa::kAvx2:
      return kConvNhwcAvx2;
#else
    default:  // no ISA variants are built for this architecture
#endif
    case Isa::kBaseline:
      break;
  }
  return kConvNhwcBaseline;
}

inline int64_t min64(int64_t a, int64_t b) {
  return a < b ? a : b;
}

// Rows (output pixels) of A gathered and multiplied per block: the multiple of every
// micro-kernel's tile height (14, 6, 8, 12 rows) nearest to keeping the block's im2col rows
// within kBlockBytes (in L2 with the packed B), at least one multiple.
constexpr int64_t kTileRowsLcm = 168;
constexpr int64_t kBlockBytes = 256 << 10;

int64_t block_rows(const ConvNhwcParams& p, int64_t depth) {
  int64_t width = depth > p.out_channels ? depth : p.out_channels;
  int64_t rows =
      kBlockBytes / (width * static_cast<int64_t>(sizeof(float))) / kTileRowsLcm * kTileRowsLcm;
  if (rows < kTileRowsLcm)
    rows = kTileRowsLcm;
  const int64_t pixels = p.batch * p.out_h * p.out_w;
  return rows < pixels ? rows : pixels;
}

// An 8-bit grid (integral bounds and zero point within [-128, 255]) keeps the rounding's
// magnitudes far below where it would be inexact.
bool grid_valid(float scale, float zero_point, float qmin, float qmax) {
  auto integral_8bit = [](float v) {
    return v >= -128.0f && v <= 255.0f && v == static_cast<float>(static_cast<int>(v));
  };
  return std::isfinite(scale) && scale > 0.0f && integral_8bit(zero_point) && integral_8bit(qmin) &&
         integral_8bit(qmax) && qmin <= qmax;
}

NhwcEpilogue epilogue_of(const ConvNhwcParams& p, const float* bias) {
  const bool grid = p.out_scale != 0.0f;
  return NhwcEpilogue{bias,
                      p.clamp_min,
                      p.clamp_max,
                      p.out_scale,
                      grid ? 1.0f / p.out_scale : 0.0f,
                      p.out_zero_point,
                      p.out_qmin,
                      p.out_qmax,
                      static_cast<int>(p.activation)};
}

int64_t group_in(const ConvNhwcParams& p) {
  return p.in_channels / p.groups;
}
int64_t group_out(const ConvNhwcParams& p) {
  return p.out_channels / p.groups;
}
int64_t depth_of(const ConvNhwcParams& p) {
  return p.kernel_h * p.kernel_w * group_in(p);
}

// A is the input itself: 1x1, stride 1, no padding (then out_h/out_w equal in_h/in_w).
bool reads_input_directly(const ConvNhwcParams& p) {
  return p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 &&
         p.pad_top == 0 && p.pad_left == 0 && p.out_h == p.in_h && p.out_w == p.in_w;
}

// The packed filter: this header, then from a 64-byte aligned base, for every group and every
// panel of kNhwcPanelCols output channels, the panel's bias (kNhwcPanelCols floats, zeros when
// there is none or past the last channel) followed by its B ([depth, kNhwcPanelCols],
// B[(r, s, ci), co] = filter[g * goc + co, r, s, ci], zero past the last channel).
struct PackedHeader {
  int64_t depth, goc, groups, panels;
};
constexpr size_t kHeaderBytes = 64;
static_assert(sizeof(PackedHeader) <= kHeaderBytes, "header fits its slot");

int64_t panels_of(int64_t goc) {
  return (goc + kNhwcPanelCols - 1) / kNhwcPanelCols;
}
// Floats of one panel with its bias.
int64_t panel_floats(int64_t depth) {
  return (depth + 1) * kNhwcPanelCols;
}

char* aligned_base(const void* packed) {
  return static_cast<char*>(
      align_up(const_cast<char*>(static_cast<const char*>(packed) + kHeaderBytes)));
}

// n floats from src to dst. The runs gathered are short (a 3-channel stem copies 9 or 21
// floats at a time), where a library memcpy call costs more than the copy: fixed-size chunks
// the compiler turns into vector moves, then single floats.
inline void copy_floats(float* dst, const float* src, int64_t n) {
  if (n >= 64) {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
    return;
  }
  for (; n >= 8; n -= 8, dst += 8, src += 8)
    __builtin_memcpy(dst, src, 8 * sizeof(float));
  for (; n > 0; --n)
    *dst++ = *src++;
}
inline void zero_floats(float* dst, int64_t n) {
  if (n > 0)
    std::memset(dst, 0, static_cast<size_t>(n) * sizeof(float));
}

// Gathers im2col rows [q0, q0 + rows) of group g (q = flat output pixel over the batch) into
// dst ([rows, depth]); taps in the padding are zeros. With one group and no horizontal
// dilation, the taps of a kernel row inside the image are adjacent in the input, so they are
// copied as one run.
void gather_rows(const ConvNhwcParams& p, int64_t g, const float* input, int64_t q0, int64_t rows,
                 float* dst) {
  const int64_t gic = group_in(p), depth = depth_of(p);
  const int64_t plane = p.out_h * p.out_w;
  const bool runs = p.groups == 1 && p.dilation_w == 1;
  // The pixel's coordinates, stepped along (no divisions per row).
  int64_t n = q0 / plane, oh = q0 % plane / p.out_w, ow = q0 % p.out_w;
  // A window wholly inside the image (every pixel of a stem but its border) is kernel_h runs
  // of kernel_w * channels floats, one input row apart: copied without the checks below.
  const int64_t run = p.kernel_w * gic, row_stride = p.dilation_h * p.in_w * p.in_channels;
  const int64_t last_tap_w = (p.kernel_w - 1) * p.dilation_w;
  auto rows_inside = [&](int64_t oh_now) {
    const int64_t ih0 = oh_now * p.stride_h - p.pad_top;
    return ih0 >= 0 && ih0 + (p.kernel_h - 1) * p.dilation_h < p.in_h;
  };
  bool whole_rows = runs && rows_inside(oh);
  auto advance = [&]() {
    if (++ow == p.out_w) {
      ow = 0;
      if (++oh == p.out_h) {
        oh = 0;
        ++n;
      }
      whole_rows = runs && rows_inside(oh);
    }
  };
  for (int64_t i = 0; i < rows; ++i) {
    const float* image = input + n * p.in_h * p.in_w * p.in_channels + g * gic;
    float* row = dst + i * depth;
    const int64_t iw0 = ow * p.stride_w - p.pad_left;
    if (whole_rows && iw0 >= 0 && iw0 + last_tap_w < p.in_w) {
      const float* src =
          image + (oh * p.stride_h - p.pad_top) * p.in_w * p.in_channels + iw0 * p.in_channels;
      for (int64_t r = 0; r < p.kernel_h; ++r)
        copy_floats(row + r * run, src + r * row_stride, run);
      advance();
      continue;
    }
    // Kernel columns [s0, s1) fall inside the image.
    int64_t s0 = 0, s1 = p.kernel_w;
    while (s0 < s1 && iw0 + s0 * p.dilation_w < 0)
      ++s0;
    while (s1 > s0 && iw0 + (s1 - 1) * p.dilation_w >= p.in_w)
      --s1;
    for (int64_t r = 0; r < p.kernel_h; ++r) {
      float* taps = row + r * p.kernel_w * gic;
      const int64_t ih = oh * p.stride_h - p.pad_top + r * p.dilation_h;
      if (ih < 0 || ih >= p.in_h) {
        zero_floats(taps, p.kernel_w * gic);
        continue;
      }
      const float* in_row = image + ih * p.in_w * p.in_channels;
      zero_floats(taps, s0 * gic);
      if (runs) {
        copy_floats(taps + s0 * gic, in_row + (iw0 + s0) * p.in_channels, (s1 - s0) * gic);
      } else {
        for (int64_t s = s0; s < s1; ++s)
          copy_floats(taps + s * gic, in_row + (iw0 + s * p.dilation_w) * p.in_channels, gic);
      }
      zero_floats(taps + s1 * gic, (p.kernel_w - s1) * gic);
    }
    advance();
  }
}

// ---- The implicit im2col. A convolution that is not a plain 1x1 reads its A rows in place:
// row q (an output pixel) starts at the top-left tap of q's window in the image, and its
// element d = (r, s, ci) lies offsets[d] = (r * dilation_h * wp + s * dilation_w) *
// in_channels + ci floats from there. Windows that reach into the padding read a zero-padded
// copy of the input ([batch, hp, wp, in_channels]) made once per call, whose zeros enter the
// sums exactly as gathered zeros would. Nothing is copied per block, where gathering wrote
// kernel_h * kernel_w / stride^2 times the input (9x for a 3x3 convolution) and read it back.
struct ImageGeometry {
  int64_t hp, wp;  // rows and columns of the image the windows are read from
  bool padded;     // a padded copy (else the input itself)
  int64_t padded_floats;
};

ImageGeometry image_geometry(const ConvNhwcParams& p) {
  ImageGeometry g;
  const int64_t rows_read = (p.out_h - 1) * p.stride_h + (p.kernel_h - 1) * p.dilation_h + 1;
  const int64_t cols_read = (p.out_w - 1) * p.stride_w + (p.kernel_w - 1) * p.dilation_w + 1;
  g.hp = p.pad_top + p.in_h > rows_read ? p.pad_top + p.in_h : rows_read;
  g.wp = p.pad_left + p.in_w > cols_read ? p.pad_left + p.in_w : cols_read;
  g.padded = p.pad_top > 0 || p.pad_left > 0 || g.hp != p.in_h || g.wp != p.in_w;
  g.padded_floats = 0;
  if (g.padded && (__builtin_mul_overflow(p.batch * g.hp, g.wp, &g.padded_floats) ||
                   __builtin_mul_overflow(g.padded_floats, p.in_channels, &g.padded_floats))) {
    g.padded_floats = -1;
  }
  return g;
}

// Whether the implicit im2col is used, rather than gathering a block's rows into the
// workspace. A block is gathered once per unit of work and then read by each of the unit's
// panels, while the implicit loop pays an offset load per step of every panel: measured on
// ResNet-18's shapes (AVX-512), the implicit loop was 7-17% faster with up to 8 panels of
// output channels per group and 3-9% slower with 16, and slower for every 1x1 (whose gather
// is one run of channels per pixel). Also never when the padded copy would be far larger
// than the input (a stride or padding far beyond the kernel's reach).
constexpr int64_t kImplicitMaxPanels = 8;

bool reads_implicitly(const ConvNhwcParams& p, const ImageGeometry& g) {
  if (reads_input_directly(p) || p.kernel_h * p.kernel_w == 1 ||
      panels_of(group_out(p)) > kImplicitMaxPanels)
    return false;
  const int64_t input_floats = p.batch * p.in_h * p.in_w * p.in_channels;
  return !g.padded ||
         (g.padded_floats >= 0 && g.padded_floats <= 2 * input_floats + (int64_t{1} << 14));
}

// The calling thread's share of the implicit mode's scratch memory: the offsets, the padded
// image (if any), then its own row table; worker threads need only a row table.
size_t offsets_bytes(const ConvNhwcParams& p) {
  return round_up_bytes(static_cast<size_t>(depth_of(p)) * sizeof(int64_t), kScratchAlign);
}
size_t padded_bytes(const ImageGeometry& g) {
  return g.padded
             ? round_up_bytes(static_cast<size_t>(g.padded_floats) * sizeof(float), kScratchAlign)
             : 0;
}
size_t row_table_bytes(const ConvNhwcParams& p) {
  return round_up_bytes(static_cast<size_t>(block_rows(p, depth_of(p))) * sizeof(float*),
                        kScratchAlign);
}

void fill_offsets(const ConvNhwcParams& p, const ImageGeometry& g, int64_t* offsets) {
  const int64_t gic = group_in(p);
  for (int64_t r = 0; r < p.kernel_h; ++r)
    for (int64_t s = 0; s < p.kernel_w; ++s)
      for (int64_t ci = 0; ci < gic; ++ci)
        *offsets++ = (r * p.dilation_h * g.wp + s * p.dilation_w) * p.in_channels + ci;
}

// The zero-padded copy of the input, row by row across the thread pool.
void fill_padded(const ConvNhwcParams& p, const ImageGeometry& g, const float* input,
                 float* padded) {
  const int64_t c = p.in_channels, row_floats = g.wp * c;
  parallel_items(p.batch * g.hp, static_cast<double>(row_floats), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      float* dst = padded + r * row_floats;
      const int64_t n = r / g.hp, ih = r % g.hp - p.pad_top;
      if (ih < 0 || ih >= p.in_h) {
        zero_floats(dst, row_floats);
        continue;
      }
      const int64_t left = p.pad_left * c, inside = p.in_w * c;
      zero_floats(dst, left);
      std::memcpy(dst + left, input + (n * p.in_h + ih) * inside,
                  static_cast<size_t>(inside) * sizeof(float));
      zero_floats(dst + left + inside, row_floats - left - inside);
    }
  });
}

// Row pointers of output pixels [q0, q0 + rows) of group g: each window's top-left tap.
void fill_row_table(const ConvNhwcParams& p, const ImageGeometry& g, const float* image,
                    int64_t group, int64_t q0, int64_t rows, const float** table) {
  const int64_t plane = p.out_h * p.out_w;
  int64_t n = q0 / plane, oh = q0 % plane / p.out_w, ow = q0 % p.out_w;
  const float* base = image + group * group_in(p);
  for (int64_t i = 0; i < rows; ++i) {
    table[i] = base + ((n * g.hp + oh * p.stride_h) * g.wp + ow * p.stride_w) * p.in_channels;
    if (++ow == p.out_w) {
      ow = 0;
      if (++oh == p.out_h) {
        oh = 0;
        ++n;
      }
    }
  }
}

size_t im2col_block_bytes(const ConvNhwcParams& p) {
  if (reads_input_directly(p))
    return 0;
  const int64_t depth = depth_of(p);
  return round_up_bytes(static_cast<size_t>(block_rows(p, depth) * depth) * sizeof(float),
                        kScratchAlign);
}

// Threads the dense convolution uses: 1 when it is too small to pay for waking a worker, for a
// 1-thread pool, or inside a parallel region (which runs everything inline anyway).
size_t conv_nhwc_threads(const ConvNhwcParams& p, int64_t depth) {
  const double macs = static_cast<double>(p.batch * p.out_h * p.out_w) *
                      static_cast<double>(depth) * static_cast<double>(p.out_channels);
  if (macs < 2 * min_parallel_work() || extension::threadpool::in_parallel_region())
    return 1;
  return extension::threadpool::get_threadpool()->get_thread_count();
}

// The rows of a block, as split across `threads`: block_rows, or fewer when the layer is
// small (a 14x14 or 7x7 image is a single block) and the units of work would otherwise be too
// few to keep every thread busy: kUnitsPerThread units per thread even out units of unequal
// size. Only where a unit costs nothing beyond its rows (`free_rows`: read in place, not
// gathered); `panels` is the units each block makes per group. Every output row is computed the same way whatever block holds it (a tile's rows
// are independent sums), so the results do not depend on this.
constexpr int64_t kUnitsPerThread = 4, kBlockRowStep = 12;

int64_t split_block(const ConvNhwcParams& p, int64_t depth, size_t threads, bool free_rows,
                    int64_t panels) {
  const int64_t rows = block_rows(p, depth), pixels = p.batch * p.out_h * p.out_w;
  if (threads <= 1 || !free_rows)
    return rows;
  const int64_t units_per_block = p.groups * panels;
  const int64_t want = kUnitsPerThread * static_cast<int64_t>(threads);
  const int64_t blocks = (pixels + rows - 1) / rows;
  if (blocks * units_per_block >= want)
    return rows;
  const int64_t want_blocks = (want + units_per_block - 1) / units_per_block;
  int64_t split = (pixels + want_blocks - 1) / want_blocks;
  split = (split + kBlockRowStep - 1) / kBlockRowStep * kBlockRowStep;
  return split < rows ? split : rows;
}

}  // namespace

bool conv2d_nhwc_params_valid(const ConvNhwcParams& p) {
  // Every size below 2^31 and every tensor below 2^62 elements: no index computation overflows.
  constexpr int64_t kDimLimit = int64_t{1} << 31;
  const int64_t sizes[] = {p.batch,    p.in_h,         p.in_w,       p.in_channels, p.out_h,
                           p.out_w,    p.out_channels, p.groups,     p.kernel_h,    p.kernel_w,
                           p.stride_h, p.stride_w,     p.dilation_h, p.dilation_w};
  for (int64_t s : sizes) {
    if (s <= 0 || s >= kDimLimit)
      return false;
  }
  if (p.pad_top < 0 || p.pad_left < 0 || p.pad_top >= kDimLimit || p.pad_left >= kDimLimit ||
      p.in_channels % p.groups != 0 || p.out_channels % p.groups != 0) {
    return false;
  }
  if (p.out_scale != 0.0f && !grid_valid(p.out_scale, p.out_zero_point, p.out_qmin, p.out_qmax)) {
    return false;
  }
  if (p.activation != ConvActivation::kNone &&
      (p.out_scale != 0.0f || (p.activation != ConvActivation::kSigmoidMul &&
                               p.activation != ConvActivation::kHardswish))) {
    return false;
  }
  constexpr int64_t kNumelLimit = int64_t{1} << 62;
  int64_t in_numel, out_numel, filter_numel;
  return !__builtin_mul_overflow(p.batch * p.in_h, p.in_w * p.in_channels, &in_numel) &&
         in_numel < kNumelLimit &&
         !__builtin_mul_overflow(p.batch * p.out_h, p.out_w * p.out_channels, &out_numel) &&
         out_numel < kNumelLimit &&
         !__builtin_mul_overflow(p.kernel_h * p.kernel_w, p.in_channels * p.out_channels,
                                 &filter_numel) &&
         filter_numel < kNumelLimit;
}

size_t conv2d_nhwc_packed_size(const ConvNhwcParams& p) {
  if (!conv2d_nhwc_params_valid(p))
    return 0;
  const int64_t floats = p.groups * panels_of(group_out(p)) * panel_floats(depth_of(p));
  return kHeaderBytes + kScratchAlign + static_cast<size_t>(floats) * sizeof(float);
}

bool conv2d_nhwc_pack(const ConvNhwcParams& p, const float* filter, const float* bias,
                      void* packed) {
  if (!conv2d_nhwc_params_valid(p))
    return false;
  const int64_t depth = depth_of(p), goc = group_out(p);
  const PackedHeader h{depth, goc, p.groups, panels_of(goc)};
  std::memcpy(packed, &h, sizeof h);
  float* out = reinterpret_cast<float*>(aligned_base(packed));
  for (int64_t g = 0; g < p.groups; ++g) {
    for (int64_t j0 = 0; j0 < goc; j0 += kNhwcPanelCols) {
      const int64_t cols = min64(kNhwcPanelCols, goc - j0);
      std::memset(out, 0, static_cast<size_t>(panel_floats(depth)) * sizeof(float));
      if (bias != nullptr)
        std::memcpy(out, bias + g * goc + j0, static_cast<size_t>(cols) * sizeof(float));
      float* b = out + kNhwcPanelCols;
      // OHWI rows are already in depth order: output channel co's row is B's column.
      for (int64_t jj = 0; jj < cols; ++jj) {
        const float* src = filter + (g * goc + j0 + jj) * depth;
        for (int64_t d = 0; d < depth; ++d)
          b[d * kNhwcPanelCols + jj] = src[d];
      }
      out += panel_floats(depth);
    }
  }
  return true;
}

size_t conv2d_nhwc_workspace_size(const ConvNhwcParams& p) {
  if (!conv2d_nhwc_params_valid(p))
    return 0;
  const ImageGeometry g = image_geometry(p);
  if (reads_implicitly(p, g))
    return offsets_bytes(p) + padded_bytes(g) + row_table_bytes(p) + kScratchAlign;
  return im2col_block_bytes(p) + kScratchAlign;
}

bool conv2d_nhwc(const ConvNhwcParams& p, const void* packed, const float* input, float* output,
                 void* workspace, size_t workspace_bytes) {
  if (!conv2d_nhwc_params_valid(p))
    return false;
  PackedHeader h;
  std::memcpy(&h, packed, sizeof h);
  const float* panels = reinterpret_cast<const float*>(aligned_base(packed));
  const int64_t depth = depth_of(p), goc = group_out(p);
  const bool direct = reads_input_directly(p);
  const size_t need = conv2d_nhwc_workspace_size(p);
  const ConvNhwcKernels& k = kernels_for(active_isa());
  const int64_t pixels = p.batch * p.out_h * p.out_w;
  const NhwcEpilogue e = epilogue_of(p, nullptr);
  const ImageGeometry geometry = image_geometry(p);
  const bool implicit = reads_implicitly(p, geometry);
  const size_t threads = conv_nhwc_threads(p, depth);
  const int64_t block = split_block(p, depth, threads, direct || implicit, direct ? h.panels : 1);
  const int64_t blocks = (pixels + block - 1) / block;
  const std::thread::id caller = std::this_thread::get_id();
  // The implicit mode's offsets and padded image, shared by every unit, and the calling
  // thread's row table: in the caller's workspace if it is large enough, else in the calling
  // thread's scratch (which its units then do not ask for again).
  const int64_t* offsets = nullptr;
  const float* image = input;
  const float** caller_table = nullptr;
  if (implicit) {
    void* ws = workspace_bytes >= need ? workspace : thread_scratch(ScratchSlot::kConv, need);
    if (ws == nullptr)
      return false;
    char* base = static_cast<char*>(align_up(ws));
    int64_t* table = reinterpret_cast<int64_t*>(base);
    fill_offsets(p, geometry, table);
    offsets = table;
    if (geometry.padded) {
      float* padded = reinterpret_cast<float*>(base + offsets_bytes(p));
      fill_padded(p, geometry, input, padded);
      image = padded;
    }
    caller_table =
        reinterpret_cast<const float**>(base + offsets_bytes(p) + padded_bytes(geometry));
  }
  // Units of work: one block of output pixels of one group, times a run of `span` of its
  // panels. A block's rows stay in cache while the panels pass over them. Each unit gathers
  // its own copy of the block; cutting a block's panels into parts only when there are too few
  // blocks to keep every thread busy keeps the duplicated gathers rare. It also keeps two
  // threads from writing the same output rows: where a row is not 64-byte aligned (planned
  // memory often is not), two panels of it share a cache line, and a 1x1 convolution whose
  // panels went to different threads ran slower on two threads than on one. Every output is computed by
  // the same strip over the same block rows whichever unit or thread runs it: the results do
  // not depend on the thread count.
  int64_t parts = 1;
  if (threads > 1) {
    // Two units per thread let the threads even out blocks of unequal size; a single block
    // (a 7x7 image) is as even as it gets with one unit per thread, each gathering it once.
    const int64_t want = static_cast<int64_t>(blocks * p.groups == 1 ? threads : 2 * threads);
    parts = (want + blocks * p.groups - 1) / (blocks * p.groups);
    parts = parts < h.panels ? parts : h.panels;
  }
  const int64_t span = (h.panels + parts - 1) / parts;
  parts = (h.panels + span - 1) / span;
  std::atomic<bool> ok{true};
  auto run_unit = [&](size_t unit) {
    const int64_t u = static_cast<int64_t>(unit);
    const int64_t q0 = u / (p.groups * parts) * block, g = u / parts % p.groups;
    const int64_t j0 = u % parts * span, j1 = min64(h.panels, j0 + span);
    const int64_t rows = min64(block, pixels - q0);
    NhwcGemmStrip s;
    s.a = input + q0 * p.in_channels + g * depth;
    s.lda = p.in_channels;
    if (implicit) {
      const float** table =
          std::this_thread::get_id() == caller
              ? caller_table
              : static_cast<const float**>(thread_scratch(ScratchSlot::kConv, row_table_bytes(p)));
      if (table == nullptr) {
        ok.store(false, std::memory_order_relaxed);
        return;
      }
      fill_row_table(p, geometry, image, g, q0, rows, table);
      s.row_ptrs = table;
      s.offsets = offsets;
    } else if (!direct) {
      // The caller's workspace on the calling thread, this thread's scratch on the others.
      void* ws =
          std::this_thread::get_id() == caller && workspace_bytes >= need ? workspace : nullptr;
      if (ws == nullptr)
        ws = thread_scratch(ScratchSlot::kConv, need);
      if (ws == nullptr) {
        ok.store(false, std::memory_order_relaxed);
        return;
      }
      float* columns = static_cast<float*>(align_up(ws));
      gather_rows(p, g, input, q0, rows, columns);
      s.a = columns;
      s.lda = depth;
    }
    s.rows = rows;
    s.depth = depth;
    s.ldc = p.out_channels;
    const float* group_panels = panels + g * h.panels * panel_floats(depth);
    float* c = output + q0 * p.out_channels + g * goc;
    NhwcEpilogue pe = e;
    for (int64_t j = j0; j < j1; ++j) {
      const float* panel = group_panels + j * panel_floats(depth);
      pe.bias = panel;
      s.panel = panel + kNhwcPanelCols;
      s.c = c + j * kNhwcPanelCols;
      s.cols = min64(kNhwcPanelCols, goc - j * kNhwcPanelCols);
      k.gemm_strip(s, pe);
    }
  };
  const size_t units = static_cast<size_t>(blocks * p.groups * parts);
  if (threads > 1) {
    // Claimed one at a time, so the short last block and a thread that starts late even out.
    extension::threadpool::get_threadpool()->run(run_unit, units);
  } else {
    for (size_t u = 0; u < units; ++u)
      run_unit(u);
  }
  return ok.load(std::memory_order_relaxed);
}

bool depthwise_conv2d_nhwc_isa(Isa isa, const ConvNhwcParams& p, const float* filter,
                               const float* bias, const float* input, float* output) {
  if (!conv2d_nhwc_params_valid(p) || p.groups != p.in_channels)
    return false;
  const ConvNhwcKernels& k = kernels_for(isa);
  const NhwcEpilogue epilogue = epilogue_of(p, bias);
  const int64_t rows = p.batch * p.out_h;
  const double work = static_cast<double>(p.out_w * p.out_channels * p.kernel_h * p.kernel_w);
  parallel_items(rows, work, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t n = i / p.out_h, oh = i % p.out_h;
      DwNhwcRow r;
      r.image = input + n * p.in_h * p.in_w * p.in_channels;
      r.in_h = p.in_h;
      r.in_w = p.in_w;
      r.in_c = p.in_channels;
      r.w = filter;
      r.kh = p.kernel_h;
      r.kw = p.kernel_w;
      r.ih0 = oh * p.stride_h - p.pad_top;
      r.sw = p.stride_w;
      r.dh = p.dilation_h;
      r.dw = p.dilation_w;
      r.pad_left = p.pad_left;
      r.multiplier = p.out_channels / p.in_channels;
      r.out = output + i * p.out_w * p.out_channels;
      r.out_w = p.out_w;
      r.out_c = p.out_channels;
      r.epilogue = epilogue;
      k.depthwise_row(r);
    }
  });
  return true;
}

bool quantize_to_grid_isa(Isa isa, float* x, int64_t n, float scale, float zero_point, float qmin,
                          float qmax) {
  if (n < 0 || !grid_valid(scale, zero_point, qmin, qmax))
    return false;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const NhwcEpilogue e{nullptr, -kInf, kInf, scale, 1.0f / scale, zero_point, qmin, qmax, 0};
  const ConvNhwcKernels& k = kernels_for(isa);
  // Chunks of whole vectors, so the split never changes which elements take the scalar tail
  // (the two round the same way anyway).
  constexpr int64_t kChunk = 1024;
  parallel_items((n + kChunk - 1) / kChunk, kChunk, [&](int64_t begin, int64_t end) {
    const int64_t first = begin * kChunk, last = min64(end * kChunk, n);
    k.epilogue_span(x + first, last - first, e);
  });
  return true;
}

bool quantize_to_grid(float* x, int64_t n, float scale, float zero_point, float qmin, float qmax) {
  return quantize_to_grid_isa(active_isa(), x, n, scale, zero_point, qmin, qmax);
}

bool depthwise_conv2d_nhwc(const ConvNhwcParams& p, const float* filter, const float* bias,
                           const float* input, float* output) {
  return depthwise_conv2d_nhwc_isa(active_isa(), p, filter, bias, input, output);
}

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
