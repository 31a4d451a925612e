/*
 * The arithmetic quantized_decomposed operators:
 *   - mixed_mm.out: x [m, n] (Float/Half) @ int8 weight [n, p] with one
 *     scale per weight row, out [m, p] in x's dtype;
 *   - mixed_linear.out: x [m, n] @ int8 weight [p, n]^T with one scale per
 *     output row or per group of a row (scales [p] or [p, groups]);
 *   - add.out: two quantized tensors added as dequantize -> float add ->
 *     quantize.
 * The loops keep upstream ExecuTorch's order and accumulation types
 * (kernels/portable/cpu/vec_ops.h) so Half results round the same way.
 * Zero points are refused for the matmuls, as upstream does.
 */
#include <optional>

#include <executorch/runtime/kernels/detail/quant_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

ET_DEFINE_OPERATOR_NAME(mixed_mm_out_name, "quantized_decomposed::mixed_mm.out");
ET_DEFINE_OPERATOR_NAME(mixed_linear_out_name, "quantized_decomposed::mixed_linear.out");
ET_DEFINE_OPERATOR_NAME(quantized_add_out_name, "quantized_decomposed::add.out");

constexpr DtypeSet kFloatHalf = dtype_bit(ScalarType::Float) | dtype_bit(ScalarType::Half);

/* The checks both matmuls share. */
bool check_mixed_args(KernelRuntimeContext& ctx, const char* op, const Tensor& in,
                      const Tensor& weight, const Tensor& scales,
                      const std::optional<Tensor>& zero_points) {
  ET_KERNEL_CHECK_MSG(ctx, !zero_points.has_value(), InvalidArgument, false,
                      "%s: weight_zero_points are not supported", op);
  return check_rank(ctx, op, "input", in, 2) && check_rank(ctx, op, "weight", weight, 2) &&
         check_dtype_in(ctx, op, "input", in, kFloatHalf) &&
         check_dtype(ctx, op, "weight", weight, ScalarType::Char) &&
         check_same_dtype(ctx, op, "input", in, "weight_scales", scales) &&
         check_contiguous(ctx, op, "input", in) && check_contiguous(ctx, op, "weight", weight) &&
         check_contiguous(ctx, op, "weight_scales", scales);
}

/* z[i][j] = sum_k x[i][k] * y[k][j] * s[k]: upstream's vec_quantized_matmul_int8. */
template <class T>
void matmul_int8(T* z, const T* x, const int8_t* y, const T* s, int64_t m, int64_t n, int64_t p) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < p; ++j) {
      T sum = 0;
      for (int64_t k = 0; k < n; ++k) {
        sum += x[i * n + k] * static_cast<T>(y[k * p + j]) * s[k];
      }
      z[i * p + j] = sum;
    }
  }
}

Tensor& mixed_mm_out(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& weight,
                     const Tensor& scales, const std::optional<Tensor>& zero_points, Tensor& out) {
  const char* op = log_name(mixed_mm_out_name);
  if (!check_mixed_args(ctx, op, in, weight, scales, zero_points) ||
      !check_rank(ctx, op, "weight_scales", scales, 1) ||
      !check_same_dtype(ctx, op, "input", in, "out", out) ||
      !check_contiguous(ctx, op, "out", out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, in.size(1) == weight.size(0) && scales.size(0) == weight.size(0),
                      InvalidArgument, out,
                      "%s: input [%zd, %zd], weight [%zd, %zd] and %zd scales do not match", op,
                      static_cast<ssize_t>(in.size(0)), static_cast<ssize_t>(in.size(1)),
                      static_cast<ssize_t>(weight.size(0)), static_cast<ssize_t>(weight.size(1)),
                      static_cast<ssize_t>(scales.size(0)));
  const SizesType sizes[2] = {static_cast<SizesType>(in.size(0)),
                              static_cast<SizesType>(weight.size(1))};
  if (!resize_out(ctx, op, out, ArrayRef<SizesType>(sizes, 2))) {
    return out;
  }
  dispatch_dtype<kFloatHalf>(ctx, op, in.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    matmul_int8<T>(out.mutable_data_ptr<T>(), in.const_data_ptr<T>(),
                   weight.const_data_ptr<int8_t>(), scales.const_data_ptr<T>(), in.size(0),
                   in.size(1), weight.size(1));
  });
  return out;
}

