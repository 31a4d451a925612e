/*
 * quantized_decomposed::dequantize_per_tensor (.out, .Tensor_out),
 * dequantize_per_channel.out and dequantize_per_token.out: a quantized dtype
 * (Byte, Char, Short, Int, UInt16/Bits16) to Float, Double, Half or
 * BFloat16, (q - zero_point) * scale in float as upstream ExecuTorch
 * computes it (detail/quant_util.h). quant_min/quant_max are metadata here,
 * as upstream: only their order is checked.
 */
#include <optional>
#include <vector>

#include <executorch/runtime/kernels/detail/quant_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

ET_DEFINE_OPERATOR_NAME(dequantize_per_tensor_out_name,
                        "quantized_decomposed::dequantize_per_tensor.out");
ET_DEFINE_OPERATOR_NAME(dequantize_per_tensor_tensor_out_name,
                        "quantized_decomposed::dequantize_per_tensor.Tensor_out");
ET_DEFINE_OPERATOR_NAME(dequantize_per_channel_out_name,
                        "quantized_decomposed::dequantize_per_channel.out");
ET_DEFINE_OPERATOR_NAME(dequantize_per_token_out_name,
                        "quantized_decomposed::dequantize_per_token.out");

/* Checked per-channel parameters: element i belongs to channel (i / inner) % size. */
struct Channels {
  std::vector<float> scale;
  std::vector<int32_t> zero_point;
  int64_t inner = 1;
  // Upstream multiplies a rank-1 per-channel input in the out dtype (double
  // for a Double out) instead of float.
  bool in_out_dtype = false;
};

bool check_dequantize_args(KernelRuntimeContext& ctx, const char* op, const Tensor& input,
                           int64_t quant_min, int64_t quant_max, ScalarType dtype,
                           std::optional<ScalarType> out_dtype, const Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, input.scalar_type() == dtype, InvalidArgument, false,
                      "%s: input has dtype %s but argument 'dtype' is %s", op,
                      dtype_name(input.scalar_type()), dtype_name(dtype));
  ET_KERNEL_CHECK_MSG(ctx, !out_dtype.has_value() || *out_dtype == out.scalar_type(),
                      InvalidArgument, false, "%s: out has dtype %s but 'out_dtype' is %s", op,
                      dtype_name(out.scalar_type()), dtype_name(out_dtype.value_or(dtype)));
  ET_KERNEL_CHECK_MSG(ctx, quant_min <= quant_max, InvalidArgument, false,
                      "%s: quant_min %lld is greater than quant_max %lld", op,
                      static_cast<long long>(quant_min), static_cast<long long>(quant_max));
  int64_t lo = 0, hi = 0;
  ET_KERNEL_CHECK_MSG(ctx, quantized_range(input.scalar_type(), &lo, &hi), InvalidArgument, false,
                      "%s: argument 'input' has dtype %s, which is not a quantized dtype", op,
                      dtype_name(input.scalar_type()));
  return check_dtype_in(ctx, op, "out", out, dtypes::kFloatH) &&
         check_same_dim_order(ctx, op, "input", input, "out", out) &&
         resize_out_like(ctx, op, out, input);
}

template <class Acc>
Tensor& dequantize_with(KernelRuntimeContext& ctx, const char* op, const Tensor& input,
                        const Channels& ch, Tensor& out) {
  const int64_t n = input.numel();
  const int64_t nch = static_cast<int64_t>(ch.scale.size());
  dispatch_quantized(ctx, op, "input", input.scalar_type(), [&](auto q_tag) {
    using Q = typename decltype(q_tag)::type;
    dispatch_dtype<dtypes::kFloatH>(ctx, op, out.scalar_type(), [&](auto out_tag) {
      using Out = typename decltype(out_tag)::type;
      const Q* x = static_cast<const Q*>(input.const_data_ptr());
      Out* y = out.mutable_data_ptr<Out>();
      for (int64_t i = 0; i < n; ++i) {
        const int64_t c = nch == 1 ? 0 : (i / ch.inner) % nch;
        const Acc diff = static_cast<Acc>(static_cast<int64_t>(x[i]) - ch.zero_point[c]);
        y[i] = cast_value<Out>(diff * static_cast<Acc>(ch.scale[c]));
      }
    });
  });
  return out;
}

