/*
 * quantized_decomposed::choose_qparams.Tensor_out (one scale and zero point
 * for the whole tensor) and choose_qparams_per_token_asymmetric.out (one per
 * row of the last dim, int8 range): asymmetric min/max qparams from a Float
 * input, Double scales and Long zero points, with upstream ExecuTorch's
 * nudging (zero point from whichever of min and max loses less, scales
 * below 6.1e-5 widened) so the values are bit-identical.
 */
#include <algorithm>
#include <cmath>
#include <tuple>

#include <executorch/runtime/kernels/detail/kernel_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

ET_DEFINE_OPERATOR_NAME(choose_qparams_tensor_out_name,
                        "quantized_decomposed::choose_qparams.Tensor_out");
ET_DEFINE_OPERATOR_NAME(choose_qparams_per_token_out_name,
                        "quantized_decomposed::choose_qparams_per_token_asymmetric.out");

// Below this a float scale's reciprocal loses too much; upstream widens to it.
constexpr float kSmallScale = 6.1e-5f;

void scale_and_zero_point(float min, float max, int32_t qmin, int32_t qmax, double* scale_out,
                          int64_t* zero_point_out) {
  min = std::min(min, 0.f);
  max = std::max(max, 0.f);
  double scale = (static_cast<double>(max) - min) / (qmax - qmin);
  if (static_cast<float>(scale) == 0.0f || std::isinf(1.0f / static_cast<float>(scale))) {
    scale = 0.1;
  }
  if (scale < kSmallScale) {
    const float original = static_cast<float>(scale);
    scale = kSmallScale;
    if (min == 0.0f) {
      max = kSmallScale * (qmax - qmin);
    } else if (max == 0.0f) {
      min = -kSmallScale * (qmax - qmin);
    } else {
      const float amplifier = kSmallScale / original;
      min *= amplifier;
      max *= amplifier;
    }
  }
  const double from_min = qmin - min / scale;
  const double from_max = qmax - max / scale;
  const double from_min_error = std::abs(qmin) - std::abs(min / scale);
  const double from_max_error = std::abs(qmax) - std::abs(max / scale);
  const double initial = from_min_error < from_max_error ? from_min : from_max;
  int32_t zero_point;
  if (initial < qmin) {
    zero_point = qmin;
  } else if (initial > qmax) {
    zero_point = qmax;
  } else {
    zero_point = static_cast<int32_t>(std::nearbyint(static_cast<float>(initial)));
  }
  *scale_out = scale;
  *zero_point_out = zero_point;
}

/* The qparams of n floats at x (n > 0); the order of the floats does not matter. */
void choose_for(const float* x, int64_t n, int32_t qmin, int32_t qmax, double* scale,
                int64_t* zero_point) {
  const float mn = *std::min_element(x, x + n);
  const float mx = *std::max_element(x, x + n);
  scale_and_zero_point(mn, mx, qmin, qmax, scale, zero_point);
}

bool check_common(KernelRuntimeContext& ctx, const char* op, const Tensor& input, int64_t quant_min,
                  int64_t quant_max, const Tensor& scale_out, const Tensor& zero_point_out) {
  ET_KERNEL_CHECK_MSG(ctx, quant_min < quant_max, InvalidArgument, false,
                      "%s: quant_min %lld must be less than quant_max %lld", op,
                      static_cast<long long>(quant_min), static_cast<long long>(quant_max));
  ET_KERNEL_CHECK_MSG(ctx, quant_min >= INT32_MIN && quant_max <= INT32_MAX, InvalidArgument, false,
                      "%s: quant_min and quant_max must fit int32", op);
  return check_dtype(ctx, op, "input", input, ScalarType::Float) &&
         check_dtype(ctx, op, "scale_out", scale_out, ScalarType::Double) &&
         check_dtype(ctx, op, "zero_point_out", zero_point_out, ScalarType::Long);
}

std::tuple<Tensor&, Tensor&> choose_qparams_tensor_out(KernelRuntimeContext& ctx,
                                                       const Tensor& input, int64_t quant_min,
                                                       int64_t quant_max, double eps,
                                                       ScalarType dtype, Tensor& scale_out,
                                                       Tensor& zero_point_out) {
  // eps and dtype are metadata upstream: the range comes from quant_min/max.
  (void)eps;
  (void)dtype;
  const char* op = log_name(choose_qparams_tensor_out_name);
  std::tuple<Tensor&, Tensor&> ret(scale_out, zero_point_out);
  if (!check_common(ctx, op, input, quant_min, quant_max, scale_out, zero_point_out)) {
    return ret;
  }
  ET_KERNEL_CHECK_MSG(ctx, scale_out.numel() == 1 && zero_point_out.numel() == 1, InvalidArgument,
                      ret, "%s: 'scale_out' and 'zero_point_out' must have one element", op);
  ET_KERNEL_CHECK_MSG(ctx, input.numel() > 0, InvalidArgument, ret,
                      "%s: an empty input has no range to choose qparams from", op);
  choose_for(input.const_data_ptr<float>(), input.numel(), static_cast<int32_t>(quant_min),
             static_cast<int32_t>(quant_max), scale_out.mutable_data_ptr<double>(),
             zero_point_out.mutable_data_ptr<int64_t>());
  return ret;
}

std::tuple<Tensor&, Tensor&> choose_qparams_per_token_out(KernelRuntimeContext& ctx,
                                                          const Tensor& input, ScalarType dtype,
                                                          Tensor& scale_out,
                                                          Tensor& zero_point_out) {
  (void)dtype;  // always the int8 range, as upstream
  const char* op = log_name(choose_qparams_per_token_out_name);
  std::tuple<Tensor&, Tensor&> ret(scale_out, zero_point_out);
  constexpr int32_t kQmin = -128, kQmax = 127;
  ET_KERNEL_CHECK_MSG(ctx, input.dim() >= 1, InvalidArgument, ret,
                      "%s: argument 'input' must have at least one dim", op);
  if (!check_common(ctx, op, input, kQmin, kQmax, scale_out, zero_point_out) ||
      !check_contiguous(ctx, op, "input", input)) {
    return ret;
  }
  // Outputs: the input's shape with the last dim 1.
  SizesType sizes[kMaxDim];
  int64_t tokens = 1;
  for (ssize_t d = 0; d < input.dim(); ++d) {
    sizes[d] = d + 1 == input.dim() ? 1 : static_cast<SizesType>(input.size(d));
    tokens *= d + 1 == input.dim() ? 1 : input.size(d);
  }
  const ArrayRef<SizesType> shape(sizes, static_cast<size_t>(input.dim()));
  if (!resize_out(ctx, op, scale_out, shape) || !resize_out(ctx, op, zero_point_out, shape)) {
    return ret;
  }
  const int64_t last = input.size(input.dim() - 1);
  ET_KERNEL_CHECK_MSG(ctx, tokens == 0 || last > 0, InvalidArgument, ret,
                      "%s: tokens of length 0 have no range to choose qparams from", op);
  const float* x = input.const_data_ptr<float>();
  double* scale = scale_out.mutable_data_ptr<double>();
  int64_t* zero_point = zero_point_out.mutable_data_ptr<int64_t>();
  for (int64_t t = 0; t < tokens; ++t) {
    choose_for(x + t * last, last, kQmin, kQmax, scale + t, zero_point + t);
  }
  return ret;
}

}  // namespace

ETK_REGISTER_KERNEL(choose_qparams_tensor_out_name, choose_qparams_tensor_out);
ETK_REGISTER_KERNEL(choose_qparams_per_token_out_name, choose_qparams_per_token_out);

}  // namespace kernels
}  // namespace executorch
