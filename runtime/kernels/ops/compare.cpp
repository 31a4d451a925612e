/*
 * Comparisons (eq, ne, lt, le, gt, ge; Scalar and Tensor forms), computed in
 * the promoted dtype of the operands and stored into out's dtype (normally
 * Bool).
 */
#include <executorch/runtime/kernels/detail/helpers.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

constexpr DtypeSet kCmpCompute = dtypes::kFloat | dtype_bit(ScalarType::Long) | dtypes::kBool;

template <class Cmp>
Tensor& compare_tensor(const char* op, KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b,
                       Tensor& out) {
  if (!check_dtype_in(ctx, op, "self", a, dtypes::kRealHBBF16) ||
      !check_dtype_in(ctx, op, "other", b, dtypes::kRealHBBF16) ||
      !check_dtype_in(ctx, op, "out", out, dtypes::kRealHBBF16)) {
    return out;
  }
  const ScalarType common = ::executorch::runtime::promoteTypes(a.scalar_type(), b.scalar_type());
  if (!resize_out_to_broadcast(ctx, op, out, {&a, &b}, {"self", "other"})) {
    return out;
  }
  dispatch_dtype<kCmpCompute>(ctx, op, compute_type(common), [&](auto tag) {
    using CT = typename decltype(tag)::type;
    apply_binary<CT>(ctx, op, a, b, out, [](CT x, CT y) -> bool { return Cmp()(x, y); });
  });
  return out;
}

template <class Cmp>
Tensor& compare_scalar(const char* op, KernelRuntimeContext& ctx, const Tensor& a, const Scalar& b,
                       Tensor& out) {
  if (!check_dtype_in(ctx, op, "self", a, dtypes::kRealHBBF16) ||
      !check_dtype_in(ctx, op, "out", out, dtypes::kRealHBBF16) ||
      !resize_out_like(ctx, op, out, a)) {
    return out;
  }
  const ScalarType common = promote_with_scalar(a.scalar_type(), b);
  dispatch_dtype<kCmpCompute>(ctx, op, compute_type(common), [&](auto tag) {
    using CT = typename decltype(tag)::type;
    const CT v = scalar_to<CT>(b);
    apply_unary<CT>(ctx, op, a, out, [v](CT x) -> bool { return Cmp()(x, v); });
  });
  return out;
}

struct Eq {
  template <class T>
  bool operator()(T a, T b) const {
    return a == b;
  }
};
struct Ne {
  template <class T>
  bool operator()(T a, T b) const {
    return a != b;
  }
};
struct Lt {
  template <class T>
  bool operator()(T a, T b) const {
    return a < b;
  }
};
struct Le {
  template <class T>
  bool operator()(T a, T b) const {
    return a <= b;
  }
};
struct Gt {
  template <class T>
  bool operator()(T a, T b) const {
    return a > b;
  }
};
struct Ge {
  template <class T>
  bool operator()(T a, T b) const {
    return a >= b;
  }
};

#define ETK_COMPARE_OPS(name, Cmp)                                                       \
  ET_DEFINE_OPERATOR_NAME(name##_tensor_out_name, "aten::" #name ".Tensor_out");         \
  ET_DEFINE_OPERATOR_NAME(name##_scalar_out_name, "aten::" #name ".Scalar_out");         \
  Tensor& name##_tensor_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, \
                            Tensor& out) {                                               \
    return compare_tensor<Cmp>(log_name(name##_tensor_out_name), ctx, a, b, out);        \
  }                                                                                      \
  Tensor& name##_scalar_out(KernelRuntimeContext& ctx, const Tensor& a, const Scalar& b, \
                            Tensor& out) {                                               \
    return compare_scalar<Cmp>(log_name(name##_scalar_out_name), ctx, a, b, out);        \
  }                                                                                      \
  ETK_REGISTER_KERNEL(name##_tensor_out_name, name##_tensor_out);                        \
  ETK_REGISTER_KERNEL(name##_scalar_out_name, name##_scalar_out);

ETK_COMPARE_OPS(eq, Eq)
ETK_COMPARE_OPS(ne, Ne)
ETK_COMPARE_OPS(lt, Lt)
ETK_COMPARE_OPS(le, Le)
ETK_COMPARE_OPS(gt, Gt)
ETK_COMPARE_OPS(ge, Ge)

#undef ETK_COMPARE_OPS

}  // namespace
}  // namespace kernels
}  // namespace executorch