Tensor& dequantize_channels(KernelRuntimeContext& ctx, const char* op, const Tensor& input,
                            const Channels& ch, Tensor& out) {
  if (ch.in_out_dtype && out.scalar_type() == ScalarType::Double) {
    return dequantize_with<double>(ctx, op, input, ch, out);
  }
  return dequantize_with<float>(ctx, op, input, ch, out);
}

bool per_tensor_channel(KernelRuntimeContext& ctx, const char* op, double scale, int64_t zero_point,
                        Channels* ch) {
  if (!check_scale(ctx, op, "scale", scale) ||
      !check_zero_point(ctx, op, "zero_point", zero_point)) {
    return false;
  }
  ch->scale.assign(1, static_cast<float>(scale));
  ch->zero_point.assign(1, static_cast<int32_t>(zero_point));
  return true;
}

Tensor& dequantize_per_tensor_out(KernelRuntimeContext& ctx, const Tensor& input, double scale,
                                  int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                  ScalarType dtype, std::optional<ScalarType> out_dtype,
                                  Tensor& out) {
  const char* op = log_name(dequantize_per_tensor_out_name);
  Channels ch;
  if (!check_dequantize_args(ctx, op, input, quant_min, quant_max, dtype, out_dtype, out) ||
      !per_tensor_channel(ctx, op, scale, zero_point, &ch)) {
    return out;
  }
  return dequantize_channels(ctx, op, input, ch, out);
}

Tensor& dequantize_per_tensor_tensor_out(KernelRuntimeContext& ctx, const Tensor& input,
                                         const Tensor& scale, const Tensor& zero_point,
                                         int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                         std::optional<ScalarType> out_dtype, Tensor& out) {
  const char* op = log_name(dequantize_per_tensor_tensor_out_name);
  if (!check_dtype(ctx, op, "scale", scale, ScalarType::Double) ||
      !check_dtype(ctx, op, "zero_point", zero_point, ScalarType::Long)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, scale.numel() == 1 && zero_point.numel() == 1, InvalidArgument, out,
                      "%s: 'scale' and 'zero_point' must have one element, got %zd and %zd", op,
                      static_cast<ssize_t>(scale.numel()),
                      static_cast<ssize_t>(zero_point.numel()));
  Channels ch;
  if (!check_dequantize_args(ctx, op, input, quant_min, quant_max, dtype, out_dtype, out) ||
      !per_tensor_channel(ctx, op, scale.const_data_ptr<double>()[0],
                          zero_point.const_data_ptr<int64_t>()[0], &ch)) {
    return out;
  }
  return dequantize_channels(ctx, op, input, ch, out);
}

/*
 * `count` channels from a Float/Double scales tensor and an optional
 * Int/Long zero_points tensor (absent: zero), `inner` elements apart.
 */
