// Internal contract between qconv_nhwc.cpp (baseline driver) and the per-ISA integer loops
// (qconv_nhwc_<isa>.cpp, each compiling qconv_nhwc_kernels_impl.inc with its own -m flags).
// Constant-initialized tables: choosing one runs no ISA code.
#pragma once

#include <cstdint>

#include "isa.h"

namespace executorch {
namespace kernels {
namespace compute {

// The requantization of every output: v = acc * scale[c], clamped to [lo, hi] (the output grid
// relative to its zero point), rounded half to even, written as v * out_scale.
struct QEpilogue {
  float lo, hi, out_scale;
};

// The packed filter of the dense convolutions: per group, panels of kQPanelCols output channels,
// each [depth / 4][kQPanelCols][4] int8 (four consecutive depth bytes of one channel together,
// as VNNI's vpdpbusd and Arm's SDOT read them; zero past the last channel and depth), then
// kQPanelCols int32 bias terms (bias - the activations' unsigned zero point * the channel's
// weight sum), kQPanelCols float requantization scales, and kQPanelCols int32 bias terms for
// activations taken as signed bytes (the unsigned ones minus 128, as SDOT multiplies them: the
// first terms + 128 * the weight sum).
constexpr int kQPanelCols = 16;
constexpr int64_t kQPanelTailBytes = kQPanelCols * 12;

// C[rows, cols] = epilogue(A[rows, depth] * panel) for one panel; A is unsigned bytes (the
// activations minus the grid's minimum: plus 128 for qint8). A row is `taps` pieces of
// tap_depth bytes (a multiple of 4), each where `a` points: a[row * taps + t] is piece t of row
// `row` (an input pixel, a row of zero points for padding, or an im2col row), so a KxK
// convolution reads the input where it is. depth = taps * tap_depth.
struct QGemmStrip {
  const uint8_t* const* a;
  int64_t taps, tap_depth, rows, depth;
  const int8_t* panel;  // [depth / 4][kQPanelCols][4], then the bias terms and scales
  float* c;
  int64_t ldc, cols;
};

// One output row (fixed n and oh) of a depthwise convolution on 16-bit activations relative to
// their zero point (padding reads 0). w, bias and scale are zero-padded to whole blocks of
// kQDwBlock channels (w's rows are still out_c apart, the last row padded), and the image has
// kQDwBlock readable values after its end, so a block may read past the last channel.
constexpr int64_t kQDwBlock = 16;
// The most window taps (kernel_h * kernel_w) the depthwise kernels take.
constexpr int64_t kQDwMaxTaps = 64;
struct QDwRow {
  const int16_t* image;  // [in_h, in_w, in_c] of this batch element
  int64_t in_h, in_w, in_c;
  const int16_t* w;     // [kh, kw, out_c]
  const int32_t* bias;  // [out_c]
  const float* scale;   // [out_c]
  int64_t kh, kw;
  int64_t ih0;  // input row of kernel row 0 (may be negative)
  int64_t sw, dh, dw, pad_left;
  int64_t multiplier;
  float* out;  // [out_w, out_c]
  int64_t out_w, out_c;
  QEpilogue epilogue;
};

// How the float input becomes integers: t = x * inv_scale limited to [lo, hi] (the grid
// relative to its zero point), rounded half to even, plus offset.
struct QInputGrid {
  float inv_scale, lo, hi, offset;
};

struct QConvNhwcKernels {
  void (*gemm_strip)(const QGemmStrip& s, const QEpilogue& e);
  void (*depthwise_row)(const QDwRow& r);
  // The integers of x (QInputGrid): rows of cols values into rows of out_stride unsigned bytes
  // (zeros after the first cols) / n values as int16.
  void (*quantize_u8)(const float* x, int64_t rows, int64_t cols, int64_t out_stride,
                      const QInputGrid& g, uint8_t* out);
  void (*quantize_s16)(const float* x, int64_t n, const QInputGrid& g, int16_t* out);
  const char* name;
};

extern const QConvNhwcKernels kQConvNhwcBaseline;
extern const QConvNhwcKernels kQConvNhwcAvx2;
extern const QConvNhwcKernels kQConvNhwcAvx512;
// The AVX-512 variant's GEMM with VNNI's vpdpbusd, for CPUs that have it (chosen at run time).
extern const QConvNhwcKernels kQConvNhwcAvx512Vnni;
// AArch64 builds only: the GEMM with the dot-product instruction SDOT.
extern const QConvNhwcKernels kQConvNhwcNeonDot;

// Testing hook: false makes the avx512 level use its non-VNNI GEMM even on a CPU with VNNI, so
// both run in the tests; returns the previous setting.
bool set_qconv_vnni_allowed(bool allowed);
// The name of the variant the level runs ("baseline", "avx2", "avx512", "avx512vnni").
const char* qconv_variant_name(Isa isa);

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
