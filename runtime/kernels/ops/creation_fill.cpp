/*
 * Creation and fill: scalar_tensor.out, full.out, full_like.out,
 * zeros.out, ones.out, fill.Scalar_out, dim_order_ops::_empty_dim_order.out.
 */
#include <cstring>

#include <executorch/runtime/kernels/detail/helpers.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(scalar_tensor_out_name, "aten::scalar_tensor.out");
ET_DEFINE_OPERATOR_NAME(full_out_name, "aten::full.out");
ET_DEFINE_OPERATOR_NAME(full_like_out_name, "aten::full_like.out");
ET_DEFINE_OPERATOR_NAME(zeros_out_name, "aten::zeros.out");
ET_DEFINE_OPERATOR_NAME(ones_out_name, "aten::ones.out");
ET_DEFINE_OPERATOR_NAME(fill_scalar_out_name, "aten::fill.Scalar_out");
ET_DEFINE_OPERATOR_NAME(empty_dim_order_out_name, "dim_order_ops::_empty_dim_order.out");
ET_DEFINE_OPERATOR_NAME(fill_tensor_out_name, "aten::fill.Tensor_out");
ET_DEFINE_OPERATOR_NAME(empty_out_name, "aten::empty.out");

using std::optional;

// Writes `value` converted to out's dtype into every element of out.
bool fill_with(KernelRuntimeContext& ctx, const char* op, const Tensor& out, const Scalar& value) {
  if (!check_dtype_in(ctx, op, "out", out, dtypes::kRealHBBF16)) {
    return false;
  }
  alignas(8) unsigned char elem[8];
  if (value.isFloatingPoint()) {
    store_fn<double>(out.scalar_type())(value.to<double>(), elem);
  } else if (value.isBoolean()) {
    store_fn<bool>(out.scalar_type())(value.to<bool>(), elem);
  } else {
    store_fn<int64_t>(out.scalar_type())(value.to<int64_t>(), elem);
  }
  const size_t es = static_cast<size_t>(out.element_size());
  const size_t n = static_cast<size_t>(out.numel());
  char* o = static_cast<char*>(out.mutable_data_ptr());
  switch (es) {
    case 1:
      std::memset(o, elem[0], n);
      break;
#define ETK_FILL_CASE(T)              \
  case sizeof(T): {                   \
    T v;                              \
    std::memcpy(&v, elem, sizeof(T)); \
    T* p = reinterpret_cast<T*>(o);   \
    for (size_t i = 0; i < n; ++i) {  \
      p[i] = v;                       \
    }                                 \
    break;                            \
  }
      ETK_FILL_CASE(uint16_t)
      ETK_FILL_CASE(uint32_t)
      ETK_FILL_CASE(uint64_t)
#undef ETK_FILL_CASE
    default:
      return fail(ctx, Error::InvalidArgument, op, "unsupported element size of 'out'");
  }
  return true;
}

Tensor& scalar_tensor_out(KernelRuntimeContext& ctx, const Scalar& s, Tensor& out) {
  const char* op = log_name(scalar_tensor_out_name);
  if (resize_out(ctx, op, out, ArrayRef<SizesType>())) {
    fill_with(ctx, op, out, s);
  }
  return out;
}

Tensor& full_out(KernelRuntimeContext& ctx, ArrayRef<int64_t> size, const Scalar& value,
                 Tensor& out) {
  const char* op = log_name(full_out_name);
  if (resize_out(ctx, op, out, size)) {
    fill_with(ctx, op, out, value);
  }
  return out;
}

Tensor& full_like_out(KernelRuntimeContext& ctx, const Tensor& in, const Scalar& value,
                      optional<::executorch::aten::MemoryFormat> memory_format, Tensor& out) {
  const char* op = log_name(full_like_out_name);
  (void)memory_format;  // out's dim order is the layout
  if (resize_out_like(ctx, op, out, in)) {
    fill_with(ctx, op, out, value);
  }
  return out;
}

Tensor& zeros_out(KernelRuntimeContext& ctx, ArrayRef<int64_t> size, Tensor& out) {
  const char* op = log_name(zeros_out_name);
  if (resize_out(ctx, op, out, size)) {
    fill_with(ctx, op, out, Scalar(int64_t(0)));
  }
  return out;
}

