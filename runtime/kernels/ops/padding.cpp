/*
 * reflection_pad{1,2,3}d and replication_pad{1,2,3}d: pad the last 1, 2 or 3
 * dims; `padding` is (left, right) for the last dim, then (top, bottom), then
 * (front, back). A negative pad crops. Reflection mirrors without repeating
 * the edge (each pad must be smaller than its dim); replication repeats the
 * edge (the dim must not be empty). Any of the ten dtypes, any dim order.
 */
#include <executorch/runtime/kernels/detail/index_map.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(reflection_pad1d_out_name, "aten::reflection_pad1d.out");
ET_DEFINE_OPERATOR_NAME(reflection_pad2d_out_name, "aten::reflection_pad2d.out");
ET_DEFINE_OPERATOR_NAME(reflection_pad3d_out_name, "aten::reflection_pad3d.out");
ET_DEFINE_OPERATOR_NAME(replication_pad1d_out_name, "aten::replication_pad1d.out");
ET_DEFINE_OPERATOR_NAME(replication_pad2d_out_name, "aten::replication_pad2d.out");
ET_DEFINE_OPERATOR_NAME(replication_pad3d_out_name, "aten::replication_pad3d.out");

template <int kDims, bool kReflect>
Tensor& pad(const char* op, KernelRuntimeContext& ctx, const Tensor& in, ArrayRef<int64_t> padding,
            Tensor& out) {
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBBF16) ||
      !check_same_dtype(ctx, op, "self", in, "out", out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, in.dim() == kDims + 1 || in.dim() == kDims + 2, InvalidArgument, out,
                      "%s: argument 'self' must have rank %d or %d, got %zd", op, kDims + 1,
                      kDims + 2, static_cast<ssize_t>(in.dim()));
  ET_KERNEL_CHECK_MSG(ctx, padding.size() == 2 * kDims, InvalidArgument, out,
                      "%s: argument 'padding' must have %d entries, got %zu", op, 2 * kDims,
                      padding.size());
  const ssize_t rank = in.dim();
  int64_t shape[kMaxDim];
  int64_t before[kMaxDim] = {0};
  for (ssize_t d = 0; d < rank; ++d) {
    shape[d] = in.sizes()[d];
  }
  for (int i = 0; i < kDims; ++i) {
    const ssize_t d = rank - 1 - i;
    const int64_t size = in.sizes()[d];
    const int64_t lo = padding[2 * i], hi = padding[2 * i + 1];
    if (kReflect) {
      ET_KERNEL_CHECK_MSG(ctx, lo < size && hi < size, InvalidArgument, out,
                          "%s: padding (%lld, %lld) must be smaller than dim %zd (size %lld)", op,
                          static_cast<long long>(lo), static_cast<long long>(hi), d,
                          static_cast<long long>(size));
    } else {
      ET_KERNEL_CHECK_MSG(ctx, size > 0, InvalidArgument, out,
                          "%s: dim %zd of argument 'self' is empty", op, d);
    }
    int64_t total;
    ET_KERNEL_CHECK_MSG(ctx,
                        lo > INT32_MIN && hi > INT32_MIN && checked_add(size, lo, &total) &&
                            checked_add(total, hi, &total) && total >= 0,
                        InvalidArgument, out, "%s: padding of dim %zd gives a negative size", op,
                        d);
    shape[d] = total;
    before[d] = lo;
  }
  if (!resize_out(ctx, op, out, ArrayRef<int64_t>(shape, static_cast<size_t>(rank)))) {
    return out;
  }
  map_elements(out, [&](const int64_t* oi, int64_t* si) {
    for (ssize_t d = 0; d < rank; ++d) {
      const int64_t size = in.sizes()[d];
      int64_t j = oi[d] - before[d];
      if (kReflect) {
        j = j < 0 ? -j : j;
        j = j >= size ? 2 * (size - 1) - j : j;
      } else {
        j = j < 0 ? 0 : (j >= size ? size - 1 : j);
      }
      si[d] = j;
    }
    return &in;
  });
  return out;
}

#define ETK_PAD(name, dims, reflect)                                                         \
  Tensor& name##_out(KernelRuntimeContext& ctx, const Tensor& in, ArrayRef<int64_t> padding, \
                     Tensor& out) {                                                          \
    return pad<dims, reflect>(log_name(name##_out_name), ctx, in, padding, out);             \
  }                                                                                          \
  ETK_REGISTER_KERNEL(name##_out_name, name##_out);

ETK_PAD(reflection_pad1d, 1, true)
ETK_PAD(reflection_pad2d, 2, true)
ETK_PAD(reflection_pad3d, 3, true)
ETK_PAD(replication_pad1d, 1, false)
ETK_PAD(replication_pad2d, 2, false)
ETK_PAD(replication_pad3d, 3, false)
#undef ETK_PAD

}  // namespace
}  // namespace kernels
}  // namespace executorch
