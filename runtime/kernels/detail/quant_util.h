/*
 * Shared pieces of the quantized_decomposed kernels (runtime/kernels/ops/
 * quantize.cpp, dequantize.cpp, choose_qparams.cpp, quantized_*.cpp): the
 * integer range of each quantized dtype, the dtype dispatch over quantized
 * storage (which includes the 16-bit unsigned dtypes the elementwise
 * dispatch does not know) and the checks every quantization parameter gets.
 *
 * The arithmetic follows upstream ExecuTorch's kernels/quantized/cpu/op_*.cpp
 * so results are bit-identical: quantize is
 *   clamp(int32(zero_point) + nearbyint(float(1.0f / float(scale) * x)))
 * computed in float, dequantize is float(q - zero_point) * float(scale).
 */
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include <executorch/runtime/kernels/detail/dtype_util.h>

namespace executorch {
namespace kernels {
namespace detail {

/* The dtypes quantized values are stored in. */
namespace dtypes {
constexpr DtypeSet kQuantized = dtype_bit(ScalarType::Byte) | dtype_bit(ScalarType::Char) |
                                dtype_bit(ScalarType::Short) | dtype_bit(ScalarType::Int) |
                                dtype_bit(ScalarType::UInt16) | dtype_bit(ScalarType::Bits16);
constexpr DtypeSet kFloatH = dtype_bit(ScalarType::Float) | dtype_bit(ScalarType::Double) |
                             dtype_bit(ScalarType::Half) | dtype_bit(ScalarType::BFloat16);
}  // namespace dtypes

/* The value range of quantized dtype `t` (false for a dtype that is not one). */
inline bool quantized_range(ScalarType t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case ScalarType::Byte:
      *lo = 0, *hi = UINT8_MAX;
      return true;
    case ScalarType::Char:
      *lo = INT8_MIN, *hi = INT8_MAX;
      return true;
    case ScalarType::Short:
      *lo = INT16_MIN, *hi = INT16_MAX;
      return true;
    case ScalarType::Int:
      *lo = INT32_MIN, *hi = INT32_MAX;
      return true;
    case ScalarType::UInt16:
    case ScalarType::Bits16:
      *lo = 0, *hi = UINT16_MAX;
      return true;
    default:
      return false;
  }
}

/*
 * Calls f(type_tag<T>{}) with the C++ storage type of quantized dtype `t`
 * (uint16_t for UInt16 and Bits16); otherwise logs and fails ctx.
 */
template <class F>
bool dispatch_quantized(KernelRuntimeContext& ctx, const char* op, const char* arg, ScalarType t,
                        F&& f) {
  switch (t) {
    case ScalarType::Byte:
      f(type_tag<uint8_t>{});
      return true;
    case ScalarType::Char:
      f(type_tag<int8_t>{});
      return true;
    case ScalarType::Short:
      f(type_tag<int16_t>{});
      return true;
    case ScalarType::Int:
      f(type_tag<int32_t>{});
      return true;
    case ScalarType::UInt16:
    case ScalarType::Bits16:
      f(type_tag<uint16_t>{});
      return true;
    default:
      ET_LOG(Error, "%s: argument '%s' has dtype %s, which is not a quantized dtype", op, arg,
             dtype_name(t));
      ctx.fail(Error::InvalidArgument);
      return false;
  }
}

/* quant_min/quant_max lie inside the range of quantized dtype `t`. */
inline bool check_quant_range(KernelRuntimeContext& ctx, const char* op, ScalarType t,
                              int64_t quant_min, int64_t quant_max) {
  int64_t lo = 0, hi = 0;
  ET_KERNEL_CHECK_MSG(ctx, quantized_range(t, &lo, &hi), InvalidArgument, false,
                      "%s: dtype %s is not a quantized dtype", op, dtype_name(t));
  ET_KERNEL_CHECK_MSG(ctx, quant_min >= lo && quant_max <= hi, InvalidArgument, false,
                      "%s: [quant_min, quant_max] = [%lld, %lld] is outside the range of %s", op,
                      static_cast<long long>(quant_min), static_cast<long long>(quant_max),
                      dtype_name(t));
  return true;
}

/*
 * A scale divides (quantize) or multiplies (dequantize) every value: zero,
 * negative, infinite or NaN scales come only from a broken or hostile file.
 * The check is on the float the arithmetic uses.
 */
inline bool check_scale(KernelRuntimeContext& ctx, const char* op, const char* arg, double scale) {
  const float s = static_cast<float>(scale);
  ET_KERNEL_CHECK_MSG(ctx, std::isfinite(s) && s > 0.0f, InvalidArgument, false,
                      "%s: %s = %g is not a positive finite float", op, arg, scale);
  return true;
}

/* The arithmetic narrows a zero point to int32, as upstream does. */
inline bool check_zero_point(KernelRuntimeContext& ctx, const char* op, const char* arg,
                             int64_t zero_point) {
  ET_KERNEL_CHECK_MSG(ctx, zero_point >= INT32_MIN && zero_point <= INT32_MAX, InvalidArgument,
                      false, "%s: %s = %lld does not fit int32", op, arg,
                      static_cast<long long>(zero_point));
  return true;
}

/*
 * One quantized value. float_to_int gives the x86 conversion upstream's
 * static_cast<int64_t> produces on the float sum (NaN and infinities become
 * INT64_MIN, so quant_min) without its undefined behaviour.
 */
template <class Q, class In>
inline Q quantize_value(In x, float inv_scale, int32_t zero_point, int64_t quant_min,
                        int64_t quant_max) {
  // A double input multiplies in double (float * double), the others in float.
  using P = std::conditional_t<std::is_same<In, double>::value, double, float>;
  const float rounded =
      std::nearbyint(static_cast<float>(static_cast<P>(inv_scale) * static_cast<P>(x)));
  int64_t q = float_to_int<int64_t>(static_cast<float>(zero_point) + rounded);
  q = q < quant_min ? quant_min : q;
  q = q > quant_max ? quant_max : q;
  return static_cast<Q>(q);
}

/* One dequantized value, computed in float. */
template <class Q>
inline float dequantize_value(Q q, int32_t zero_point, float scale) {
  return static_cast<float>(static_cast<int64_t>(q) - zero_point) * scale;
}

/* Element i of a Float or Double 1-element-per-channel tensor as float. */
inline float float_param_at(const Tensor& t, int64_t i) {
  return t.scalar_type() == ScalarType::Double ? static_cast<float>(t.const_data_ptr<double>()[i])
                                               : t.const_data_ptr<float>()[i];
}

/* Element i of an Int or Long tensor. */
inline int64_t int_param_at(const Tensor& t, int64_t i) {
  return t.scalar_type() == ScalarType::Long ? t.const_data_ptr<int64_t>()[i]
                                             : t.const_data_ptr<int32_t>()[i];
}

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