Tensor& ones_out(KernelRuntimeContext& ctx, ArrayRef<int64_t> size, Tensor& out) {
  const char* op = log_name(ones_out_name);
  if (resize_out(ctx, op, out, size)) {
    fill_with(ctx, op, out, Scalar(int64_t(1)));
  }
  return out;
}

Tensor& fill_scalar_out(KernelRuntimeContext& ctx, const Tensor& in, const Scalar& value,
                        Tensor& out) {
  const char* op = log_name(fill_scalar_out_name);
  if (check_same_dtype(ctx, op, "self", in, "out", out) && resize_out_like(ctx, op, out, in)) {
    fill_with(ctx, op, out, value);
  }
  return out;
}

Tensor& empty_dim_order_out(KernelRuntimeContext& ctx, ArrayRef<int64_t> size,
                            optional<ArrayRef<int64_t>> dim_order, Tensor& out) {
  const char* op = log_name(empty_dim_order_out_name);
  if (dim_order.has_value() && !dim_order->empty()) {
    ET_KERNEL_CHECK_MSG(ctx, static_cast<ssize_t>(dim_order->size()) == out.dim(), InvalidArgument,
                        out, "%s: argument 'dim_order' has %zu entries for an out of rank %zd", op,
                        dim_order->size(), static_cast<ssize_t>(out.dim()));
    for (size_t i = 0; i < dim_order->size(); ++i) {
      ET_KERNEL_CHECK_MSG(ctx, (*dim_order)[i] == out.dim_order()[i], InvalidArgument, out,
                          "%s: argument 'dim_order' does not match the dim order of 'out'", op);
    }
  }
  (void)resize_out(ctx, op, out, size);
  return out;
}

// fill.Tensor_out: fill.Scalar_out with the value of a 0-dim tensor.
Tensor& fill_tensor_out(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& value,
                        Tensor& out) {
  const char* op = log_name(fill_tensor_out_name);
  ET_KERNEL_CHECK_MSG(ctx, value.dim() == 0, InvalidArgument, out,
                      "%s: argument 'value' must be a 0-dim tensor, got rank %zd", op,
                      static_cast<ssize_t>(value.dim()));
  if (!check_dtype_in(ctx, op, "value", value, dtypes::kRealHBBF16) ||
      !check_same_dtype(ctx, op, "self", in, "out", out) || !resize_out_like(ctx, op, out, in)) {
    return out;
  }
  const ScalarType vt = value.scalar_type();
  const void* v = value.const_data_ptr();
  Scalar s(false);
  if (vt == ScalarType::Bool) {
    s = Scalar(load_fn<bool>(vt)(v));
  } else if (::executorch::runtime::isIntegralType(vt, false)) {
    s = Scalar(load_fn<int64_t>(vt)(v));
  } else {
    s = Scalar(load_fn<double>(vt)(v));
  }
  fill_with(ctx, op, out, s);
  return out;
}

// empty.out: out resized to `size`; its values are left as they are.
Tensor& empty_out(KernelRuntimeContext& ctx, ArrayRef<int64_t> size,
                  optional<::executorch::aten::MemoryFormat> memory_format, Tensor& out) {
  const char* op = log_name(empty_out_name);
  ET_KERNEL_CHECK_MSG(
      ctx,
      !memory_format.has_value() || *memory_format == ::executorch::aten::MemoryFormat::Contiguous,
      InvalidArgument, out, "%s: argument 'memory_format' must be None or contiguous", op);
  (void)resize_out(ctx, op, out, size);
  return out;
}

ETK_REGISTER_KERNEL(fill_tensor_out_name, fill_tensor_out);
ETK_REGISTER_KERNEL(empty_out_name, empty_out);
ETK_REGISTER_KERNEL(scalar_tensor_out_name, scalar_tensor_out);
ETK_REGISTER_KERNEL(full_out_name, full_out);
ETK_REGISTER_KERNEL(full_like_out_name, full_like_out);
ETK_REGISTER_KERNEL(zeros_out_name, zeros_out);
ETK_REGISTER_KERNEL(ones_out_name, ones_out);
ETK_REGISTER_KERNEL(fill_scalar_out_name, fill_scalar_out);
ETK_REGISTER_KERNEL(empty_dim_order_out_name, empty_dim_order_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
