// Internal contract between conv.cpp (baseline driver) and the per-ISA direct-convolution
// loops (conv_<isa>.cpp, each compiling conv_kernels_impl.inc with its own -m flags).
// Constant-initialized tables: choosing one runs no ISA code.
#pragma once

#include <cstdint>

namespace executorch {
namespace kernels {
namespace compute {

// One output plane of a convolution whose output channel reads exactly one input plane
// (depthwise, or any conv with in_channels / groups == 1).
// Floats of output sums per block of the depthwise flat path (whole rows of the flat grid, at
// least one): they stay in L1 until they are stored.
constexpr int64_t kDwFlatBlockFloats = 2048;

struct DwPlane {
  const float* in;  // [in_h, in_w]
  int64_t in_h, in_w;
  const float* w;  // [kh, kw]
  int64_t kh, kw;
  int64_t sh, sw, ph, pw, dh, dw;
  float* out;  // [out_h, out_w]
  int64_t out_h, out_w;
  float bias, lo, hi;
  // The flat path's buffer (conv_kernels_impl.inc), or null for the row-by-row loops: sh*sw
  // stride phases of phase_floats each (hq rows of wq columns, then at least wq + 16 zeros), then
  // flat-block sums.
  float* scratch;
  int64_t hq, wq, phase_floats;
};

// A block of up to kDwBlockChannels depthwise channels (one input plane each) computed together,
// channels-last in scratch: each output pixel of all the block's channels is one vector sum per
// tap. For small planes, where the per-plane loops spend most of their time outside the sums.
constexpr int64_t kDwBlockChannels = 16;
// Largest kernel (kh * kw) the block path takes.
constexpr int64_t kDwBlockMaxTaps = 25;

struct DwBlock {
  const float* in;  // channels planes of [in_h, in_w], in_h * in_w apart
  int64_t channels;
  int64_t in_h, in_w, kh, kw, sh, sw, ph, pw, dh, dw, out_h, out_w;
  const float* w;     // [channels, kh * kw]
  const float* bias;  // [channels], or null
  float lo, hi;
  float* out;  // channels planes of [out_h, out_w], out_h * out_w apart
  // 64-byte aligned, (hp * wp + out_h * out_w) * kDwBlockChannels floats (hp, wp: the padded
  // input's size): the padded block, then its sums.
  float* scratch;
};

// The geometry im2col needs (one image; channels are the caller's).
struct Conv2dGeometry {
  int64_t in_h, in_w, kh, kw, sh, sw, ph, pw, dh, dw, out_w;
};

struct ConvKernels {
  void (*depthwise_plane)(const DwPlane& p);
  // y[i] = clamp(y[i] + bias, lo, hi) over n contiguous floats.
  void (*bias_clamp)(float* y, int64_t n, float bias, float lo, float hi);
  // im2col of cig input planes for output rows [oh0, oh1) (conv.cpp has the layout).
  void (*im2col)(const Conv2dGeometry& g, const float* x, int64_t cig, int64_t oh0, int64_t oh1,
                 float* col);
  // The rows [p0, p0 + kc) and columns [j0, j0 + nc) of all cig planes' im2col (column j is
  // output pixel j of the plane), as the SGEMM's nr-wide B panels (conv_kernels_impl.inc).
  void (*depthwise_block)(const DwBlock& b);
  void (*im2col_panels)(const Conv2dGeometry& g, const float* x, int64_t p0, int64_t kc, int64_t j0,
                        int64_t nc, int64_t nr, float* dst);
};

extern const ConvKernels kConvBaseline;
extern const ConvKernels kConvAvx2;
extern const ConvKernels kConvAvx512;
extern const ConvKernels kConvNeon;  // AArch64 builds only, like kSgemmNeon

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
