/*
 * arange.start_out(start, end, step) and arange.out(end): a 1-D out of
 * ceil((end - start) / step) elements in out's dtype (integers, float16,
 * bfloat16, float32, float64).
 */
#include <cmath>

#include <executorch/runtime/kernels/detail/shape_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(arange_start_out_name, "aten::arange.start_out");
ET_DEFINE_OPERATOR_NAME(arange_out_name, "aten::arange.out");

double scalar_value(const Scalar& s) {
  if (s.isFloatingPoint()) {
    return s.to<double>();
  }
  if (s.isBoolean()) {
    return s.to<bool>() ? 1.0 : 0.0;
  }
  return static_cast<double>(s.to<int64_t>());
}

Tensor& arange_impl(const char* op, KernelRuntimeContext& ctx, const Scalar& start,
                    const Scalar& end, const Scalar& step, Tensor& out) {
  if (!check_dtype_in(ctx, op, "out", out, dtypes::kRealHBF16) ||
      !check_rank(ctx, op, "out", out, 1)) {
    return out;
  }
  const double a = scalar_value(start), b = scalar_value(end), s = scalar_value(step);
  ET_KERNEL_CHECK_MSG(ctx, s != 0 && std::isfinite(a) && std::isfinite(b) && std::isfinite(s),
                      InvalidArgument, out,
                      "%s: argument 'step' must be non-zero and the bounds finite", op);
  ET_KERNEL_CHECK_MSG(ctx, (s > 0 && b >= a) || (s < 0 && b <= a), InvalidArgument, out,
                      "%s: argument 'end' is on the wrong side of 'start' for the sign of 'step'",
                      op);
  const bool all_int =
      !start.isFloatingPoint() && !end.isFloatingPoint() && !step.isFloatingPoint();
  // The length is computed without wrapping and checked against the dim
  // limit before anything is written: `out` is resized to exactly n.
  int64_t n;
  if (all_int) {
    // |end - start| < 2^64 always fits in uint64 (b >= a for a positive step).
    const int64_t ia = start.to<int64_t>(), ib = end.to<int64_t>(), is = step.to<int64_t>();
    const uint64_t span = is > 0 ? static_cast<uint64_t>(ib) - static_cast<uint64_t>(ia)
                                 : static_cast<uint64_t>(ia) - static_cast<uint64_t>(ib);
    const uint64_t mag = is > 0 ? static_cast<uint64_t>(is) : 0 - static_cast<uint64_t>(is);
    const uint64_t len = span / mag + (span % mag != 0 ? 1 : 0);
    ET_KERNEL_CHECK_MSG(ctx, len <= static_cast<uint64_t>(kMaxDimSize), InvalidArgument, out,
                        "%s: the result would have %llu elements, more than a dim can hold", op,
                        static_cast<unsigned long long>(len));
    n = static_cast<int64_t>(len);
  } else {
    const double len = std::ceil((b - a) / s);
    ET_KERNEL_CHECK_MSG(ctx, len >= 0 && len <= static_cast<double>(kMaxDimSize), InvalidArgument,
                        out, "%s: the result would have %g elements, more than a dim can hold", op,
                        len);
    n = static_cast<int64_t>(len);
  }
  const int64_t shape[1] = {n};
  if (!resize_out(ctx, op, out, ArrayRef<int64_t>(shape, 1))) {
    return out;
  }
  dispatch_dtype<dtypes::kRealHBF16>(ctx, op, out.scalar_type(), [&](auto tag) {
    using CTYPE = typename decltype(tag)::type;
    CTYPE* o = out.mutable_data_ptr<CTYPE>();
    if (all_int) {
      // Modulo-2^64 steps: every value lies in [start, end), so the result is exact.
      const uint64_t ia = static_cast<uint64_t>(start.to<int64_t>());
      const uint64_t is = static_cast<uint64_t>(step.to<int64_t>());
      for (int64_t i = 0; i < n; ++i) {
        o[i] = static_cast<CTYPE>(static_cast<int64_t>(ia + static_cast<uint64_t>(i) * is));
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        o[i] = static_cast<CTYPE>(a + static_cast<double>(i) * s);
      }
    }
  });
  return out;
}

Tensor& arange_start_out(KernelRuntimeContext& ctx, const Scalar& start, const Scalar& end,
                         const Scalar& step, Tensor& out) {
  return arange_impl(log_name(arange_start_out_name), ctx, start, end, step, out);
}

Tensor& arange_out(KernelRuntimeContext& ctx, const Scalar& end, Tensor& out) {
  return arange_impl(log_name(arange_out_name), ctx, Scalar(static_cast<int64_t>(0)), end,
                     Scalar(static_cast<int64_t>(1)), out);
}

}  // namespace

ETK_REGISTER_KERNEL(arange_start_out_name, arange_start_out);
ETK_REGISTER_KERNEL(arange_out_name, arange_out);

}  // namespace kernels
}  // namespace executorch