/*
 * z[i][j] = sum over groups of (sum_k x[i][k] * y[j][k]) * s[j][group]:
 * upstream's vec_quantized_matmul_transb_int8, partial sums in T.
 */
template <class T, class U>
void matmul_transb_int8(T* z, const U* x, const int8_t* y, const U* s, int64_t m, int64_t n,
                        int64_t p, int64_t g) {
  const int64_t groups = (n + g - 1) / g;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < p; ++j) {
      T sum = 0;
      for (int64_t k = 0; k < n; k += g) {
        T psum = 0;
        const int64_t end = k + g < n ? k + g : n;
        for (int64_t k2 = k; k2 < end; ++k2) {
          psum += x[i * n + k2] * static_cast<U>(y[j * n + k2]);
        }
        sum += psum * s[j * groups + k / g];
      }
      z[i * p + j] = sum;
    }
  }
}

Tensor& mixed_linear_out(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& weight,
                         const Tensor& scales, const std::optional<Tensor>& zero_points,
                         std::optional<ScalarType> dtype, Tensor& out) {
  const char* op = log_name(mixed_linear_out_name);
  constexpr DtypeSet kOut = kFloatHalf | dtype_bit(ScalarType::Double);
  if (!check_mixed_args(ctx, op, in, weight, scales, zero_points) ||
      !check_dtype_in(ctx, op, "out", out, kOut) || !check_contiguous(ctx, op, "out", out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(
      ctx, !dtype.has_value() || (*dtype == out.scalar_type() && dtype_in(*dtype, kFloatHalf)),
      InvalidArgument, out, "%s: 'dtype' must be Float or Half and out's dtype", op);
  ET_KERNEL_CHECK_MSG(ctx, scales.dim() == 1 || scales.dim() == 2, InvalidArgument, out,
                      "%s: weight_scales must have rank 1 or 2", op);
  ET_KERNEL_CHECK_MSG(ctx, in.size(1) == weight.size(1) && scales.size(0) == weight.size(0),
                      InvalidArgument, out,
                      "%s: input [%zd, %zd], weight [%zd, %zd] and scales rows %zd do not match",
                      op, static_cast<ssize_t>(in.size(0)), static_cast<ssize_t>(in.size(1)),
                      static_cast<ssize_t>(weight.size(0)), static_cast<ssize_t>(weight.size(1)),
                      static_cast<ssize_t>(scales.size(0)));
  const int64_t n = in.size(1);
  int64_t group_size = n;
  if (scales.dim() == 2) {
    ET_KERNEL_CHECK_MSG(ctx, scales.size(1) > 0, InvalidArgument, out,
                        "%s: weight_scales has no groups", op);
    group_size = (n + scales.size(1) - 1) / scales.size(1);
  }
  // An empty reduction (n == 0) still writes zeros; a group size of 1 keeps
  // the group count defined then.
  group_size = group_size > 0 ? group_size : 1;
  const SizesType sizes[2] = {static_cast<SizesType>(in.size(0)),
                              static_cast<SizesType>(weight.size(0))};
  if (!resize_out(ctx, op, out, ArrayRef<SizesType>(sizes, 2))) {
    return out;
  }
  dispatch_dtype<kFloatHalf>(ctx, op, in.scalar_type(), [&](auto in_tag) {
    using U = typename decltype(in_tag)::type;
    dispatch_dtype<kOut>(ctx, op, out.scalar_type(), [&](auto out_tag) {
      using T = typename decltype(out_tag)::type;
      matmul_transb_int8<T, U>(out.mutable_data_ptr<T>(), in.const_data_ptr<U>(),
                               weight.const_data_ptr<int8_t>(), scales.const_data_ptr<U>(),
                               in.size(0), n, weight.size(0), group_size);
    });
  });
  return out;
}

/* A quantized operand's checked parameters. */
bool check_add_qparams(KernelRuntimeContext& ctx, const char* op, const char* which, double scale,
                       int64_t zero_point, int64_t quant_min, int64_t quant_max) {
  ET_KERNEL_CHECK_MSG(ctx, quant_min >= 0 && quant_max <= 255 && quant_min <= quant_max,
                      InvalidArgument, false,
                      "%s: %s quant range [%lld, %lld] must lie in [0, 255] and be ordered", op,
                      which, static_cast<long long>(quant_min), static_cast<long long>(quant_max));
  return check_scale(ctx, op, which, scale) && check_zero_point(ctx, op, which, zero_point);
}

Tensor& quantized_add_out(KernelRuntimeContext& ctx, const Tensor& a, double a_scale,
                          int64_t a_zero_point, int64_t a_quant_min, int64_t a_quant_max,
                          const Tensor& b, double b_scale, int64_t b_zero_point,
                          int64_t b_quant_min, int64_t b_quant_max, double out_scale,
                          int64_t out_zero_point, int64_t out_quant_min, int64_t out_quant_max,
                          Tensor& out) {
  const char* op = log_name(quantized_add_out_name);
  // At most 32-bit storage: the quant ranges are [0, 255] and the int64
  // differences below cannot overflow.
  constexpr DtypeSet kInts = dtype_bit(ScalarType::Byte) | dtype_bit(ScalarType::Char) |
                             dtype_bit(ScalarType::Short) | dtype_bit(ScalarType::Int);
  if (!check_add_qparams(ctx, op, "a", a_scale, a_zero_point, a_quant_min, a_quant_max) ||
      !check_add_qparams(ctx, op, "b", b_scale, b_zero_point, b_quant_min, b_quant_max) ||
      !check_add_qparams(ctx, op, "out", out_scale, out_zero_point, out_quant_min, out_quant_max) ||
      !check_dtype_in(ctx, op, "a", a, kInts) || !check_same_dtype(ctx, op, "a", a, "b", b) ||
      !check_same_dtype(ctx, op, "a", a, "out", out) ||
      !check_same_dim_order(ctx, op, "a", a, "b", b) ||
      !check_same_dim_order(ctx, op, "a", a, "out", out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, a.sizes() == b.sizes(), InvalidArgument, out,
                      "%s: 'a' and 'b' must have the same shape", op);
  if (!resize_out_like(ctx, op, out, a)) {
    return out;
  }
  // Upstream narrows the scales to float, then dequantizes in double.
  const double as = static_cast<float>(a_scale), bs = static_cast<float>(b_scale);
  const float inv_out = 1.0f / static_cast<float>(out_scale);
  dispatch_dtype<kInts>(ctx, op, a.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = a.const_data_ptr<T>();
    const T* y = b.const_data_ptr<T>();
    T* z = out.mutable_data_ptr<T>();
    for (ssize_t i = 0; i < a.numel(); ++i) {
      const float dx =
          static_cast<float>(static_cast<double>(static_cast<int64_t>(x[i]) - a_zero_point) * as);
      const float dy =
          static_cast<float>(static_cast<double>(static_cast<int64_t>(y[i]) - b_zero_point) * bs);
      z[i] = quantize_value<T>(dx + dy, inv_out, static_cast<int32_t>(out_zero_point),
                               out_quant_min, out_quant_max);
    }
  });
  return out;
}

}  // namespace

ETK_REGISTER_KERNEL(mixed_mm_out_name, mixed_mm_out);
ETK_REGISTER_KERNEL(mixed_linear_out_name, mixed_linear_out);
ETK_REGISTER_KERNEL(quantized_add_out_name, quantized_add_out);

}  // namespace kernels
}  // namespace executorch
