// Internal contract between conv_nhwc.cpp (baseline driver) and the per-ISA NHWC loops
// (conv_nhwc_<isa>.cpp, each compiling conv_nhwc_kernels_impl.inc with its own -m flags).
// Constant-initialized tables: choosing one runs no ISA code.
#pragma once

#include <cstdint>

namespace executorch {
namespace kernels {
namespace compute {

// What happens to every output after the sum: y = clamp(y + bias, lo, hi) (bias may be null),
// then, if scale != 0, the rounding onto the quantization grid of conv_nhwc.h.
// Between the two, `activation` (a ConvActivation of conv_nhwc.h as an int) is applied.
struct NhwcEpilogue {
  const float* bias;
  float lo, hi;
  float scale, inv_scale, zero_point, qmin, qmax;
  int activation;
};

// One output row (fixed n and oh) of a depthwise NHWC convolution.
struct DwNhwcRow {
  const float* image;  // [in_h, in_w, in_c] of this batch element
  int64_t in_h, in_w, in_c;
  const float* w;  // [kh, kw, out_c]
  int64_t kh, kw;
  int64_t ih0;  // input row of kernel row 0 (oh * stride_h - pad_top; may be negative)
  int64_t sw, dh, dw, pad_left;
  int64_t multiplier;
  float* out;  // [out_w, out_c]
  int64_t out_w, out_c;
  NhwcEpilogue epilogue;  // bias: [out_c] or nullptr
};

// The GEMM of the dense convolutions: B is packed once into panels of kNhwcPanelCols columns
// ([depth, kNhwcPanelCols] each, zero-padded past the last column), and A is read in place,
// row by row (rows lda floats apart), so nothing is packed per call.
constexpr int kNhwcPanelCols = 32;

// C[rows, cols] = epilogue(A[rows, depth] * panel[depth, cols]) for one panel, cols <=
// kNhwcPanelCols, rows any; the epilogue's bias points at this panel's first column.
// An implicit im2col: with `offsets` set, row i of A starts at row_ptrs[i] (a pixel's window in
// the input image) and its element d is row_ptrs[i][offsets[d]] (a and lda unused).
struct NhwcGemmStrip {
  const float* a;
  int64_t lda, rows, depth;
  const float* panel;
  float* c;
  int64_t ldc, cols;
  const float* const* row_ptrs = nullptr;
  const int64_t* offsets = nullptr;
};

struct ConvNhwcKernels {
  void (*gemm_strip)(const NhwcGemmStrip& s, const NhwcEpilogue& e);
  void (*depthwise_row)(const DwNhwcRow& r);
  // x[i] = the epilogue of x[i] (bias ignored) over n floats.
  void (*epilogue_span)(float* x, int64_t n, const NhwcEpilogue& e);
};

extern const ConvNhwcKernels kConvNhwcBaseline;
extern const ConvNhwcKernels kConvNhwcAvx2;
extern const ConvNhwcKernels kConvNhwcAvx512;
extern const ConvNhwcKernels kConvNhwcNeon;  // AArch64 builds only

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
