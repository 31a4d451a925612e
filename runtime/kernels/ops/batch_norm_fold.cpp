/*
 * Load-time folding of an inference batch norm into the convolution before it.
 *
 * aten::_native_batch_norm_legit_no_training computes, per channel c,
 *   y = (x - mean[c]) / sqrt(var[c] + eps) * gamma[c] + beta[c]
 * and when x is a convolution's output (weight W[c, ...], bias b[c]) that only the batch norm
 * reads, the pair equals one convolution with
 *   W'[c, ...] = W[c, ...] * s[c],  b'[c] = (b[c] - mean[c]) * s[c] + beta[c],
 *   s[c] = gamma[c] / sqrt(var[c] + eps).
 * The new weight and bias are computed once (in double, rounded once to float) into constants
 * the Method owns; the batch norm's other two outputs are the empty saved statistics of the
 * no-training variant, which inference graphs do not read (the Method checks that nobody does).
 * The result differs from the pair by float rounding only: the convolution sums W'x instead of
 * scaling the sum of Wx, a relative difference of a few float ulps per product.
 */
#include <cmath>
#include <cstdint>

#include <executorch/runtime/kernel/prepared_constants.h>
#include <executorch/runtime/kernels/detail/shape_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;
using ::executorch::runtime::ArgumentRewriter;
using ::executorch::runtime::Span;

// aten::convolution.out: input, weight, bias?, stride, padding, dilation, transposed,
// output_padding, groups, out, and the returned out.
constexpr size_t kConvArgs = 11;
constexpr size_t kConvWeight = 1, kConvBias = 2, kConvTransposed = 6;
// aten::_native_batch_norm_legit_no_training.out: input, weight?, bias?, running_mean,
// running_var, momentum, eps, out, save_mean, save_invstd, and the returned (out, mean, invstd).
constexpr size_t kBatchNormArgs = 11;
constexpr size_t kBnWeight = 1, kBnBias = 2, kBnMean = 3, kBnVar = 4, kBnEps = 6, kBnOut = 7;

// A float tensor of `channels` elements that the rewriter says is constant.
bool constant_channel_vector(const EValue* v, bool constant, int64_t channels) {
  return constant && v->isTensor() && v->toTensor().scalar_type() == ScalarType::Float &&
         v->toTensor().numel() == channels;
}

// Per-channel values of an optional parameter (or `dflt` when it is None).
double channel_value(const EValue* v, int64_t c, double dflt) {
  return v->isTensor() ? static_cast<double>(v->toTensor().const_data_ptr<float>()[c]) : dflt;
}

int fold_batch_norm_into_convolution(Span<EValue*> conv, Span<EValue*> bn,
                                     ArgumentRewriter& rewrite) {
  if (conv.size() != kConvArgs || bn.size() != kBatchNormArgs || !conv[0]->isTensor() ||
      !conv[kConvWeight]->isTensor() || !rewrite.first_is_constant(kConvWeight) ||
      !conv[kConvTransposed]->isBool() || conv[kConvTransposed]->toBool() ||
      !bn[kBnEps]->isDouble() || !bn[kBnOut]->isTensor() ||
      bn[kBnOut]->toTensor().scalar_type() != ScalarType::Float) {
    return -1;
  }
  const Tensor& weight = conv[kConvWeight]->toTensor();
  if (weight.scalar_type() != ScalarType::Float || weight.dim() < 3 ||
      !is_contiguous_dim_order(weight) || conv[0]->toTensor().scalar_type() != ScalarType::Float) {
    return -1;
  }
  const int64_t channels = weight.size(0);
  const bool has_bias = !conv[kConvBias]->isNone();
  if ((has_bias &&
       !constant_channel_vector(conv[kConvBias], rewrite.first_is_constant(kConvBias), channels)) ||
      !constant_channel_vector(bn[kBnMean], rewrite.second_is_constant(kBnMean), channels) ||
      !constant_channel_vector(bn[kBnVar], rewrite.second_is_constant(kBnVar), channels)) {
    return -1;
  }
  for (const size_t k : {kBnWeight, kBnBias}) {
    if (!bn[k]->isNone() &&
        !constant_channel_vector(bn[k], rewrite.second_is_constant(k), channels)) {
      return -1;
    }
  }
  const double eps = bn[kBnEps]->toDouble();
  const float* var = bn[kBnVar]->toTensor().const_data_ptr<float>();
  const float* mean = bn[kBnMean]->toTensor().const_data_ptr<float>();
  // A channel whose scale is not finite (var + eps <= 0, inf or NaN statistics) keeps the pair:
  // the folded weight would turn 0 * inf into NaN where the batch norm gives +-inf.
  for (int64_t c = 0; c < channels; ++c) {
    const double s = channel_value(bn[kBnWeight], c, 1.0) / std::sqrt(var[c] + eps);
    if (!std::isfinite(s) || !std::isfinite(static_cast<double>(mean[c]))) {
      return -1;
    }
  }
  const Span<const int32_t> wsizes(weight.sizes().data(), weight.sizes().size());
  const int32_t bsizes[1] = {static_cast<int32_t>(channels)};
  float* new_weight =
      static_cast<float*>(rewrite.replace_with_constant(kConvWeight, ScalarType::Float, wsizes));
  float* new_bias = static_cast<float*>(
      rewrite.replace_with_constant(kConvBias, ScalarType::Float, Span<const int32_t>(bsizes, 1)));
  if (new_weight == nullptr || new_bias == nullptr || channels <= 0) {
    return -1;
  }
  const float* w = weight.const_data_ptr<float>();
  const int64_t per_channel = weight.numel() / channels;
  for (int64_t c = 0; c < channels; ++c) {
    const double s = channel_value(bn[kBnWeight], c, 1.0) / std::sqrt(var[c] + eps);
    for (int64_t k = 0; k < per_channel; ++k) {
      new_weight[c * per_channel + k] = static_cast<float>(w[c * per_channel + k] * s);
    }
    const double b = has_bias ? channel_value(conv[kConvBias], c, 0.0) : 0.0;
    new_bias[c] = static_cast<float>((b - mean[c]) * s + channel_value(bn[kBnBias], c, 0.0));
  }
  return static_cast<int>(kBnOut);
}

bool register_folders() {
  return ::executorch::runtime::register_instruction_folder(
             "aten::convolution.out", "aten::_native_batch_norm_legit_no_training.out",
             fold_batch_norm_into_convolution) == Error::Ok;
}

[[maybe_unused]] const bool g_folders_registered = register_folders();

}  // namespace
}  // namespace kernels
}  // namespace executorch
