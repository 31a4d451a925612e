/*
 * convolution.out: 1-D and 2-D, groups (depthwise), stride, padding,
 * dilation, optional bias, and transposed convolution (output_padding).
 * float32 on the compute core (conv2d_nchw: fused depthwise paths, 1x1
 * straight SGEMM, im2col + SGEMM); the transposed form is SGEMM + col2im.
 * A constant weight is packed for the SGEMM once at load (a ConstantPreparer,
 * end of this file).
 * Contiguous and channels-last tensors: a 2-D convolution whose input or
 * output is channels-last runs in NHWC (detail/conv_nhwc_run.h; the other one,
 * if contiguous, through a channels-last scratch copy), a channels-last weight
 * of an NCHW convolution goes through a contiguous scratch copy.
 */
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <vector>

#include <executorch/runtime/kernel/prepared_constants.h>
#include <executorch/runtime/kernels/compute/activation.h>
#include <executorch/runtime/kernels/compute/conv.h>
#include <executorch/runtime/kernels/compute/gemm.h>
#include <executorch/runtime/kernels/compute/scratch.h>
#include <executorch/runtime/kernels/detail/activation_run.h>
#include <executorch/runtime/kernels/detail/conv_nhwc_run.h>
#include <executorch/runtime/kernels/detail/shape_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(convolution_out_name, "aten::convolution.out");

using ::executorch::runtime::Span;
using std::optional;

constexpr float kInf = std::numeric_limits<float>::infinity();

constexpr const char* kOp = log_name(convolution_out_name);

// Entry i of an int list for spatial dim i of `spatial`: the list has no entry (dflt), one for
// every dim, or one per dim. False if it has another count.
bool list_value(ArrayRef<int64_t> v, size_t spatial, size_t i, int64_t dflt, int64_t* out) {
  if (v.size() > 1 && v.size() != spatial) {
    return false;
  }
  *out = v.size() == 0 ? dflt : v.size() == 1 ? v[0] : v[i];
  return true;
}

// list_value, failing ctx with the argument's name when the count is wrong.
bool param_at(KernelRuntimeContext& ctx, const char* arg, ArrayRef<int64_t> v, size_t spatial,
              size_t i, int64_t dflt, int64_t* out) {
  if (!list_value(v, spatial, i, dflt, out)) {
    ET_LOG(Error, "%s: argument '%s' must have 1 or %zu entries, got %zu", kOp, arg, spatial,
           v.size());
    ctx.fail(Error::InvalidArgument);
    return false;
  }
  return true;
}

// Transposed-convolution output size; with every argument in [0, 2^31) each
// product is below 2^62 and the sum stays below 2^63.
int64_t transposed_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil,
                            int64_t out_pad) {
  return (in - 1) * stride - 2 * pad + dil * (k - 1) + out_pad + 1;
}

// A contiguous float copy of t (or t's own data when it already is).
const float* as_contiguous(const Tensor& t, std::vector<float>& tmp) {
  if (is_contiguous_dim_order(t)) {
    return t.const_data_ptr<float>();
  }
  tmp.resize(static_cast<size_t>(t.numel()));
  int64_t sizes[kMaxDim], ss[kMaxDim], ds[kMaxDim];
  sizes64(t, sizes);
  strides64(t, ss);
  int64_t acc = 1;
  for (ssize_t i = t.dim() - 1; i >= 0; --i) {
    ds[i] = acc;
    acc *= sizes[i];
  }
  strided_copy(static_cast<int>(t.dim()), sizes, nullptr, tmp.data(), ds, t.const_data_ptr(), ss,
               sizeof(float));
  return tmp.data();
}

// Copies a contiguous float buffer of out's shape into out (any dim order).
void store_from_contiguous(const float* src, const Tensor& out) {
  int64_t sizes[kMaxDim], ss[kMaxDim], ds[kMaxDim];
  sizes64(out, sizes);
  strides64(out, ds);
  int64_t acc = 1;
  for (ssize_t i = out.dim() - 1; i >= 0; --i) {
    ss[i] = acc;
    acc *= sizes[i];
  }
  strided_copy(static_cast<int>(out.dim()), sizes, out.dim_order().data(), out.mutable_data_ptr(),
               ds, src, ss, sizeof(float));
}

