/*
 * Copies with dtype and layout conversion: dim_order_ops::_to_dim_order_copy
 * (dtype from out), dim_order_ops::_clone_dim_order, clone.out, _to_copy.out,
 * copy.out, the in-place copy_ (mutable-buffer write-back; src broadcasts
 * into self) and alias_copy.out. The layout is the out tensor's dim order.
 */
#include <executorch/runtime/kernels/detail/helpers.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(to_dim_order_copy_out_name, "dim_order_ops::_to_dim_order_copy.out");
ET_DEFINE_OPERATOR_NAME(clone_dim_order_out_name, "dim_order_ops::_clone_dim_order.out");
ET_DEFINE_OPERATOR_NAME(clone_out_name, "aten::clone.out");
ET_DEFINE_OPERATOR_NAME(to_copy_out_name, "aten::_to_copy.out");
ET_DEFINE_OPERATOR_NAME(copy_out_name, "aten::copy.out");
ET_DEFINE_OPERATOR_NAME(copy_inplace_name, "aten::copy_");
ET_DEFINE_OPERATOR_NAME(alias_copy_out_name, "aten::alias_copy.out");

using ::executorch::aten::MemoryFormat;
using std::optional;

// A given dim_order must be out's (or empty for a 0-dim / default request).
bool check_dim_order_arg(KernelRuntimeContext& ctx, const char* op,
                         const optional<ArrayRef<int64_t>>& dim_order, const Tensor& out) {
  if (!dim_order.has_value()) {
    return true;
  }
  if (dim_order->empty()) {
    ET_KERNEL_CHECK_MSG(ctx, out.dim() <= 1 || is_contiguous_dim_order(out), InvalidArgument, false,
                        "%s: an empty 'dim_order' needs a contiguous 'out'", op);
    return true;
  }
  ET_KERNEL_CHECK_MSG(ctx, static_cast<ssize_t>(dim_order->size()) == out.dim(), InvalidArgument,
                      false, "%s: argument 'dim_order' has %zu entries, 'out' has rank %zd", op,
                      dim_order->size(), static_cast<ssize_t>(out.dim()));
  for (size_t i = 0; i < dim_order->size(); ++i) {
    ET_KERNEL_CHECK_MSG(ctx, (*dim_order)[i] == out.dim_order()[i], InvalidArgument, false,
                        "%s: argument 'dim_order' does not match the dim order of 'out'", op);
  }
  return true;
}

Tensor& to_dim_order_copy_out(KernelRuntimeContext& ctx, const Tensor& in, bool non_blocking,
                              optional<ArrayRef<int64_t>> dim_order, Tensor& out) {
  const char* op = log_name(to_dim_order_copy_out_name);
  (void)non_blocking;
  if (check_dim_order_arg(ctx, op, dim_order, out) && resize_out_like(ctx, op, out, in)) {
    copy_convert(ctx, op, in, out);
  }
  return out;
}

Tensor& clone_dim_order_out(KernelRuntimeContext& ctx, const Tensor& in, bool non_blocking,
                            optional<ArrayRef<int64_t>> dim_order, Tensor& out) {
  const char* op = log_name(clone_dim_order_out_name);
  (void)non_blocking;
  if (check_same_dtype(ctx, op, "self", in, "out", out) &&
      check_dim_order_arg(ctx, op, dim_order, out) && resize_out_like(ctx, op, out, in)) {
    copy_strided(ctx, op, in, out);
  }
  return out;
}

Tensor& clone_out(KernelRuntimeContext& ctx, const Tensor& in, optional<MemoryFormat> memory_format,
                  Tensor& out) {
  const char* op = log_name(clone_out_name);
  (void)memory_format;  // out's dim order is the layout
  if (check_same_dtype(ctx, op, "self", in, "out", out) && resize_out_like(ctx, op, out, in)) {
    copy_strided(ctx, op, in, out);
  }
  return out;
}

Tensor& to_copy_out(KernelRuntimeContext& ctx, const Tensor& in, bool non_blocking,
                    optional<MemoryFormat> memory_format, Tensor& out) {
  const char* op = log_name(to_copy_out_name);
  (void)non_blocking;
  (void)memory_format;
  if (resize_out_like(ctx, op, out, in)) {
    copy_convert(ctx, op, in, out);
  }
  return out;
}

Tensor& copy_out(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& src, bool non_blocking,
                 Tensor& out) {
  const char* op = log_name(copy_out_name);
  (void)non_blocking;
  ET_KERNEL_CHECK_MSG(ctx, broadcastable_to(src.sizes(), in.sizes()), InvalidArgument, out,
                      "%s: argument 'src' does not broadcast to 'self'", op);
  if (resize_out_like(ctx, op, out, in)) {
    copy_convert(ctx, op, src, out);
  }
  return out;
}

Tensor& copy_inplace(KernelRuntimeContext& ctx, Tensor& self, const Tensor& src,
                     bool non_blocking) {
  const char* op = log_name(copy_inplace_name);
  (void)non_blocking;
  ET_KERNEL_CHECK_MSG(ctx, broadcastable_to(src.sizes(), self.sizes()), InvalidArgument, self,
                      "%s: argument 'src' does not broadcast to 'self'", op);
  copy_convert(ctx, op, src, self);
  return self;
}

Tensor& alias_copy_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  const char* op = log_name(alias_copy_out_name);
  if (check_same_dtype(ctx, op, "self", in, "out", out) && resize_out_like(ctx, op, out, in)) {
    copy_strided(ctx, op, in, out);
  }
  return out;
}

ETK_REGISTER_KERNEL(to_dim_order_copy_out_name, to_dim_order_copy_out);
ETK_REGISTER_KERNEL(clone_dim_order_out_name, clone_dim_order_out);
ETK_REGISTER_KERNEL(clone_out_name, clone_out);
ETK_REGISTER_KERNEL(to_copy_out_name, to_copy_out);
ETK_REGISTER_KERNEL(copy_out_name, copy_out);
ETK_REGISTER_KERNEL(copy_inplace_name, copy_inplace);
ETK_REGISTER_KERNEL(alias_copy_out_name, alias_copy_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
