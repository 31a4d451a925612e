/*
 * Strided copies shared by the copy, layout and dtype-conversion kernels.
 */
#include <cstring>

#include <executorch/runtime/kernels/detail/elementwise.h>

namespace executorch {
namespace kernels {
namespace detail {

bool copy_strided(KernelRuntimeContext& ctx, const char* op, const Tensor& in, const Tensor& out) {
  if (in.scalar_type() != out.scalar_type()) {
    ET_LOG(Error, "%s: copy_strided needs equal dtypes (%s vs %s)", op,
           dtype_name(in.scalar_type()), dtype_name(out.scalar_type()));
    ctx.fail(Error::InvalidArgument);
    return false;
  }
  const Tensor* ops[2] = {&out, &in};
  StridedLoop<2> L;
  if (!make_strided_loop(ops, &L)) {
    return internal::bad_shapes(ctx, op);
  }
  if (L.numel == 0) {
    return true;
  }
  const size_t es = static_cast<size_t>(out.element_size());
  const char* src = static_cast<const char*>(in.const_data_ptr());
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  if (src == dst && L.flat()) {
    return true;  // in place over the same bytes
  }
  for_each_run(L, [&](const int64_t* off, int64_t n, const int64_t* s) {
    char* d = dst + off[0] * static_cast<int64_t>(es);
    const char* p = src + off[1] * static_cast<int64_t>(es);
    if (s[0] == 1 && s[1] == 1) {
      std::memmove(d, p, static_cast<size_t>(n) * es);
      return;
    }
    switch (es) {
#define ETK_COPY_CASE(T)                         \
  case sizeof(T): {                              \
    T* dt = reinterpret_cast<T*>(d);             \
    const T* st = reinterpret_cast<const T*>(p); \
    for (int64_t i = 0; i < n; ++i) {            \
      dt[i * s[0]] = st[i * s[1]];               \
    }                                            \
    break;                                       \
  }
      ETK_COPY_CASE(uint8_t)
      ETK_COPY_CASE(uint16_t)
      ETK_COPY_CASE(uint32_t)
      ETK_COPY_CASE(uint64_t)
#undef ETK_COPY_CASE
      default:
        for (int64_t i = 0; i < n; ++i) {
          std::memcpy(d + i * s[0] * static_cast<int64_t>(es),
                      p + i * s[1] * static_cast<int64_t>(es), es);
        }
    }
  });
  return true;
}

bool copy_convert(KernelRuntimeContext& ctx, const char* op, const Tensor& in, const Tensor& out) {
  if (in.scalar_type() == out.scalar_type()) {
    return copy_strided(ctx, op, in, out);
  }
  using ::executorch::runtime::isIntegralType;
  const ScalarType src = in.scalar_type();
  const ScalarType dst = out.scalar_type();
  if (!dtype_in(src, dtypes::kRealHBBF16)) {
    return internal::bad_dtype(ctx, op, "self", src);
  }
  if (!dtype_in(dst, dtypes::kRealHBBF16)) {
    return internal::bad_dtype(ctx, op, "out", dst);
  }
  // Integers convert exactly through int64, everything else through double
  // (a float source keeps its value; a float -> int conversion truncates).
  if (isIntegralType(src, true) && isIntegralType(dst, true)) {
    if (dst == ScalarType::Bool) {
      return apply_unary<int64_t>(ctx, op, in, out, [](int64_t v) { return v != 0; });
    }
    return apply_unary<int64_t>(ctx, op, in, out, [](int64_t v) { return v; });
  }
  if (src == ScalarType::Float && dst != ScalarType::Bool) {
    return apply_unary<float>(ctx, op, in, out, [](float v) { return v; });
  }
  if (dst == ScalarType::Bool) {
    return apply_unary<double>(ctx, op, in, out, [](double v) { return v != 0.0; });
  }
  return apply_unary<double>(ctx, op, in, out, [](double v) { return v; });
}

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