// Transposed 2-D convolution, NCHW contiguous float: per (batch, group),
// col = W_g^T @ x_g (SGEMM), then col2im scatter-add, then bias. False when
// the column buffer (weight elements of a group times input pixels) cannot
// be had; nothing is written then.
bool conv_transpose2d(const compute::Conv2dParams& p, int64_t oh, int64_t ow, const float* x,
                      const float* w, const float* bias, float* y) {
  const int64_t g = p.groups;
  const int64_t icg = p.in_channels / g, ocg = p.out_channels / g;
  const int64_t khw = p.kernel_h * p.kernel_w;
  const int64_t hw = p.in_h * p.in_w;
  // Both factors are real tensors' element counts, but their product need
  // not fit memory: allocate without throwing and let the caller report it.
  int64_t col_n;
  if (!checked_mul(ocg * khw, hw, &col_n) ||
      static_cast<uint64_t>(col_n) > SIZE_MAX / sizeof(float)) {
    return false;
  }
  std::unique_ptr<float[]> col_buf(new (std::nothrow) float[static_cast<size_t>(col_n)]);
  if (col_buf == nullptr) {
    return false;
  }
  float* const col = col_buf.get();
  for (int64_t n = 0; n < p.batch; ++n) {
    float* yn = y + n * p.out_channels * oh * ow;
    std::memset(yn, 0, sizeof(float) * static_cast<size_t>(p.out_channels * oh * ow));
    for (int64_t gi = 0; gi < g; ++gi) {
      const float* xg = x + (n * p.in_channels + gi * icg) * hw;
      const float* wg = w + gi * icg * ocg * khw;  // [icg, ocg*khw]
      compute::sgemm(compute::Trans::kYes, compute::Trans::kNo, ocg * khw, hw, icg, 1.0f, wg,
                     ocg * khw, xg, hw, 0.0f, col, hw);
      for (int64_t oc = 0; oc < ocg; ++oc) {
        float* yc = yn + (gi * ocg + oc) * oh * ow;
        for (int64_t r = 0; r < p.kernel_h; ++r) {
          for (int64_t s = 0; s < p.kernel_w; ++s) {
            const float* cr = col + ((oc * p.kernel_h + r) * p.kernel_w + s) * hw;
            for (int64_t ih = 0; ih < p.in_h; ++ih) {
              const int64_t yh = ih * p.stride_h - p.pad_h + r * p.dilation_h;
              if (yh < 0 || yh >= oh) {
                continue;
              }
              for (int64_t iw = 0; iw < p.in_w; ++iw) {
                const int64_t yw = iw * p.stride_w - p.pad_w + s * p.dilation_w;
                if (yw >= 0 && yw < ow) {
                  yc[yh * ow + yw] += cr[ih * p.in_w + iw];
                }
              }
            }
          }
        }
      }
    }
    if (bias != nullptr) {
      for (int64_t oc = 0; oc < p.out_channels; ++oc) {
        float* yc = yn + oc * oh * ow;
        for (int64_t i = 0; i < oh * ow; ++i) {
          yc[i] += bias[oc];
        }
      }
    }
  }
  return true;
}

// Prepared-constant tag of a weight packed for the compute core's SGEMM (conv2d_pack_weight).
constexpr uint32_t kPackedWeightTag = 0x434f4e57u;  // "CONW"

// The packed form of the constant weight w that the Method prepared at load, or null.
const void* prepared_weight(KernelRuntimeContext& ctx, const float* w) {
  const ::executorch::runtime::PreparedConstants* cache = ctx.prepared_constants();
  return cache != nullptr ? cache->find(w, kPackedWeightTag) : nullptr;
}

// Prepared-constant tag kNhwcFilterTag (detail/conv_nhwc_run.h): the filter blob of the NHWC path.
const void* prepared_nhwc_filter(KernelRuntimeContext& ctx, const float* w) {
  const ::executorch::runtime::PreparedConstants* cache = ctx.prepared_constants();
  return cache != nullptr ? cache->find(w, kNhwcFilterTag) : nullptr;
}

// A 2-D convolution with a channels-last input or output runs in NHWC (both channels-last: without
// layout copies). Tensors of other orders are rejected before.
bool runs_in_nhwc(const Tensor& input, const Tensor& out, bool transposed) {
  const bool in_cl = is_channels_last_dim_order(input), out_cl = is_channels_last_dim_order(out);
  return !transposed && input.dim() == 4 && out.dim() == 4 && (in_cl || out_cl) &&
         (in_cl || is_contiguous_dim_order(input)) && (out_cl || is_contiguous_dim_order(out));
}

// Element strides of t's shape stored channels-last (sizes in NCHW order).
void channels_last_strides(const Tensor& t, int64_t* strides) {
  const int64_t c = t.size(1), h = t.size(2), w = t.size(3);
  strides[0] = h * w * c;
  strides[1] = 1;
  strides[2] = w * c;
  strides[3] = c;
}

