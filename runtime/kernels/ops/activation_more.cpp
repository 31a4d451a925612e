/*
 * elu (with its scale and input_scale) and glu (the first half of self
 * along dim, gated by the sigmoid of the second): floating dtypes, computed
 * in float (double for Double).
 */
#include <cmath>

#include <executorch/runtime/kernels/detail/shape_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(elu_out_name, "aten::elu.out");
ET_DEFINE_OPERATOR_NAME(glu_out_name, "aten::glu.out");

// elu(x) = scale * (x > 0 ? x : alpha * (exp(x * input_scale) - 1)).
Tensor& elu_out(KernelRuntimeContext& ctx, const Tensor& in, const Scalar& alpha,
                const Scalar& scale, const Scalar& input_scale, Tensor& out) {
  const char* op = log_name(elu_out_name);
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kFloatHBF16) ||
      !check_same_dtype(ctx, op, "self", in, "out", out) || !resize_out_like(ctx, op, out, in)) {
    return out;
  }
  dispatch_dtype<dtypes::kFloat>(ctx, op, compute_type(in.scalar_type()), [&](auto tag) {
    using CT = typename decltype(tag)::type;
    const CT a = scalar_to<CT>(alpha), s = scalar_to<CT>(scale), is = scalar_to<CT>(input_scale);
    apply_unary<CT>(ctx, op, in, out, [a, s, is](CT x) -> CT {
      return x > CT(0) ? s * x : s * a * std::expm1(x * is);
    });
  });
  return out;
}

// glu: out = a * sigmoid(b), a and b the halves of self along dim (its size must be even).
Tensor& glu_out(KernelRuntimeContext& ctx, const Tensor& in, int64_t dim, Tensor& out) {
  const char* op = log_name(glu_out_name);
  int64_t d;
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kFloatHBF16) ||
      !check_same_dtype(ctx, op, "self", in, "out", out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, in.dim() > 0, InvalidArgument, out,
                      "%s: argument 'self' must have rank 1 or more", op);
  if (!normalize_dim(ctx, op, "dim", dim, in.dim(), &d)) {
    return out;
  }
  const int64_t len = in.sizes()[d];
  ET_KERNEL_CHECK_MSG(ctx, len % 2 == 0, InvalidArgument, out,
                      "%s: dim %lld of argument 'self' has odd size %lld", op,
                      static_cast<long long>(d), static_cast<long long>(len));
  int64_t shape[kMaxDim];
  sizes64(in, shape);
  shape[d] = len / 2;
  if (!resize_out(ctx, op, out, ArrayRef<int64_t>(shape, static_cast<size_t>(in.dim())))) {
    return out;
  }
  const int64_t half = (len / 2) * in.strides()[d];
  dispatch_dtype<dtypes::kFloat>(ctx, op, compute_type(in.scalar_type()), [&](auto tag) {
    using CT = typename decltype(tag)::type;
    const LoadFn<CT> ld = load_fn<CT>(in.scalar_type());
    const StoreFn<CT> st = store_fn<CT>(out.scalar_type());
    const int64_t es = in.element_size();
    const char* x = static_cast<const char*>(in.const_data_ptr());
    char* y = static_cast<char*>(out.mutable_data_ptr());
    for (int64_t i = 0; i < out.numel(); ++i) {
      // out's logical index i is the same index of the first half of self.
      int64_t flat = i, ioff = 0, ooff = 0;
      for (ssize_t k = in.dim() - 1; k >= 0; --k) {
        const int64_t c = flat % shape[k];
        flat /= shape[k];
        ioff += c * in.strides()[k];
        ooff += c * out.strides()[k];
      }
      const CT a = ld(x + ioff * es), b = ld(x + (ioff + half) * es);
      st(a / (CT(1) + std::exp(-b)), y + ooff * es);
    }
  });
  return out;
}

ETK_REGISTER_KERNEL(elu_out_name, elu_out);
ETK_REGISTER_KERNEL(glu_out_name, glu_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