bool read_channels(KernelRuntimeContext& ctx, const char* op, int64_t count, int64_t inner,
                   const Tensor& scales, const std::optional<Tensor>& zero_points, Channels* ch) {
  constexpr DtypeSet kScale = dtype_bit(ScalarType::Float) | dtype_bit(ScalarType::Double);
  constexpr DtypeSet kZero = dtype_bit(ScalarType::Int) | dtype_bit(ScalarType::Long);
  if (!check_dtype_in(ctx, op, "scales", scales, kScale) ||
      (zero_points.has_value() && !check_dtype_in(ctx, op, "zero_points", *zero_points, kZero))) {
    return false;
  }
  ET_KERNEL_CHECK_MSG(ctx, scales.numel() == count, InvalidArgument, false,
                      "%s: 'scales' needs %lld elements, got %zd", op,
                      static_cast<long long>(count), static_cast<ssize_t>(scales.numel()));
  ET_KERNEL_CHECK_MSG(ctx, !zero_points.has_value() || zero_points->numel() == count,
                      InvalidArgument, false, "%s: 'zero_points' needs %lld elements, got %zd", op,
                      static_cast<long long>(count),
                      static_cast<ssize_t>(zero_points.has_value() ? zero_points->numel() : 0));
  ch->inner = inner;
  ch->scale.resize(static_cast<size_t>(count));
  ch->zero_point.assign(static_cast<size_t>(count), 0);
  for (int64_t c = 0; c < count; ++c) {
    const float s = float_param_at(scales, c);
    const int64_t zp = zero_points.has_value() ? int_param_at(*zero_points, c) : 0;
    if (!check_scale(ctx, op, "scales[c]", s) || !check_zero_point(ctx, op, "zero_points[c]", zp)) {
      return false;
    }
    ch->scale[c] = s;
    ch->zero_point[c] = static_cast<int32_t>(zp);
  }
  return true;
}

Tensor& dequantize_per_channel_out(KernelRuntimeContext& ctx, const Tensor& input,
                                   const Tensor& scales, const std::optional<Tensor>& zero_points,
                                   int64_t axis, int64_t quant_min, int64_t quant_max,
                                   ScalarType dtype, std::optional<ScalarType> out_dtype,
                                   Tensor& out) {
  const char* op = log_name(dequantize_per_channel_out_name);
  int64_t a = 0;
  if (!normalize_dim(ctx, op, "axis", axis, input.dim(), &a) ||
      !check_dequantize_args(ctx, op, input, quant_min, quant_max, dtype, out_dtype, out) ||
      !check_contiguous(ctx, op, "input", input)) {
    return out;
  }
  const int64_t count = input.dim() == 0 ? 1 : input.size(a);
  int64_t inner = 1;
  for (int64_t d = a + 1; d < input.dim(); ++d) {
    inner *= input.size(d);
  }
  Channels ch;
  if (!read_channels(ctx, op, count, inner, scales, zero_points, &ch)) {
    return out;
  }
  ch.in_out_dtype = input.dim() == 1;
  return dequantize_channels(ctx, op, input, ch, out);
}

Tensor& dequantize_per_token_out(KernelRuntimeContext& ctx, const Tensor& input,
                                 const Tensor& scales, const Tensor& zero_points, int64_t quant_min,
                                 int64_t quant_max, ScalarType dtype, ScalarType output_dtype,
                                 Tensor& out) {
  const char* op = log_name(dequantize_per_token_out_name);
  ET_KERNEL_CHECK_MSG(ctx, input.dim() >= 1, InvalidArgument, out,
                      "%s: argument 'input' must have at least one dim", op);
  if (!check_dequantize_args(ctx, op, input, quant_min, quant_max, dtype, output_dtype, out) ||
      !check_contiguous(ctx, op, "input", input)) {
    return out;
  }
  int64_t tokens = 1;
  for (ssize_t d = 0; d + 1 < input.dim(); ++d) {
    tokens *= input.size(d);
  }
  Channels ch;
  if (!read_channels(ctx, op, tokens, input.size(input.dim() - 1), scales, zero_points, &ch) ||
      tokens == 0) {
    return out;
  }
  return dequantize_channels(ctx, op, input, ch, out);
}

}  // namespace

ETK_REGISTER_KERNEL(dequantize_per_tensor_out_name, dequantize_per_tensor_out);
ETK_REGISTER_KERNEL(dequantize_per_tensor_tensor_out_name, dequantize_per_tensor_tensor_out);
ETK_REGISTER_KERNEL(dequantize_per_channel_out_name, dequantize_per_channel_out);
ETK_REGISTER_KERNEL(dequantize_per_token_out_name, dequantize_per_token_out);

}  // namespace kernels
}  // namespace executorch
