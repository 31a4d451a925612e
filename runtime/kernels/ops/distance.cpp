/*
 * p-norm distances: _cdist_forward.out (every row of x1 against every row
 * of x2, batch dims broadcast) and _pdist_forward.out (every pair of rows of
 * a matrix, upper triangle in row order). p = 0 counts differing entries,
 * p = inf takes the largest difference. Floating dtypes; sums in double.
 */
#include <cmath>
#include <limits>
#include <optional>

#include <executorch/runtime/kernels/detail/shape_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(cdist_forward_out_name, "aten::_cdist_forward.out");
ET_DEFINE_OPERATOR_NAME(pdist_forward_out_name, "aten::_pdist_forward.out");

/* Accumulates |a - b| the way norm p needs, then finishes it. */
struct PNorm {
  double p;
  double acc = 0;
  void add(double diff) {
    const double a = std::fabs(diff);
    if (p == 0) {
      acc += a != 0 ? 1 : 0;
    } else if (std::isinf(p)) {
      acc = a > acc || std::isnan(a) ? a : acc;
    } else if (p == 1) {
      acc += a;
    } else if (p == 2) {
      acc += a * a;
    } else {
      acc += std::pow(a, p);
    }
  }
  double result() const {
    if (p == 0 || std::isinf(p) || p == 1) {
      return acc;
    }
    return p == 2 ? std::sqrt(acc) : std::pow(acc, 1.0 / p);
  }
};

bool check_p(KernelRuntimeContext& ctx, const char* op, double p) {
  ET_KERNEL_CHECK_MSG(ctx, p >= 0, InvalidArgument, false,
                      "%s: argument 'p' (%g) must be non-negative", op, p);
  return true;
}

/* Element (row, col) of a matrix slice at element offset `base`. */
inline const char* at(const Tensor& t, int64_t base, int64_t row, int64_t col) {
  const ssize_t r = t.dim();
  return static_cast<const char*>(t.const_data_ptr()) +
         (base + row * t.strides()[r - 2] + col * t.strides()[r - 1]) * t.element_size();
}

Tensor& cdist_forward_out(KernelRuntimeContext& ctx, const Tensor& x1, const Tensor& x2, double p,
                          std::optional<int64_t> compute_mode, Tensor& out) {
  (void)compute_mode;  // only selects an algorithm; results are the same
  const char* op = log_name(cdist_forward_out_name);
  if (!check_dtype_in(ctx, op, "x1", x1, dtypes::kFloatHBF16) ||
      !check_same_dtype(ctx, op, "x1", x1, "x2", x2) ||
      !check_same_dtype(ctx, op, "x1", x1, "out", out) || !check_p(ctx, op, p)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, x1.dim() >= 2 && x1.dim() == x2.dim(), InvalidArgument, out,
                      "%s: arguments 'x1' and 'x2' must have the same rank, at least 2", op);
  const ssize_t r = x1.dim();
  const int64_t m = x1.sizes()[r - 1];
  ET_KERNEL_CHECK_MSG(ctx, x2.sizes()[r - 1] == m, InvalidArgument, out,
                      "%s: arguments 'x1' and 'x2' must have the same last dim", op);
  int64_t shape[kMaxDim];
  for (ssize_t d = 0; d < r - 2; ++d) {
    const int64_t a = x1.sizes()[d], b = x2.sizes()[d];
    ET_KERNEL_CHECK_MSG(ctx, a == b || a == 1 || b == 1, InvalidArgument, out,
                        "%s: the batch dims of 'x1' and 'x2' do not broadcast", op);
    shape[d] = a == 1 ? b : a;
  }
  const int64_t rows1 = x1.sizes()[r - 2], rows2 = x2.sizes()[r - 2];
  shape[r - 2] = rows1;
  shape[r - 1] = rows2;
  if (!resize_out(ctx, op, out, ArrayRef<int64_t>(shape, static_cast<size_t>(r)))) {
    return out;
  }
  const LoadFn<double> ld = load_fn<double>(x1.scalar_type());
  const StoreFn<double> st = store_fn<double>(out.scalar_type());
  const int64_t batches = numel_of(shape, static_cast<int>(r - 2));
  for (int64_t b = 0; b < batches; ++b) {
    // Batch index b in the broadcast batch shape -> offsets in x1, x2 and out.
    int64_t flat = b, o1 = 0, o2 = 0, oo = 0;
    for (ssize_t d = r - 3; d >= 0; --d) {
      const int64_t i = flat % shape[d];
      flat /= shape[d];
      o1 += (x1.sizes()[d] == 1 ? 0 : i) * x1.strides()[d];
      o2 += (x2.sizes()[d] == 1 ? 0 : i) * x2.strides()[d];
      oo += i * out.strides()[d];
    }
    for (int64_t i = 0; i < rows1; ++i) {
      for (int64_t j = 0; j < rows2; ++j) {
        PNorm norm{p};
        for (int64_t k = 0; k < m; ++k) {
          norm.add(ld(at(x1, o1, i, k)) - ld(at(x2, o2, j, k)));
        }
        st(norm.result(),
           static_cast<char*>(out.mutable_data_ptr()) +
               (oo + i * out.strides()[r - 2] + j * out.strides()[r - 1]) * out.element_size());
      }
    }
  }
  return out;
}

Tensor& pdist_forward_out(KernelRuntimeContext& ctx, const Tensor& in, double p, Tensor& out) {
  const char* op = log_name(pdist_forward_out_name);
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kFloatHBF16) ||
      !check_same_dtype(ctx, op, "self", in, "out", out) || !check_rank(ctx, op, "self", in, 2) ||
      !check_p(ctx, op, p)) {
    return out;
  }
  const int64_t n = in.sizes()[0], m = in.sizes()[1];
  const int64_t shape[1] = {n > 1 ? n * (n - 1) / 2 : 0};
  if (!resize_out(ctx, op, out, ArrayRef<int64_t>(shape, 1))) {
    return out;
  }
  const LoadFn<double> ld = load_fn<double>(in.scalar_type());
  const StoreFn<double> st = store_fn<double>(out.scalar_type());
  char* y = static_cast<char*>(out.mutable_data_ptr());
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = i + 1; j < n; ++j, ++k) {
      PNorm norm{p};
      for (int64_t c = 0; c < m; ++c) {
        norm.add(ld(at(in, 0, i, c)) - ld(at(in, 0, j, c)));
      }
      st(norm.result(), y + k * out.strides()[0] * out.element_size());
    }
  }
  return out;
}

ETK_REGISTER_KERNEL(cdist_forward_out_name, cdist_forward_out);
ETK_REGISTER_KERNEL(pdist_forward_out_name, pdist_forward_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
