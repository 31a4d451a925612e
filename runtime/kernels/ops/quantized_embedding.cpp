/*
 * quantized_decomposed::embedding_byte, embedding_2bit and embedding_4bit
 * (.out and .dtype_out): rows of a quantized weight [num_embeddings, packed]
 * gathered by index and dequantized, (w - zero_point) * scale in float, with
 * one scale (and optional zero point) per row or per group of a row.
 *
 * Packing, as upstream ExecuTorch's kernels/quantized/cpu/embeddingxb.cpp:
 * 8-bit rows are the Byte/Char values themselves; 4-bit values are offset
 * by -8 with element 2k in the high nibble of byte k and 2k+1 in the low
 * one; 2-bit values are offset by -2, element 4k+s in bits 2s..2s+1 of byte
 * k. The .out overloads read the scales as the out dtype (so they must have
 * it); the .dtype_out overloads accept any float scale dtype.
 */
#include <optional>

#include <executorch/runtime/kernels/detail/dtype_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

ET_DEFINE_OPERATOR_NAME(embedding_byte_out_name, "quantized_decomposed::embedding_byte.out");
ET_DEFINE_OPERATOR_NAME(embedding_byte_dtype_out_name,
                        "quantized_decomposed::embedding_byte.dtype_out");
ET_DEFINE_OPERATOR_NAME(embedding_2bit_out_name, "quantized_decomposed::embedding_2bit.out");
ET_DEFINE_OPERATOR_NAME(embedding_2bit_dtype_out_name,
                        "quantized_decomposed::embedding_2bit.dtype_out");
ET_DEFINE_OPERATOR_NAME(embedding_4bit_out_name, "quantized_decomposed::embedding_4bit.out");
ET_DEFINE_OPERATOR_NAME(embedding_4bit_dtype_out_name,
                        "quantized_decomposed::embedding_4bit.dtype_out");

constexpr DtypeSet kParamDtypes =
    dtype_bit(ScalarType::Float) | dtype_bit(ScalarType::Half) | dtype_bit(ScalarType::BFloat16);

/* Element j of a packed row of `bits`-bit values. */
inline int32_t packed_value(const uint8_t* row, int64_t j, int bits) {
  if (bits == 4) {
    const uint8_t b = row[j >> 1];
    return static_cast<int32_t>((j & 1) ? (b & 0x0F) : (b >> 4)) - 8;
  }
  const uint8_t b = row[j >> 2];
  return static_cast<int32_t>((b >> (2 * (j & 3))) & 3) - 2;
}

struct EmbeddingArgs {
  const char* op;
  int bits;               // 8, 4 or 2
  bool scales_as_out;     // the .out overloads: scales must have out's dtype
  DtypeSet index_dtypes;  // Long only for bytes, Int or Long for packed weights
};

