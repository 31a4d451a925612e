/*
 * quantized_decomposed::quantize_per_tensor (.out, .Tensor_out),
 * quantize_per_channel.out and quantize_per_token.out: floating point
 * (Float, Double, Half, BFloat16) to a quantized dtype (Byte, Char, Short,
 * Int, UInt16/Bits16), with upstream ExecuTorch's rounding (see
 * detail/quant_util.h). A per-tensor quantization is one channel spanning
 * the whole tensor; per-token quantization is per-channel over the flattened
 * leading dims.
 */
#include <vector>

#include <executorch/runtime/kernels/detail/quant_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

ET_DEFINE_OPERATOR_NAME(quantize_per_tensor_out_name,
                        "quantized_decomposed::quantize_per_tensor.out");
ET_DEFINE_OPERATOR_NAME(quantize_per_tensor_tensor_out_name,
                        "quantized_decomposed::quantize_per_tensor.Tensor_out");
ET_DEFINE_OPERATOR_NAME(quantize_per_channel_out_name,
                        "quantized_decomposed::quantize_per_channel.out");
ET_DEFINE_OPERATOR_NAME(quantize_per_token_out_name,
                        "quantized_decomposed::quantize_per_token.out");

/* Per-channel parameters, already checked: element i belongs to channel (i / inner) % size. */
struct Channels {
  std::vector<float> inv_scale;
  std::vector<int32_t> zero_point;
  int64_t inner = 1;
};

/* Checks shared by every quantize overload; resizes out to input's shape. */
bool check_quantize_args(KernelRuntimeContext& ctx, const char* op, const Tensor& input,
                         int64_t quant_min, int64_t quant_max, ScalarType dtype,
                         const Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == dtype, InvalidArgument, false,
                      "%s: out has dtype %s but argument 'dtype' is %s", op,
                      dtype_name(out.scalar_type()), dtype_name(dtype));
  return check_dtype_in(ctx, op, "input", input, dtypes::kFloatH) &&
         check_quant_range(ctx, op, dtype, quant_min, quant_max) &&
         check_same_dim_order(ctx, op, "input", input, "out", out) &&
         resize_out_like(ctx, op, out, input);
}

Tensor& quantize_channels(KernelRuntimeContext& ctx, const char* op, const Tensor& input,
                          const Channels& ch, int64_t quant_min, int64_t quant_max, Tensor& out) {
  const int64_t n = input.numel();
  const int64_t nch = static_cast<int64_t>(ch.inv_scale.size());
  dispatch_dtype<dtypes::kFloatH>(ctx, op, input.scalar_type(), [&](auto in_tag) {
    using In = typename decltype(in_tag)::type;
    dispatch_quantized(ctx, op, "out", out.scalar_type(), [&](auto q_tag) {
      using Q = typename decltype(q_tag)::type;
      const In* x = input.const_data_ptr<In>();
      Q* y = static_cast<Q*>(out.mutable_data_ptr());
      for (int64_t i = 0; i < n; ++i) {
        const int64_t c = nch == 1 ? 0 : (i / ch.inner) % nch;
        y[i] = quantize_value<Q>(x[i], ch.inv_scale[c], ch.zero_point[c], quant_min, quant_max);
      }
    });
  });
  return out;
}

/* One channel from scalar qparams. */
bool per_tensor_channel(KernelRuntimeContext& ctx, const char* op, double scale, int64_t zero_point,
                        Channels* ch) {
  if (!check_scale(ctx, op, "scale", scale) ||
      !check_zero_point(ctx, op, "zero_point", zero_point)) {
    return false;
  }
  ch->inv_scale.assign(1, 1.0f / static_cast<float>(scale));
  ch->zero_point.assign(1, static_cast<int32_t>(zero_point));
  return true;
}

Tensor& quantize_per_tensor_out(KernelRuntimeContext& ctx, const Tensor& input, double scale,
                                int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                ScalarType dtype, Tensor& out) {
  const char* op = log_name(quantize_per_tensor_out_name);
  Channels ch;
  if (!check_quantize_args(ctx, op, input, quant_min, quant_max, dtype, out) ||
      !per_tensor_channel(ctx, op, scale, zero_point, &ch)) {
    return out;
  }
  return quantize_channels(ctx, op, input, ch, quant_min, quant_max, out);
}

/* The one Double scale and Long zero point of the .Tensor overloads. */
bool read_tensor_qparams(KernelRuntimeContext& ctx, const char* op, const Tensor& scale,
                         const Tensor& zero_point, double* s, int64_t* zp) {
  if (!check_dtype(ctx, op, "scale", scale, ScalarType::Double) ||
      !check_dtype(ctx, op, "zero_point", zero_point, ScalarType::Long)) {
    return false;
  }
  ET_KERNEL_CHECK_MSG(ctx, scale.numel() == 1 && zero_point.numel() == 1, InvalidArgument, false,
                      "%s: 'scale' and 'zero_point' must have one element, got %zd and %zd", op,
                      static_cast<ssize_t>(scale.numel()),
                      static_cast<ssize_t>(zero_point.numel()));
  *s = scale.const_data_ptr<double>()[0];
  *zp = zero_point.const_data_ptr<int64_t>()[0];
  return true;
}

Tensor& quantize_per_tensor_tensor_out(KernelRuntimeContext& ctx, const Tensor& input,
                                       const Tensor& scale, const Tensor& zero_point,
                                       int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                       Tensor& out) {
  const char* op = log_name(quantize_per_tensor_tensor_out_name);
  double s = 0;
  int64_t zp = 0;
  Channels ch;
  if (!read_tensor_qparams(ctx, op, scale, zero_point, &s, &zp) ||
      !check_quantize_args(ctx, op, input, quant_min, quant_max, dtype, out) ||
      !per_tensor_channel(ctx, op, s, zp, &ch)) {
    return out;
  }
  return quantize_channels(ctx, op, input, ch, quant_min, quant_max, out);
}