// The three planes of an RGB image interleaved into pixels, four pixels (three 16-byte vectors)
// at a time: shuffles (__builtin_shufflevector, GCC 12 and clang) of the baseline vector
// registers (SSE2, NEON) in place of twelve scalar stores, a third of the time of the scalar
// loop on a 224x224 image.
void interleave_three_planes(const float* image, int64_t hw, float* dst) {
  typedef float V4 __attribute__((vector_size(16)));
  const float *r = image, *g = image + hw, *b = image + 2 * hw;
  auto load = [](const float* p) {
    V4 v;
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  int64_t p = 0;
  for (; p + 4 <= hw; p += 4) {
    const V4 vr = load(r + p), vg = load(g + p), vb = load(b + p);
    const V4 rg01 = __builtin_shufflevector(vr, vg, 0, 4, 1, 5);      // r0 g0 r1 g1
    const V4 rg23 = __builtin_shufflevector(vr, vg, 2, 6, 3, 7);      // r2 g2 r3 g3
    const V4 out0 = __builtin_shufflevector(rg01, vb, 0, 1, 4, 2);    // r0 g0 b0 r1
    const V4 g1b1 = __builtin_shufflevector(rg01, vb, 3, 5, 3, 5);    // g1 b1 . .
    const V4 out1 = __builtin_shufflevector(g1b1, rg23, 0, 1, 4, 5);  // g1 b1 r2 g2
    const V4 out2 = __builtin_shufflevector(vb, rg23, 2, 6, 7, 3);    // b2 r3 g3 b3
    std::memcpy(dst + 3 * p, &out0, sizeof out0);
    std::memcpy(dst + 3 * p + 4, &out1, sizeof out1);
    std::memcpy(dst + 3 * p + 8, &out2, sizeof out2);
  }
  for (; p < hw; ++p) {
    dst[3 * p] = r[p];
    dst[3 * p + 1] = g[p];
    dst[3 * p + 2] = b[p];
  }
}

// Copies float tensor data between t's own layout and a channels-last buffer of t's
// shape, in the direction given; strided_copy transposes in cache-sized tiles. A contiguous
// image of a few channels (a network's RGB input) is interleaved pixel by pixel instead: its
// channel planes are read as a few sequential streams.
void copy_channels_last(const Tensor& t, float* buffer, bool into_buffer) {
  constexpr int64_t kFewChannels = 16;
  if (into_buffer && t.size(1) < kFewChannels && is_contiguous_dim_order(t)) {
    const int64_t c = t.size(1), hw = t.size(2) * t.size(3);
    const float* src = t.const_data_ptr<float>();
    for (int64_t n = 0; n < t.size(0); ++n) {
      const float* image = src + n * c * hw;
      float* dst = buffer + n * c * hw;
      if (c == 3) {
        interleave_three_planes(image, hw, dst);
        continue;
      }
      for (int64_t p = 0; p < hw; ++p) {
        for (int64_t k = 0; k < c; ++k) {
          dst[p * c + k] = image[k * hw + p];
        }
      }
    }
    return;
  }
  int64_t sizes[4], own[4], cl[4];
  sizes64(t, sizes);
  strides64(t, own);
  channels_last_strides(t, cl);
  static const DimOrderType kNhwc[4] = {0, 2, 3, 1};
  if (into_buffer) {
    strided_copy(4, sizes, kNhwc, buffer, cl, t.const_data_ptr(), own, sizeof(float));
  } else {
    strided_copy(4, sizes, t.dim_order().data(), t.mutable_data_ptr(), own, buffer, cl,
                 sizeof(float));
  }
}

// The NHWC routines' own epilogue activation for `act`, if they have one: it rounds every
// output as apply_activation does at the same ISA level (conv_nhwc.h), and runs on each tile
// while it is in registers instead of in a second pass over the whole output.
compute::ConvActivation epilogue_activation(compute::Activation act) {
  switch (act) {
    case compute::Activation::kSilu:
      return compute::ConvActivation::kSigmoidMul;
    case compute::Activation::kHardswish:
      return compute::ConvActivation::kHardswish;
    default:
      return compute::ConvActivation::kNone;
  }
}

// The convolution in NHWC with the clamp of q, then `act`. A contiguous input (a network's NCHW
// input into its first convolution) is copied channels-last into scratch memory first; a
// contiguous output (a convolution that ends a channels-last chain) is computed into scratch
// memory and copied out. False after failing ctx.
bool convolution_nhwc(KernelRuntimeContext& ctx, compute::ConvNhwcParams q,
                      const NhwcFilterSource& src, const void* prepared, const Tensor& input,
                      Tensor& out, compute::Activation act) {
  if (q.out_scale == 0.0f && epilogue_activation(act) != compute::ConvActivation::kNone) {
    q.activation = epilogue_activation(act);
    act = compute::Activation::kNone;
  }
  const bool in_cl = is_channels_last_dim_order(input), out_cl = is_channels_last_dim_order(out);
  const size_t in_bytes =
      in_cl ? 0 : compute::round_up_bytes(input.nbytes(), compute::kScratchAlign);
  const size_t out_bytes = out_cl ? 0 : out.nbytes();
  char* scratch = nullptr;
  if (in_bytes + out_bytes > 0) {
    scratch = static_cast<char*>(
        compute::thread_scratch(compute::ScratchSlot::kLayout, in_bytes + out_bytes));
    if (scratch == nullptr) {
      fail(ctx, Error::MemoryAllocationFailed, kOp, "no memory for a channels-last copy");
      return false;
    }
  }
  const float* x = input.const_data_ptr<float>();
  if (!in_cl) {
    copy_channels_last(input, reinterpret_cast<float*>(scratch), /*into_buffer=*/true);
    x = reinterpret_cast<const float*>(scratch);
  }
  float* y = out_cl ? out.mutable_data_ptr<float>() : reinterpret_cast<float*>(scratch + in_bytes);
  if (!conv_nhwc_run(q, src, prepared, x, y)) {
    fail(ctx, Error::InvalidArgument, kOp, "invalid convolution parameters or out of memory");
    return false;
  }
  if (act != compute::Activation::kNone)
    compute::apply_activation(act, y, y, out.numel());
  if (!out_cl) {
    copy_channels_last(out, y, /*into_buffer=*/false);
  }
  return true;
}

// The convolution, its result clamped to [lo, hi] (NaN stays NaN) and then passed through `act`:
// the defaults are the plain operator, others an activation fused into it at load (see the end
// of this file).
Tensor& convolution_clamped(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                            const optional<Tensor>& bias, ArrayRef<int64_t> stride,
                            ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation, bool transposed,
                            ArrayRef<int64_t> output_padding, int64_t groups, Tensor& out, float lo,
                            float hi, compute::Activation act = compute::Activation::kNone) {
  const ssize_t rank = input.dim();
  ET_KERNEL_CHECK_MSG(
      ctx, rank == 3 || rank == 4, InvalidArgument, out,
      "%s: argument 'input' must have rank 3 or 4 (1-D or 2-D convolution), got %zd", kOp, rank);
  if (!check_rank(ctx, kOp, "weight", weight, rank) ||
      !check_dtype(ctx, kOp, "input", input, ScalarType::Float) ||
      !check_dtype(ctx, kOp, "weight", weight, ScalarType::Float) ||
      !check_dtype(ctx, kOp, "out", out, ScalarType::Float) ||
      !check_rank(ctx, kOp, "out", out, rank) ||
      !check_contiguous_or_channels_last(ctx, kOp, "input", input) ||
      !check_contiguous_or_channels_last(ctx, kOp, "weight", weight) ||
      !check_contiguous_or_channels_last(ctx, kOp, "out", out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, groups >= 1, InvalidArgument, out,
                      "%s: argument 'groups' must be positive, got %lld", kOp,
                      static_cast<long long>(groups));
  const size_t spatial = static_cast<size_t>(rank - 2);
  compute::Conv2dParams p;
  p.batch = input.size(0);
  p.in_channels = input.size(1);
  p.groups = groups;
  p.in_h = rank == 4 ? input.size(2) : 1;
  p.in_w = input.size(rank - 1);
  p.kernel_h = rank == 4 ? weight.size(2) : 1;
  p.kernel_w = weight.size(rank - 1);
  int64_t v[2][4];  // stride, padding, dilation, output_padding per spatial dim
  for (size_t i = 0; i < spatial; ++i) {
    if (!param_at(ctx, "stride", stride, spatial, i, 1, &v[i][0]) ||
        !param_at(ctx, "padding", padding, spatial, i, 0, &v[i][1]) ||
        !param_at(ctx, "dilation", dilation, spatial, i, 1, &v[i][2]) ||
        !param_at(ctx, "output_padding", output_padding, spatial, i, 0, &v[i][3])) {
      return out;
    }
  }
  p.clamp_min = lo;
  p.clamp_max = hi;
  p.activation = act;
  const int64_t* vw = v[spatial - 1];
  const int64_t vh[4] = {1, 0, 1, 0};
  const int64_t* hh = rank == 4 ? v[0] : vh;
  p.stride_h = hh[0];
  p.pad_h = hh[1];
  p.dilation_h = hh[2];
  p.stride_w = vw[0];
  p.pad_w = vw[1];
  p.dilation_w = vw[2];
  // Parameters bounded by a dim size keep every product of the output-size
  // formulas and of the compute core's index arithmetic inside int64.
  ET_KERNEL_CHECK_MSG(
      ctx,
      p.stride_h > 0 && p.stride_w > 0 && p.stride_h <= kMaxDimSize && p.stride_w <= kMaxDimSize,
      InvalidArgument, out, "%s: argument 'stride' must be in [1, %lld]", kOp,
      static_cast<long long>(kMaxDimSize));
  ET_KERNEL_CHECK_MSG(ctx,
                      p.dilation_h > 0 && p.dilation_w > 0 && p.dilation_h <= kMaxDimSize &&
                          p.dilation_w <= kMaxDimSize,
                      InvalidArgument, out, "%s: argument 'dilation' must be in [1, %lld]", kOp,
                      static_cast<long long>(kMaxDimSize));
  ET_KERNEL_CHECK_MSG(
      ctx, p.pad_h >= 0 && p.pad_w >= 0 && p.pad_h <= kMaxDimSize && p.pad_w <= kMaxDimSize,
      InvalidArgument, out, "%s: argument 'padding' must be in [0, %lld]", kOp,
      static_cast<long long>(kMaxDimSize));
  ET_KERNEL_CHECK_MSG(ctx, groups <= kMaxDimSize, InvalidArgument, out,
                      "%s: argument 'groups' = %lld is too large", kOp,
                      static_cast<long long>(groups));
  ET_KERNEL_CHECK_MSG(ctx, p.in_channels % groups == 0, InvalidArgument, out,
                      "%s: argument 'input' has %lld channels, not divisible by groups=%lld", kOp,
                      static_cast<long long>(p.in_channels), static_cast<long long>(groups));
  int64_t oh = 0, ow = 0;
  if (!transposed) {
    p.out_channels = weight.size(0);
    ET_KERNEL_CHECK_MSG(
        ctx, p.out_channels % groups == 0 && weight.size(1) * groups == p.in_channels,
        InvalidArgument, out,
        "%s: argument 'weight' shape does not match input channels %lld and groups %lld", kOp,
        static_cast<long long>(p.in_channels), static_cast<long long>(groups));
    oh = compute::conv2d_out_h(p);
    ow = compute::conv2d_out_w(p);
  } else {
    ET_KERNEL_CHECK_MSG(ctx, weight.size(0) == p.in_channels, InvalidArgument, out,
                        "%s: argument 'weight' (transposed) must have %lld input channels", kOp,
                        static_cast<long long>(p.in_channels));
    p.out_channels = weight.size(1) * groups;
    const int64_t oph = rank == 4 ? hh[3] : 0, opw = vw[3];
    ET_KERNEL_CHECK_MSG(ctx,
                        oph >= 0 && opw >= 0 && (oph < p.stride_h || oph < p.dilation_h) &&
                            (opw < p.stride_w || opw < p.dilation_w),
                        InvalidArgument, out,
                        "%s: argument 'output_padding' must be smaller than stride or dilation",
                        kOp);
    oh = transposed_out_size(p.in_h, p.kernel_h, p.stride_h, p.pad_h, p.dilation_h, oph);
    ow = transposed_out_size(p.in_w, p.kernel_w, p.stride_w, p.pad_w, p.dilation_w, opw);
  }
  ET_KERNEL_CHECK_MSG(ctx, oh > 0 && ow > 0, InvalidArgument, out,
                      "%s: the computed output size is empty (input too small for the kernel)",
                      kOp);
  const float* b = nullptr;
  if (bias.has_value()) {
    if (!check_dtype(ctx, kOp, "bias", *bias, ScalarType::Float)) {
      return out;
    }
    ET_KERNEL_CHECK_MSG(ctx, bias->numel() == p.out_channels, InvalidArgument, out,
                        "%s: argument 'bias' must have %lld elements, got %zd", kOp,
                        static_cast<long long>(p.out_channels), bias->numel());
    b = bias->const_data_ptr<float>();
  }
  // oh/ow drive the compute loops: the int64 resize rejects what a dim
  // cannot hold instead of cutting it to a size that passes the check.
  int64_t shape[4] = {p.batch, p.out_channels, oh, ow};
  if (rank == 3) {
    shape[2] = ow;
  }
  if (!resize_out(ctx, kOp, out, ArrayRef<int64_t>(shape, static_cast<size_t>(rank)))) {
    return out;
  }
  if (out.numel() == 0) {
    return out;
  }
  // Shapes outside the NHWC routines' limits (conv_nhwc_params_valid) keep the NCHW path.
  const compute::ConvNhwcParams q = compute::nhwc_params_of(p, oh, ow);
  if (runs_in_nhwc(input, out, transposed) && p.batch > 0 && p.in_channels > 0 &&
      conv_nhwc_filter_blob_size(q) != 0) {
    const float* w = weight.const_data_ptr<float>();
    const NhwcFilterSource src{w, is_channels_last_dim_order(weight), b};
    convolution_nhwc(ctx, q, src, prepared_nhwc_filter(ctx, w), input, out, act);
    return out;
  }
  std::vector<float> xin, win, yout;
  const float* x = as_contiguous(input, xin);
  const float* w = as_contiguous(weight, win);
  const bool out_c = is_contiguous_dim_order(out);
  if (!out_c) {
    yout.resize(static_cast<size_t>(out.numel()));
  }
  float* y = out_c ? out.mutable_data_ptr<float>() : yout.data();
  bool clamped = false;  // conv2d_nchw clamps and activates in its epilogue
  if (p.batch > 0 && p.in_channels > 0) {
    if (transposed) {
      if (!conv_transpose2d(p, oh, ow, x, w, b, y)) {
        fail(ctx, Error::MemoryAllocationFailed, kOp, "cannot allocate the column buffer");
        return out;
      }
    } else if (!compute::conv2d_nchw_packed(p, x, w, prepared_weight(ctx, w), b, y)) {
      fail(ctx, Error::InvalidArgument, kOp, "invalid convolution parameters or out of memory");
      return out;
    } else {
      clamped = true;
    }
  } else {
    for (int64_t i = 0; i < out.numel(); ++i) {
      y[i] = b != nullptr ? b[(i / (oh * ow)) % p.out_channels] : 0.0f;
    }
  }
  if (!clamped && (lo != -kInf || hi != kInf)) {
    for (int64_t i = 0; i < out.numel(); ++i) {
      y[i] = y[i] < lo ? lo : (y[i] > hi ? hi : y[i]);
    }
  }
  if (!clamped) {
    compute::apply_activation(act, y, y, out.numel());
  }
  if (!out_c) {
    store_from_contiguous(y, out);
  }
  return out;
}

Tensor& convolution_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                        const optional<Tensor>& bias, ArrayRef<int64_t> stride,
                        ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation, bool transposed,
                        ArrayRef<int64_t> output_padding, int64_t groups, Tensor& out) {
  return convolution_clamped(ctx, input, weight, bias, stride, padding, dilation, transposed,
                             output_padding, groups, out, -kInf, kInf);
}

// ---- Fusion at load: convolution followed by relu / hardtanh / clamp (the only reader of the
// convolution's output) runs as one convolution whose epilogue clamps. Bit-identical: the
// clamp is applied to the same float values the separate activation would read.

constexpr size_t kConvArgs = 11;  // 10 schema arguments + the returned out

// Float bounds of the activation in `act` (its arguments after self), or false.
bool activation_bounds(const char* kind, Span<EValue*> act, float* lo, float* hi) {
  *lo = -kInf;
  *hi = kInf;
  auto scalar = [](const EValue* v, float* f) {
    if (v->isDouble()) {
      *f = static_cast<float>(v->toDouble());
      return true;
    }
    if (v->isInt()) {
      *f = static_cast<float>(v->toInt());
      return true;
    }
    return false;
  };
  if (kind[0] == 'r') {  // relu(self, out)
    *lo = 0.0f;
    return act.size() == 3;
  }
  if (act.size() != 5) {  // hardtanh(self, min, max, out) / clamp(self, min?, max?, out)
    return false;
  }
  const bool clamp = kind[0] == 'c';
  if (!(clamp && act[1]->isNone()) && !scalar(act[1], lo)) {
    return false;
  }
  if (!(clamp && act[2]->isNone()) && !scalar(act[2], hi)) {
    return false;
  }
  return !(std::isnan(*lo) || std::isnan(*hi));
}

// Runs the convolution of a fused instruction (its first kConvArgs arguments, out replaced by the
// last fused operator's output) with the fused clamp and activation.
void convolution_from_fused_args(KernelRuntimeContext& ctx, Span<EValue*> args, float lo, float hi,
                                 compute::Activation act) {
  if (args.size() <= kConvArgs || !args[0]->isTensor() || !args[1]->isTensor() ||
      !(args[2]->isTensor() || args[2]->isNone()) || !args[3]->isIntList() ||
      !args[4]->isIntList() || !args[5]->isIntList() || !args[6]->isBool() ||
      !args[7]->isIntList() || !args[8]->isInt() || !args[9]->isTensor()) {
    fail(ctx, Error::InvalidProgram, kOp, "fused convolution: unexpected arguments");
    return;
  }
  const optional<Tensor> bias =
      args[2]->isTensor() ? optional<Tensor>(args[2]->toTensor()) : optional<Tensor>();
  convolution_clamped(ctx, args[0]->toTensor(), args[1]->toTensor(), bias, args[3]->toIntList(),
                      args[4]->toIntList(), args[5]->toIntList(), args[6]->toBool(),
                      args[7]->toIntList(), args[8]->toInt(), args[9]->toTensor(), lo, hi, act);
}

template <char kKind>
void convolution_activation_fused(KernelRuntimeContext& ctx, Span<EValue*> args) {
  const char kind[2] = {kKind, '\0'};
  float lo, hi;
  if (args.size() <= kConvArgs ||
      !activation_bounds(kind, Span<EValue*>(args.data() + kConvArgs, args.size() - kConvArgs), &lo,
                         &hi)) {
    fail(ctx, Error::InvalidProgram, kOp, "fused convolution: unexpected arguments");
    return;
  }
  convolution_from_fused_args(ctx, args, lo, hi, compute::Activation::kNone);
}

// Fuses only what the fused kernel handles exactly like the pair: a Float convolution whose
// activation has constant bounds that fit a float.
template <char kKind>
::executorch::runtime::FusedKernel fuse_convolution_activation(Span<EValue*> conv,
                                                               Span<EValue*> act) {
  const char kind[2] = {kKind, '\0'};
  float lo, hi;
  if (conv.size() != kConvArgs || !conv[0]->isTensor() ||
      conv[0]->toTensor().scalar_type() != ScalarType::Float || !act[0]->isTensor() ||
      !act[act.size() - 1]->isTensor() ||
      act[act.size() - 1]->toTensor().scalar_type() != ScalarType::Float ||
      !activation_bounds(kind, act, &lo, &hi)) {
    return nullptr;
  }
  return convolution_activation_fused<kKind>;
}

// ---- Load-time preparation: a constant weight packed once for the SGEMM of the im2col and
// pointwise paths (the kernel finds it by the weight's data pointer; conv2d_nchw_packed checks
// that it still fits the call).

// list_value of an EValue that must be an int list (the preparer reports nothing: a call that
// does not fit is left to the kernel, which does).
bool list_entry(const EValue* v, size_t spatial, size_t i, int64_t dflt, int64_t* out) {
  return v->isIntList() && list_value(v->toIntList(), spatial, i, dflt, out);
}

// The NHWC path's filter blob for a constant weight (with the bias when that is constant too;
// a blob without it does not fit the call, which then builds its own).
void prepare_nhwc_filter(KernelRuntimeContext& ctx, Span<EValue*> args,
                         ::executorch::runtime::PreparedConstants& cache) {
  const Tensor& input = args[0]->toTensor();
  const Tensor& weight = args[1]->toTensor();
  if (!is_contiguous_dim_order(weight) && !is_channels_last_dim_order(weight)) {
    return;
  }
  compute::Conv2dParams p;
  p.batch = input.size(0);
  p.in_channels = input.size(1);
  p.in_h = input.size(2);
  p.in_w = input.size(3);
  p.out_channels = weight.size(0);
  p.kernel_h = weight.size(2);
  p.kernel_w = weight.size(3);
  p.groups = args[8]->toInt();
  if (!list_entry(args[3], 2, 0, 1, &p.stride_h) || !list_entry(args[3], 2, 1, 1, &p.stride_w) ||
      !list_entry(args[4], 2, 0, 0, &p.pad_h) || !list_entry(args[4], 2, 1, 0, &p.pad_w) ||
      !list_entry(args[5], 2, 0, 1, &p.dilation_h) ||
      !list_entry(args[5], 2, 1, 1, &p.dilation_w)) {
    return;
  }
  // The kernel's bounds, so that the output-size formulas stay inside int64.
  const int64_t params[] = {p.stride_h, p.stride_w, p.dilation_h, p.dilation_w, p.groups};
  for (int64_t v : params) {
    if (v <= 0 || v > kMaxDimSize) {
      return;
    }
  }
  if (p.pad_h < 0 || p.pad_w < 0 || p.pad_h > kMaxDimSize || p.pad_w > kMaxDimSize ||
      weight.size(1) * p.groups != p.in_channels) {
    return;
  }
  const int64_t oh = compute::conv2d_out_h(p), ow = compute::conv2d_out_w(p);
  const float* b = nullptr;
  if ((ctx.internal_read_only_args() >> 2 & 1u) != 0 && args[2]->isTensor()) {
    const Tensor& bias = args[2]->toTensor();
    if (bias.scalar_type() != ScalarType::Float || bias.numel() != p.out_channels) {
      return;
    }
    b = bias.const_data_ptr<float>();
  } else if (!args[2]->isNone()) {
    return;  // a bias known only at execute: the call builds its blob
  }
  const compute::ConvNhwcParams q = compute::nhwc_params_of(p, oh, ow);
  const size_t bytes = conv_nhwc_filter_blob_size(q);
  if (oh <= 0 || ow <= 0 || bytes == 0) {
    return;
  }
  const float* w = weight.const_data_ptr<float>();
  void* dst = cache.add(w, kNhwcFilterTag, bytes);
  if (dst != nullptr) {
    conv_nhwc_build_filter_blob(q, NhwcFilterSource{w, is_channels_last_dim_order(weight), b}, dst);
  }
}

void prepare_convolution(KernelRuntimeContext& ctx, Span<EValue*> args,
                         ::executorch::runtime::PreparedConstants& cache) {
  // convolution.out(input, weight, bias?, stride, padding, dilation, transposed,
  //                 output_padding, groups, out): a constant contiguous Float weight only.
  if (args.size() < 10 || (ctx.internal_read_only_args() >> 1 & 1u) == 0 || !args[0]->isTensor() ||
      !args[1]->isTensor() || !args[6]->isBool() || args[6]->toBool() || !args[8]->isInt()) {
    return;
  }
  const Tensor& input = args[0]->toTensor();
  const Tensor& weight = args[1]->toTensor();
  const ssize_t rank = input.dim();
  if ((rank != 3 && rank != 4) || weight.dim() != rank ||
      weight.scalar_type() != ScalarType::Float || input.scalar_type() != ScalarType::Float ||
      weight.const_data_ptr() == nullptr) {
    return;
  }
  if (args[9]->isTensor() && runs_in_nhwc(input, args[9]->toTensor(), false)) {
    prepare_nhwc_filter(ctx, args, cache);
    return;
  }
  if (!is_contiguous_dim_order(weight)) {
    return;
  }
  const size_t spatial = static_cast<size_t>(rank - 2);
  compute::Conv2dParams p;
  p.batch = input.size(0);
  p.in_channels = input.size(1);
  p.in_h = rank == 4 ? input.size(2) : 1;
  p.in_w = input.size(rank - 1);
  p.out_channels = weight.size(0);
  p.kernel_h = rank == 4 ? weight.size(2) : 1;
  p.kernel_w = weight.size(rank - 1);
  p.groups = args[8]->toInt();
  const size_t w_dim = spatial - 1;
  if (!list_entry(args[3], spatial, w_dim, 1, &p.stride_w) ||
      !list_entry(args[4], spatial, w_dim, 0, &p.pad_w) ||
      !list_entry(args[5], spatial, w_dim, 1, &p.dilation_w)) {
    return;
  }
  if (rank == 4 && (!list_entry(args[3], spatial, 0, 1, &p.stride_h) ||
                    !list_entry(args[4], spatial, 0, 0, &p.pad_h) ||
                    !list_entry(args[5], spatial, 0, 1, &p.dilation_h))) {
    return;
  }
  if (p.groups <= 0 || weight.size(1) * p.groups != p.in_channels) {
    return;
  }
  const size_t bytes = compute::conv2d_packed_weight_size(p);
  if (bytes == 0) {
    return;
  }
  const float* w = weight.const_data_ptr<float>();
  void* dst = cache.add(w, kPackedWeightTag, bytes);
  if (dst != nullptr) {
    compute::conv2d_pack_weight(p, w, dst);
  }
}

// ---- Fusion at load: convolution followed by the decomposed SiLU / hardswish / hardsigmoid
// (detail/activation_run.h) runs as one convolution whose epilogue applies the activation;
// bit-identical, as compute/activation.h computes exactly what the decomposed ops do.

template <compute::Activation kAct>
void convolution_run_fused(KernelRuntimeContext& ctx, Span<EValue*> args) {
  EValue* const run_out = detail::run_output(args);
  if (args.size() <= kConvArgs || args[kConvArgs - 2] == run_out) {
    convolution_from_fused_args(ctx, args, -kInf, kInf, kAct);
    return;
  }
  // The convolution kept its own output (the run's output shares storage with its input).
  // Only the run reads that output, so the activation still runs in the convolution's
  // epilogue, and what is left is a copy (kNone) into the run's output.
  convolution_from_fused_args(ctx, args, -kInf, kInf, kAct);
  if (ctx.failure_state() == Error::Ok && run_out->isTensor()) {
    detail::activation_into(ctx, kOp, compute::Activation::kNone, args[kConvArgs - 2]->toTensor(),
                            run_out->toTensor());
  }
}

::executorch::runtime::FusedKernel fuse_convolution_run(
    Span<EValue*> conv, Span<const ::executorch::runtime::FusionCandidate> next,
    size_t* n_consumed) {
  // Outputs of one dim order (contiguous or channels-last), so that the activation can also run
  // from one into the other element by element.
  if (conv.size() != kConvArgs || !conv[0]->isTensor() ||
      conv[0]->toTensor().scalar_type() != ScalarType::Float || !conv[kConvArgs - 1]->isTensor()) {
    return nullptr;
  }
  const Tensor& conv_out = conv[kConvArgs - 1]->toTensor();
  const bool cl = is_channels_last_dim_order(conv_out);
  if (!cl && !is_contiguous_dim_order(conv_out)) {
    return nullptr;
  }
  const compute::Activation act =
      detail::match_activation_run(conv[kConvArgs - 1], next, n_consumed);
  const EValue* run_out = detail::run_output(next[*n_consumed > 0 ? *n_consumed - 1 : 0].args);
  if (!run_out->isTensor() || (cl ? !is_channels_last_dim_order(run_out->toTensor())
                                  : !is_contiguous_dim_order(run_out->toTensor()))) {
    return nullptr;
  }
  switch (act) {
    case compute::Activation::kSilu:
      return convolution_run_fused<compute::Activation::kSilu>;
    case compute::Activation::kHardswish:
      return convolution_run_fused<compute::Activation::kHardswish>;
    case compute::Activation::kHardsigmoid:
      return convolution_run_fused<compute::Activation::kHardsigmoid>;
    case compute::Activation::kNone:
      break;
  }
  return nullptr;
}

bool register_fusers() {
  using ::executorch::runtime::register_instruction_fuser;
  const bool r = register_instruction_fuser(convolution_out_name, "aten::relu.out",
                                            fuse_convolution_activation<'r'>) == Error::Ok;
  const bool h = register_instruction_fuser(convolution_out_name, "aten::hardtanh.out",
                                            fuse_convolution_activation<'h'>) == Error::Ok;
  const bool c = register_instruction_fuser(convolution_out_name, "aten::clamp.out",
                                            fuse_convolution_activation<'c'>) == Error::Ok;
  const bool run = ::executorch::runtime::register_run_fuser(convolution_out_name,
                                                             fuse_convolution_run) == Error::Ok;
  return r && h && c && run;
}

[[maybe_unused]] const bool g_fusers_registered = register_fusers();
// A failure (e.g. a second copy of this library) only means no packing ahead of time.
[[maybe_unused]] const bool g_preparer_registered =
    ::executorch::runtime::register_constant_preparer(convolution_out_name, prepare_convolution) ==
    Error::Ok;

}  // namespace

ETK_REGISTER_KERNEL(convolution_out_name, convolution_out);

}  // namespace kernels
}  // namespace executorch