bool check_embedding_args(KernelRuntimeContext& ctx, const EmbeddingArgs& a, const Tensor& weight,
                          const Tensor& scales, const std::optional<Tensor>& zero_points,
                          int64_t quant_min, int64_t quant_max, const Tensor& indices,
                          std::optional<ScalarType> dtype, const Tensor& out, int64_t* dim) {
  const char* op = a.op;
  const DtypeSet weight_dtypes = a.bits == 8
                                     ? dtype_bit(ScalarType::Byte) | dtype_bit(ScalarType::Char)
                                     : dtype_bit(ScalarType::Byte);
  if (!check_rank(ctx, op, "weight", weight, 2) ||
      !check_dtype_in(ctx, op, "weight", weight, weight_dtypes) ||
      !check_dtype_in(ctx, op, "weight_scales", scales, kParamDtypes) ||
      !check_dtype_in(ctx, op, "out", out, kParamDtypes) ||
      !check_dtype_in(ctx, op, "indices", indices, a.index_dtypes) ||
      !check_contiguous(ctx, op, "weight", weight) ||
      !check_contiguous(ctx, op, "weight_scales", scales) ||
      !check_contiguous(ctx, op, "indices", indices) || !check_contiguous(ctx, op, "out", out)) {
    return false;
  }
  ET_KERNEL_CHECK_MSG(ctx, !a.scales_as_out || scales.scalar_type() == out.scalar_type(),
                      InvalidArgument, false,
                      "%s: weight_scales (%s) must have the dtype of out (%s)", op,
                      dtype_name(scales.scalar_type()), dtype_name(out.scalar_type()));
  ET_KERNEL_CHECK_MSG(ctx, !dtype.has_value() || *dtype == out.scalar_type(), InvalidArgument,
                      false, "%s: out has dtype %s but 'dtype' is %s", op,
                      dtype_name(out.scalar_type()), dtype_name(dtype.value_or(ScalarType::Float)));
  ET_KERNEL_CHECK_MSG(ctx, quant_min <= quant_max, InvalidArgument, false,
                      "%s: weight_quant_min %lld is greater than weight_quant_max %lld", op,
                      static_cast<long long>(quant_min), static_cast<long long>(quant_max));
  ET_KERNEL_CHECK_MSG(ctx, scales.dim() == 1 || scales.dim() == 2, InvalidArgument, false,
                      "%s: weight_scales must have rank 1 or 2, got %zd", op,
                      static_cast<ssize_t>(scales.dim()));
  ET_KERNEL_CHECK_MSG(ctx, scales.size(0) == weight.size(0), InvalidArgument, false,
                      "%s: weight_scales has %zd rows for %zd weight rows", op,
                      static_cast<ssize_t>(scales.size(0)), static_cast<ssize_t>(weight.size(0)));
  // A row of b bytes unpacks to b * 8 / bits values: up to 4 * (2^31 - 1),
  // more than a dim holds. The loops below run to this count, so it is
  // refused here rather than cut to fit out's dim.
  ET_KERNEL_CHECK_MSG(ctx, checked_mul(weight.size(1), 8 / a.bits, dim) && is_dim_size(*dim),
                      InvalidArgument, false,
                      "%s: argument 'weight' has rows of %zd bytes, %lld %d-bit values: more "
                      "than a dim of out can hold",
                      op, static_cast<ssize_t>(weight.size(1)), static_cast<long long>(*dim),
                      a.bits);
  const int64_t groups = scales.dim() == 2 ? scales.size(1) : 1;
  ET_KERNEL_CHECK_MSG(ctx, groups > 0 && *dim % groups == 0, InvalidArgument, false,
                      "%s: %lld groups do not divide the embedding dim %lld", op,
                      static_cast<long long>(groups), static_cast<long long>(*dim));
  if (zero_points.has_value()) {
    const Tensor& zp = *zero_points;
    ET_KERNEL_CHECK_MSG(ctx, zp.scalar_type() == out.scalar_type(), InvalidArgument, false,
                        "%s: weight_zero_points (%s) must have the dtype of out (%s)", op,
                        dtype_name(zp.scalar_type()), dtype_name(out.scalar_type()));
    ET_KERNEL_CHECK_MSG(ctx, zp.sizes() == scales.sizes(), InvalidArgument, false,
                        "%s: weight_zero_points must have the shape of weight_scales", op);
    if (!check_contiguous(ctx, op, "weight_zero_points", zp)) {
      return false;
    }
  }
  ET_KERNEL_CHECK_MSG(ctx, static_cast<size_t>(indices.dim()) < kMaxDim, InvalidArgument, false,
                      "%s: indices of rank %zd leave no room for the embedding dim", op,
                      static_cast<ssize_t>(indices.dim()));
  // Every index before anything is written: out is never half filled.
  const auto load_index = load_fn<int64_t>(indices.scalar_type());
  const size_t isize = indices.element_size();
  const char* idx = static_cast<const char*>(indices.const_data_ptr());
  for (ssize_t i = 0; i < indices.numel(); ++i) {
    const int64_t v = load_index(idx + static_cast<size_t>(i) * isize);
    ET_KERNEL_CHECK_MSG(ctx, v >= 0 && v < weight.size(0), InvalidArgument, false,
                        "%s: index %lld at position %zd is out of range [0, %zd)", op,
                        static_cast<long long>(v), static_cast<ssize_t>(i),
                        static_cast<ssize_t>(weight.size(0)));
  }
  int64_t sizes[kMaxDim];
  for (ssize_t d = 0; d < indices.dim(); ++d) {
    sizes[d] = indices.size(d);
  }
  sizes[indices.dim()] = *dim;
  return resize_out(ctx, op, out, ArrayRef<int64_t>(sizes, static_cast<size_t>(indices.dim()) + 1));
}