/*
 * Channels along `axis` (already normalized) of a contiguous input from a
 * Double scales and a Long zero_points tensor of size(axis) elements each.
 */
bool per_axis_channels(KernelRuntimeContext& ctx, const char* op, const Tensor& input, int64_t axis,
                       const Tensor& scales, const Tensor& zero_points, Channels* ch) {
  const int64_t size = input.dim() == 0 ? 1 : input.size(axis);
  if (!check_contiguous(ctx, op, "input", input) ||
      !check_dtype(ctx, op, "scales", scales, ScalarType::Double) ||
      !check_dtype(ctx, op, "zero_points", zero_points, ScalarType::Long)) {
    return false;
  }
  ET_KERNEL_CHECK_MSG(
      ctx, scales.numel() == size && zero_points.numel() == size, InvalidArgument, false,
      "%s: 'scales' and 'zero_points' need %lld elements (input.size(%lld)), "
      "got %zd and %zd",
      op, static_cast<long long>(size), static_cast<long long>(axis),
      static_cast<ssize_t>(scales.numel()), static_cast<ssize_t>(zero_points.numel()));
  ch->inner = 1;
  for (int64_t d = axis + 1; d < input.dim(); ++d) {
    ch->inner *= input.size(d);
  }
  ch->inv_scale.resize(static_cast<size_t>(size));
  ch->zero_point.resize(static_cast<size_t>(size));
  const double* s = scales.const_data_ptr<double>();
  const int64_t* zp = zero_points.const_data_ptr<int64_t>();
  for (int64_t c = 0; c < size; ++c) {
    if (!check_scale(ctx, op, "scales[c]", s[c]) ||
        !check_zero_point(ctx, op, "zero_points[c]", zp[c])) {
      return false;
    }
    ch->inv_scale[c] = 1.0f / static_cast<float>(s[c]);
    ch->zero_point[c] = static_cast<int32_t>(zp[c]);
  }
  return true;
}

Tensor& quantize_per_channel_out(KernelRuntimeContext& ctx, const Tensor& input,
                                 const Tensor& scales, const Tensor& zero_points, int64_t axis,
                                 int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                 Tensor& out) {
  const char* op = log_name(quantize_per_channel_out_name);
  int64_t a = 0;
  Channels ch;
  if (!normalize_dim(ctx, op, "axis", axis, input.dim(), &a) ||
      !check_quantize_args(ctx, op, input, quant_min, quant_max, dtype, out) ||
      !per_axis_channels(ctx, op, input, a, scales, zero_points, &ch)) {
    return out;
  }
  return quantize_channels(ctx, op, input, ch, quant_min, quant_max, out);
}

/*
 * Per token: one channel per row of the input viewed as [tokens, last dim];
 * the scales and zero points may have any shape with that many elements
 * (choose_qparams_per_token_asymmetric gives [..., 1]).
 */
Tensor& quantize_per_token_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& scales,
                               const Tensor& zero_points, int64_t quant_min, int64_t quant_max,
                               ScalarType dtype, Tensor& out) {
  const char* op = log_name(quantize_per_token_out_name);
  ET_KERNEL_CHECK_MSG(ctx, input.dim() >= 1, InvalidArgument, out,
                      "%s: argument 'input' must have at least one dim", op);
  if (!check_quantize_args(ctx, op, input, quant_min, quant_max, dtype, out)) {
    return out;
  }
  Channels ch;
  const int64_t last = input.size(input.dim() - 1);
  if (!check_contiguous(ctx, op, "input", input) ||
      !check_dtype(ctx, op, "scales", scales, ScalarType::Double) ||
      !check_dtype(ctx, op, "zero_points", zero_points, ScalarType::Long)) {
    return out;
  }
  int64_t expect = 1;
  for (ssize_t d = 0; d + 1 < input.dim(); ++d) {
    expect *= input.size(d);
  }
  ET_KERNEL_CHECK_MSG(ctx, scales.numel() == expect && zero_points.numel() == expect,
                      InvalidArgument, out,
                      "%s: 'scales' and 'zero_points' need one element per token (%lld), got %zd "
                      "and %zd",
                      op, static_cast<long long>(expect), static_cast<ssize_t>(scales.numel()),
                      static_cast<ssize_t>(zero_points.numel()));
  ch.inner = last;
  ch.inv_scale.resize(static_cast<size_t>(expect));
  ch.zero_point.resize(static_cast<size_t>(expect));
  for (int64_t t = 0; t < expect; ++t) {
    const double s = scales.const_data_ptr<double>()[t];
    const int64_t zp = zero_points.const_data_ptr<int64_t>()[t];
    if (!check_scale(ctx, op, "scales[t]", s) || !check_zero_point(ctx, op, "zero_points[t]", zp)) {
      return out;
    }
    ch.inv_scale[t] = 1.0f / static_cast<float>(s);
    ch.zero_point[t] = static_cast<int32_t>(zp);
  }
  if (expect == 0) {
    return out;
  }
  return quantize_channels(ctx, op, input, ch, quant_min, quant_max, out);
}

}  // namespace

ETK_REGISTER_KERNEL(quantize_per_tensor_out_name, quantize_per_tensor_out);
ETK_REGISTER_KERNEL(quantize_per_tensor_tensor_out_name, quantize_per_tensor_tensor_out);
ETK_REGISTER_KERNEL(quantize_per_channel_out_name, quantize_per_channel_out);
ETK_REGISTER_KERNEL(quantize_per_token_out_name, quantize_per_token_out);

}  // namespace kernels
}  // namespace executorch