Tensor& embedding_common(KernelRuntimeContext& ctx, const EmbeddingArgs& a, const Tensor& weight,
                         const Tensor& scales, const std::optional<Tensor>& zero_points,
                         int64_t quant_min, int64_t quant_max, const Tensor& indices,
                         std::optional<ScalarType> dtype, Tensor& out) {
  int64_t dim = 0;
  if (!check_embedding_args(ctx, a, weight, scales, zero_points, quant_min, quant_max, indices,
                            dtype, out, &dim)) {
    return out;
  }
  const int64_t groups = scales.dim() == 2 ? scales.size(1) : 1;
  const int64_t group_size = dim / groups;
  const int64_t row_bytes = weight.size(1);
  const auto load_index = load_fn<int64_t>(indices.scalar_type());
  const auto load_scale = load_fn<float>(scales.scalar_type());
  const auto load_zp =
      zero_points.has_value() ? load_fn<float>(zero_points->scalar_type()) : nullptr;
  const size_t isize = indices.element_size();
  const size_t psize = scales.element_size();
  const char* idx = static_cast<const char*>(indices.const_data_ptr());
  const char* sp = static_cast<const char*>(scales.const_data_ptr());
  const char* zpp =
      zero_points.has_value() ? static_cast<const char*>(zero_points->const_data_ptr()) : nullptr;
  const auto store = store_fn<float>(out.scalar_type());
  char* y = static_cast<char*>(out.mutable_data_ptr());
  const size_t osize = out.element_size();
  const bool signed_bytes = weight.scalar_type() == ScalarType::Char;
  const uint8_t* w = static_cast<const uint8_t*>(weight.const_data_ptr());
  for (ssize_t i = 0; i < indices.numel(); ++i) {
    const int64_t row = load_index(idx + static_cast<size_t>(i) * isize);
    const uint8_t* wrow = w + row * row_bytes;
    for (int64_t j = 0; j < dim; ++j) {
      const size_t p = static_cast<size_t>(row * groups + j / group_size) * psize;
      const float scale = load_scale(sp + p);
      const float zp = load_zp != nullptr ? load_zp(zpp + p) : 0.0f;
      float q;
      if (a.bits == 8) {
        q = signed_bytes ? static_cast<float>(static_cast<int8_t>(wrow[j]))
                         : static_cast<float>(wrow[j]);
      } else {
        q = static_cast<float>(packed_value(wrow, j, a.bits));
      }
      store((q - zp) * scale, y + static_cast<size_t>(i * dim + j) * osize);
    }
  }
  return out;
}

constexpr DtypeSet kLong = dtype_bit(ScalarType::Long);
constexpr DtypeSet kIntLong = dtype_bit(ScalarType::Int) | dtype_bit(ScalarType::Long);

#define ETK_EMBEDDING_KERNELS(fn, name, dtype_name_, bits, index_dtypes)                           \
  Tensor& fn##_out(KernelRuntimeContext& ctx, const Tensor& weight, const Tensor& scales,          \
                   const std::optional<Tensor>& zero_points, int64_t quant_min, int64_t quant_max, \
                   const Tensor& indices, Tensor& out) {                                           \
    return embedding_common(ctx, {log_name(name), bits, true, index_dtypes}, weight, scales,       \
                            zero_points, quant_min, quant_max, indices, std::nullopt, out);        \
  }                                                                                                \
  Tensor& fn##_dtype_out(KernelRuntimeContext& ctx, const Tensor& weight, const Tensor& scales,    \
                         const std::optional<Tensor>& zero_points, int64_t quant_min,              \
                         int64_t quant_max, const Tensor& indices,                                 \
                         std::optional<ScalarType> dtype, Tensor& out) {                           \
    return embedding_common(ctx, {log_name(dtype_name_), bits, false, index_dtypes}, weight,       \
                            scales, zero_points, quant_min, quant_max, indices, dtype, out);       \
  }

ETK_EMBEDDING_KERNELS(embedding_byte, embedding_byte_out_name, embedding_byte_dtype_out_name, 8,
                      kLong)
ETK_EMBEDDING_KERNELS(embedding_2bit, embedding_2bit_out_name, embedding_2bit_dtype_out_name, 2,
                      kIntLong)
ETK_EMBEDDING_KERNELS(embedding_4bit, embedding_4bit_out_name, embedding_4bit_dtype_out_name, 4,
                      kIntLong)
#undef ETK_EMBEDDING_KERNELS

}  // namespace

ETK_REGISTER_KERNEL(embedding_byte_out_name, embedding_byte_out);
ETK_REGISTER_KERNEL(embedding_byte_dtype_out_name, embedding_byte_dtype_out);
ETK_REGISTER_KERNEL(embedding_2bit_out_name, embedding_2bit_out);
ETK_REGISTER_KERNEL(embedding_2bit_dtype_out_name, embedding_2bit_dtype_out);
ETK_REGISTER_KERNEL(embedding_4bit_out_name, embedding_4bit_out);
ETK_REGISTER_KERNEL(embedding_4bit_dtype_out_name, embedding_4bit_dtype_out);

}  // namespace kernels
}  // namespace executorch
