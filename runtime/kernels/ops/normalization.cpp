/*
 * _native_batch_norm_legit_no_training.out, _native_batch_norm_legit (.out
 * and .no_stats_out, training mode), native_layer_norm.out and
 * native_group_norm.out, each with three outs (packed as a tensor list by the emitter). float32,
 * float64, float16 and bfloat16 (computed in float / double). Batch norm
 * takes contiguous or channels-last input; layer norm normalizes over the
 * trailing dims of a contiguous input.
 */
#include <algorithm>
#include <cmath>
#include <tuple>
#include <type_traits>
#include <vector>

#include <executorch/runtime/kernels/compute/parallel.h>
#include <executorch/runtime/kernels/compute/vmath.h>
#include <executorch/runtime/kernels/detail/shape_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(batch_norm_no_training_out_name,
                        "aten::_native_batch_norm_legit_no_training.out");
ET_DEFINE_OPERATOR_NAME(native_layer_norm_out_name, "aten::native_layer_norm.out");
ET_DEFINE_OPERATOR_NAME(native_group_norm_out_name, "aten::native_group_norm.out");
ET_DEFINE_OPERATOR_NAME(batch_norm_legit_out_name, "aten::_native_batch_norm_legit.out");
ET_DEFINE_OPERATOR_NAME(batch_norm_legit_no_stats_out_name,
                        "aten::_native_batch_norm_legit.no_stats_out");

using std::optional;

template <class T>
using ComputeOf = std::conditional_t<std::is_same<T, double>::value, double, float>;

using Ret3 = std::tuple<Tensor&, Tensor&, Tensor&>;

bool check_param(KernelRuntimeContext& ctx, const char* op, const char* arg,
                 const optional<Tensor>& t, const Tensor& in, int64_t n) {
  if (!t.has_value()) {
    return true;
  }
  if (!check_same_dtype(ctx, op, arg, *t, "input", in)) {
    return false;
  }
  ET_KERNEL_CHECK_MSG(ctx, t->numel() == n, InvalidArgument, false,
                      "%s: argument '%s' must have %lld elements, got %zd", op, arg,
                      static_cast<long long>(n), t->numel());
  return true;
}

// f(i) for every i in [0, items), `len` elements each, split across the thread pool: every
// element is computed by itself, so the split never changes a result.
template <class F>
void for_each_bn_plane(int64_t items, int64_t len, const F& f) {
  compute::parallel_items(items, static_cast<double>(len), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      f(i);
    }
  });
}

template <class T>
void batch_norm_impl(const Tensor& in, const optional<Tensor>& weight, const optional<Tensor>& bias,
                     const Tensor& mean, const Tensor& var, double eps, const Tensor& out) {
  using C = ComputeOf<T>;
  const int64_t n = in.size(0), c = in.size(1);
  const int64_t inner = c > 0 && n > 0 ? in.numel() / (n * c) : 0;
  const T* x = in.const_data_ptr<T>();
  T* y = out.mutable_data_ptr<T>();
  const T* w = weight.has_value() ? weight->const_data_ptr<T>() : nullptr;
  const T* b = bias.has_value() ? bias->const_data_ptr<T>() : nullptr;
  const T* m = mean.const_data_ptr<T>();
  const T* v = var.const_data_ptr<T>();
  constexpr int64_t kStackC = 1024;
  C scale_s[kStackC], shift_s[kStackC];
  std::vector<C> heap;
  C* scale = scale_s;
  C* shift = shift_s;
  if (c > kStackC) {
    heap.resize(static_cast<size_t>(2 * c));
    scale = heap.data();
    shift = heap.data() + c;
  }
  for (int64_t i = 0; i < c; ++i) {
    const C inv = C(1) / std::sqrt(static_cast<C>(v[i]) + static_cast<C>(eps));
    const C wi = w != nullptr ? static_cast<C>(w[i]) : C(1);
    const C bi = b != nullptr ? static_cast<C>(b[i]) : C(0);
    scale[i] = inv * wi;
    shift[i] = bi - static_cast<C>(m[i]) * inv * wi;
  }
  if constexpr (std::is_same<T, float>::value) {
    // float32 through the compute core's vector loops.
    const compute::VmathKernels& vm = compute::vmath();
    if (is_contiguous_dim_order(in)) {
      for_each_bn_plane(n * c, inner, [&](int64_t q) {
        const int64_t off = q * inner;
        vm.scale_shift(x + off, y + off, inner, scale[q % c], shift[q % c]);
      });
    } else if (c > 0) {  // channels-last: y = x * scale[c] + shift[c] along each row of c
      const int64_t rows = in.numel() / c;
      // Few channels: the rows of kGroup pixels at once, with scale and shift repeated kGroup
      // times, so every row is a whole number of vectors (c * 16 is a multiple of every lane
      // count); each element is still x * scale[its channel] + shift[its channel].
      constexpr int64_t kGroup = 16, kMaxGroupedC = 64;
      C wide_scale[kGroup * kMaxGroupedC], wide_shift[kGroup * kMaxGroupedC];
      int64_t width = c, wide_rows = rows;
      const C* row_scale = scale;
      const C* row_shift = shift;
      if (c <= kMaxGroupedC && rows >= kGroup) {
        for (int64_t i = 0; i < kGroup * c; ++i) {
          wide_scale[i] = scale[i % c];
          wide_shift[i] = shift[i % c];
        }
        width = kGroup * c;
        wide_rows = rows / kGroup;
        row_scale = wide_scale;
        row_shift = wide_shift;
      }
      // Blocks of about 4096 elements per call, so few channels do not pay a call per row.
      const int64_t rows_per_block = std::max<int64_t>(1, 4096 / width);
      for_each_bn_plane((wide_rows + rows_per_block - 1) / rows_per_block, rows_per_block * width,
                        [&](int64_t blk) {
                          const int64_t r0 = blk * rows_per_block;
                          vm.scale_shift_channels(x + r0 * width, y + r0 * width,
                                                  std::min(rows_per_block, wide_rows - r0), width,
                                                  row_scale, row_shift);
                        });
      const int64_t done = wide_rows * width;  // the pixels left over from the groups
      vm.scale_shift_channels(x + done, y + done, (in.numel() - done) / c, c, scale, shift);
    }
    return;
  }
  if (is_contiguous_dim_order(in)) {
    for_each_bn_plane(n * c, inner, [&](int64_t q) {
      const T* xp = x + q * inner;
      T* yp = y + q * inner;
      const C sc = scale[q % c], sh = shift[q % c];
      for (int64_t i = 0; i < inner; ++i) {
        yp[i] = static_cast<T>(static_cast<C>(xp[i]) * sc + sh);
      }
    });
  } else {  // channels-last: channel is the innermost dim
    for_each_bn_plane(c > 0 ? in.numel() / c : 0, c, [&](int64_t r) {
      const T* xp = x + r * c;
      T* yp = y + r * c;
      for (int64_t ci = 0; ci < c; ++ci) {
        yp[ci] = static_cast<T>(static_cast<C>(xp[ci]) * scale[ci] + shift[ci]);
      }
    });
  }
}

Ret3 batch_norm_no_training_out(KernelRuntimeContext& ctx, const Tensor& input,
                                const optional<Tensor>& weight, const optional<Tensor>& bias,
                                const Tensor& running_mean, const Tensor& running_var,
                                double momentum, double eps, Tensor& out, Tensor& mean_out,
                                Tensor& invstd_out) {
  (void)momentum;
  const char* op = log_name(batch_norm_no_training_out_name);
  Ret3 ret(out, mean_out, invstd_out);
  ET_KERNEL_CHECK_MSG(ctx, input.dim() >= 2, InvalidArgument, ret,
                      "%s: argument 'input' must have rank >= 2, got %zd", op, input.dim());
  if (!check_dtype_in(ctx, op, "input", input, dtypes::kFloatHBF16) ||
      !check_same_dtype(ctx, op, "input", input, "out", out) ||
      !check_same_dim_order(ctx, op, "input", input, "out", out)) {
    return ret;
  }
  ET_KERNEL_CHECK_MSG(ctx, is_contiguous_dim_order(input) || is_channels_last_dim_order(input),
                      InvalidArgument, ret,
                      "%s: argument 'input' must be contiguous or channels-last", op);
  const int64_t c = input.size(1);
  if (!check_param(ctx, op, "weight", weight, input, c) ||
      !check_param(ctx, op, "bias", bias, input, c) ||
      !check_param(ctx, op, "running_mean", running_mean, input, c) ||
      !check_param(ctx, op, "running_var", running_var, input, c)) {
    return ret;
  }
  ET_KERNEL_CHECK_MSG(ctx, eps >= 0, InvalidArgument, ret, "%s: argument 'eps' must be >= 0", op);
  if (!resize_out_like(ctx, op, out, input)) {
    return ret;
  }
  // The no-training variant returns empty saved statistics.
  const SizesType zero[1] = {0};
  if (mean_out.dim() == 1) {
    (void)resize_out(ctx, op, mean_out, ArrayRef<SizesType>(zero, 1));
  }
  if (invstd_out.dim() == 1) {
    (void)resize_out(ctx, op, invstd_out, ArrayRef<SizesType>(zero, 1));
  }
  if (ctx.failure_state() != Error::Ok) {
    return ret;
  }
  dispatch_dtype<dtypes::kFloatHBF16>(ctx, op, input.scalar_type(), [&](auto tag) {
    using CTYPE = typename decltype(tag)::type;
    batch_norm_impl<CTYPE>(input, weight, bias, running_mean, running_var, eps, out);
  });
  return ret;
}

template <class T>
void layer_norm_impl(const Tensor& in, const optional<Tensor>& weight, const optional<Tensor>& bias,
                     double eps, int64_t rows, int64_t cols, const Tensor& out,
                     const Tensor& mean_out, const Tensor& rstd_out) {
  using C = ComputeOf<T>;
  const T* x = in.const_data_ptr<T>();
  T* y = out.mutable_data_ptr<T>();
  const T* w = weight.has_value() ? weight->const_data_ptr<T>() : nullptr;
  const T* b = bias.has_value() ? bias->const_data_ptr<T>() : nullptr;
  T* mo = mean_out.mutable_data_ptr<T>();
  T* ro = rstd_out.mutable_data_ptr<T>();
  if constexpr (std::is_same<T, float>::value) {
    // float32 through the compute core's vector loops.
    const compute::VmathKernels& vm = compute::vmath();
    for (int64_t r = 0; r < rows; ++r) {
      const float* xp = x + r * cols;
      const float mean = cols > 0 ? vm.sum(xp, cols) / static_cast<float>(cols) : 0.0f;
      const float var = cols > 0 ? vm.sum_sq_dev(xp, cols, mean) / static_cast<float>(cols) : 0.0f;
      const float rstd = 1.0f / std::sqrt(var + static_cast<float>(eps));
      vm.normalize(xp, y + r * cols, cols, mean, rstd, w, b);
      if (mo != nullptr) {
        mo[r] = mean;
      }
      if (ro != nullptr) {
        ro[r] = rstd;
      }
    }
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const T* xp = x + r * cols;
    T* yp = y + r * cols;
    C sum = 0;
    for (int64_t i = 0; i < cols; ++i) {
      sum += static_cast<C>(xp[i]);
    }
    const C mean = cols > 0 ? sum / static_cast<C>(cols) : C(0);
    C sq = 0;
    for (int64_t i = 0; i < cols; ++i) {
      const C d = static_cast<C>(xp[i]) - mean;
      sq += d * d;
    }
    const C var = cols > 0 ? sq / static_cast<C>(cols) : C(0);
    const C rstd = C(1) / std::sqrt(var + static_cast<C>(eps));
    if (w != nullptr && b != nullptr) {
      for (int64_t i = 0; i < cols; ++i) {
        yp[i] = static_cast<T>((static_cast<C>(xp[i]) - mean) * rstd * static_cast<C>(w[i]) +
                               static_cast<C>(b[i]));
      }
    } else {
      for (int64_t i = 0; i < cols; ++i) {
        C v = (static_cast<C>(xp[i]) - mean) * rstd;
        if (w != nullptr) {
          v *= static_cast<C>(w[i]);
        }
        if (b != nullptr) {
          v += static_cast<C>(b[i]);
        }
        yp[i] = static_cast<T>(v);
      }
    }
    if (mo != nullptr) {
      mo[r] = static_cast<T>(mean);
    }
    if (ro != nullptr) {
      ro[r] = static_cast<T>(rstd);
    }
  }
}

Ret3 native_layer_norm_out(KernelRuntimeContext& ctx, const Tensor& input,
                           ArrayRef<int64_t> normalized_shape, const optional<Tensor>& weight,
                           const optional<Tensor>& bias, double eps, Tensor& out, Tensor& mean_out,
                           Tensor& rstd_out) {
  const char* op = log_name(native_layer_norm_out_name);
  Ret3 ret(out, mean_out, rstd_out);
  const ssize_t nd = static_cast<ssize_t>(normalized_shape.size());
  ET_KERNEL_CHECK_MSG(ctx, nd >= 1 && nd <= input.dim(), InvalidArgument, ret,
                      "%s: argument 'normalized_shape' must have 1..%zd entries, got %zd", op,
                      input.dim(), nd);
  if (!check_dtype_in(ctx, op, "input", input, dtypes::kFloatHBF16) ||
      !check_same_dtype(ctx, op, "input", input, "out", out) ||
      !check_same_dtype(ctx, op, "input", input, "mean", mean_out) ||
      !check_same_dtype(ctx, op, "input", input, "rstd", rstd_out) ||
      !check_contiguous(ctx, op, "input", input) || !check_contiguous(ctx, op, "out", out)) {
    return ret;
  }
  int64_t cols = 1;
  for (ssize_t i = 0; i < nd; ++i) {
    const ssize_t d = input.dim() - nd + i;
    ET_KERNEL_CHECK_MSG(
        ctx, input.size(d) == normalized_shape[i], InvalidArgument, ret,
        "%s: argument 'normalized_shape' entry %zd (%lld) does not match input dim %zd (%zd)", op,
        i, static_cast<long long>(normalized_shape[i]), d, input.size(d));
    // The entries equal input dims, but with another dim empty their
    // product can still exceed int64.
    ET_KERNEL_CHECK_MSG(ctx, checked_mul(cols, normalized_shape[i], &cols), InvalidArgument, ret,
                        "%s: argument 'normalized_shape' has more elements than int64 can count",
                        op);
  }
  if (!check_param(ctx, op, "weight", weight, input, cols) ||
      !check_param(ctx, op, "bias", bias, input, cols) || !resize_out_like(ctx, op, out, input)) {
    return ret;
  }
  SizesType stat[kMaxDim];
  for (ssize_t i = 0; i < input.dim(); ++i) {
    stat[i] = i < input.dim() - nd ? input.sizes()[i] : 1;
  }
  const ArrayRef<SizesType> stat_shape(stat, static_cast<size_t>(input.dim()));
  if (!resize_out(ctx, op, mean_out, stat_shape) || !resize_out(ctx, op, rstd_out, stat_shape)) {
    return ret;
  }
  const int64_t rows = cols > 0 ? input.numel() / cols : 0;
  if (input.numel() == 0 && rows == 0) {
    return ret;
  }
  dispatch_dtype<dtypes::kFloatHBF16>(ctx, op, input.scalar_type(), [&](auto tag) {
    using CTYPE = typename decltype(tag)::type;
    layer_norm_impl<CTYPE>(input, weight, bias, eps, rows, cols, out, mean_out, rstd_out);
  });
  return ret;
}

/*
 * Group norm: each of the N samples' C channels fall in `group` groups of
 * C / group channels; every group (its channels' HxW elements) is
 * normalized with its own mean and biased variance, then scaled and shifted
 * per channel. Statistics accumulate in double.
 */
// float32 group norm through the compute core's vector loops, as layer norm does: the statistics
// in float with vmath's partial sums (within a few ulp of a double accumulation for the sizes
// norms see), then (x - mean) * rstd per group and the per-channel scale and shift.
void group_norm_float(const float* x, float* y, const float* w, const float* b, float* mo,
                      float* ro, int64_t n, int64_t c, int64_t hxw, int64_t group, double eps) {
  const compute::VmathKernels& vm = compute::vmath();
  const int64_t per_group = c / group;
  const int64_t count = per_group * hxw;
  for (int64_t s = 0; s < n; ++s) {
    for (int64_t g = 0; g < group; ++g) {
      const int64_t base = (s * c + g * per_group) * hxw;
      const float mean = count > 0 ? vm.sum(x + base, count) / static_cast<float>(count) : 0.0f;
      const float var =
          count > 0 ? vm.sum_sq_dev(x + base, count, mean) / static_cast<float>(count) : 0.0f;
      const float rstd = 1.0f / std::sqrt(var + static_cast<float>(eps));
      vm.normalize(x + base, y + base, count, mean, rstd, nullptr, nullptr);
      for (int64_t ch = 0; ch < per_group; ++ch) {
        const int64_t channel = g * per_group + ch;
        if (w != nullptr || b != nullptr) {
          vm.scale_shift(y + base + ch * hxw, y + base + ch * hxw, hxw,
                         w != nullptr ? w[channel] : 1.0f, b != nullptr ? b[channel] : 0.0f);
        }
      }
      mo[s * group + g] = mean;
      ro[s * group + g] = rstd;
    }
  }
}

template <class T>
void group_norm_impl(const Tensor& in, const optional<Tensor>& weight, const optional<Tensor>& bias,
                     int64_t n, int64_t c, int64_t hxw, int64_t group, double eps,
                     const Tensor& out, const Tensor& mean_out, const Tensor& rstd_out) {
  using C = ComputeOf<T>;
  const T* x = in.const_data_ptr<T>();
  T* y = out.mutable_data_ptr<T>();
  const T* w = weight.has_value() ? weight->const_data_ptr<T>() : nullptr;
  const T* b = bias.has_value() ? bias->const_data_ptr<T>() : nullptr;
  T* mo = mean_out.mutable_data_ptr<T>();
  T* ro = rstd_out.mutable_data_ptr<T>();
  const int64_t per_group = c / group;
  const int64_t count = per_group * hxw;
  if constexpr (std::is_same<T, float>::value) {
    group_norm_float(x, y, w, b, mo, ro, n, c, hxw, group, eps);
    return;
  }
  for (int64_t s = 0; s < n; ++s) {
    for (int64_t g = 0; g < group; ++g) {
      const int64_t base = (s * c + g * per_group) * hxw;
      double sum = 0;
      for (int64_t i = 0; i < count; ++i) {
        sum += static_cast<double>(x[base + i]);
      }
      const double mean = count > 0 ? sum / static_cast<double>(count) : 0.0;
      double sq = 0;
      for (int64_t i = 0; i < count; ++i) {
        const double d = static_cast<double>(x[base + i]) - mean;
        sq += d * d;
      }
      const double var = count > 0 ? sq / static_cast<double>(count) : 0.0;
      const C rstd = static_cast<C>(1.0 / std::sqrt(var + eps));
      const C m = static_cast<C>(mean);
      for (int64_t ch = 0; ch < per_group; ++ch) {
        const int64_t channel = g * per_group + ch;
        const C scale = w != nullptr ? static_cast<C>(w[channel]) : C(1);
        const C shift = b != nullptr ? static_cast<C>(b[channel]) : C(0);
        const int64_t off = base + ch * hxw;
        for (int64_t i = 0; i < hxw; ++i) {
          y[off + i] = static_cast<T>((static_cast<C>(x[off + i]) - m) * rstd * scale + shift);
        }
      }
      mo[s * group + g] = static_cast<T>(m);
      ro[s * group + g] = static_cast<T>(rstd);
    }
  }
}

Ret3 native_group_norm_out(KernelRuntimeContext& ctx, const Tensor& input,
                           const optional<Tensor>& weight, const optional<Tensor>& bias, int64_t n,
                           int64_t c, int64_t hxw, int64_t group, double eps, Tensor& out,
                           Tensor& mean_out, Tensor& rstd_out) {
  const char* op = log_name(native_group_norm_out_name);
  Ret3 ret(out, mean_out, rstd_out);
  if (!check_dtype_in(ctx, op, "input", input, dtypes::kFloatHBF16) ||
      !check_same_dtype(ctx, op, "input", input, "out", out) ||
      !check_same_dtype(ctx, op, "input", input, "mean", mean_out) ||
      !check_same_dtype(ctx, op, "input", input, "rstd", rstd_out) ||
      !check_contiguous(ctx, op, "input", input) || !check_contiguous(ctx, op, "out", out)) {
    return ret;
  }
  ET_KERNEL_CHECK_MSG(ctx, input.dim() >= 2, InvalidArgument, ret,
                      "%s: argument 'input' must have rank 2 or more, got %zd", op,
                      static_cast<ssize_t>(input.dim()));
  int64_t numel = 0;
  ET_KERNEL_CHECK_MSG(
      ctx,
      n == input.size(0) && c == input.size(1) && hxw >= 0 && checked_mul(n, c, &numel) &&
          checked_mul(numel, hxw, &numel) && numel == input.numel(),
      InvalidArgument, ret, "%s: arguments N=%lld, C=%lld, HxW=%lld do not match the input's shape",
      op, static_cast<long long>(n), static_cast<long long>(c), static_cast<long long>(hxw));
  ET_KERNEL_CHECK_MSG(ctx, group > 0 && c % group == 0, InvalidArgument, ret,
                      "%s: argument 'group' (%lld) must be positive and divide C (%lld)", op,
                      static_cast<long long>(group), static_cast<long long>(c));
  if (!check_param(ctx, op, "weight", weight, input, c) ||
      !check_param(ctx, op, "bias", bias, input, c) || !resize_out_like(ctx, op, out, input)) {
    return ret;
  }
  const int64_t stat[2] = {n, group};
  if (!resize_out(ctx, op, mean_out, ArrayRef<int64_t>(stat, 2)) ||
      !resize_out(ctx, op, rstd_out, ArrayRef<int64_t>(stat, 2))) {
    return ret;
  }
  dispatch_dtype<dtypes::kFloatHBF16>(ctx, op, input.scalar_type(), [&](auto tag) {
    using CTYPE = typename decltype(tag)::type;
    group_norm_impl<CTYPE>(input, weight, bias, n, c, hxw, group, eps, out, mean_out, rstd_out);
  });
  return ret;
}

/*
 * Batch norm in training mode: each channel normalized with the batch's
 * mean and biased variance (statistics in double over N and the spatial
 * dims, any dim order); save_mean / save_invstd get them ([C]); the running
 * statistics, when given, move by `momentum` towards the batch's mean and
 * unbiased variance.
 */
Ret3 batch_norm_training(const char* op, KernelRuntimeContext& ctx, const Tensor& input,
                         const optional<Tensor>& weight, const optional<Tensor>& bias,
                         Tensor* running_mean, Tensor* running_var, double momentum, double eps,
                         Tensor& out, Tensor& save_mean, Tensor& save_invstd) {
  Ret3 ret(out, save_mean, save_invstd);
  ET_KERNEL_CHECK_MSG(ctx, input.dim() >= 2, InvalidArgument, ret,
                      "%s: argument 'input' must have rank >= 2, got %zd", op, input.dim());
  if (!check_dtype_in(ctx, op, "input", input, dtypes::kFloatHBF16) ||
      !check_same_dtype(ctx, op, "input", input, "out", out) ||
      !check_same_dtype(ctx, op, "input", input, "save_mean", save_mean) ||
      !check_same_dtype(ctx, op, "input", input, "save_invstd", save_invstd)) {
    return ret;
  }
  const int64_t c = input.size(1);
  const optional<Tensor> rm =
      running_mean != nullptr ? optional<Tensor>(*running_mean) : std::nullopt;
  const optional<Tensor> rv =
      running_var != nullptr ? optional<Tensor>(*running_var) : std::nullopt;
  if (!check_param(ctx, op, "weight", weight, input, c) ||
      !check_param(ctx, op, "bias", bias, input, c) ||
      !check_param(ctx, op, "running_mean", rm, input, c) ||
      !check_param(ctx, op, "running_var", rv, input, c)) {
    return ret;
  }
  ET_KERNEL_CHECK_MSG(ctx, eps >= 0, InvalidArgument, ret, "%s: argument 'eps' must be >= 0", op);
  const int64_t stat[1] = {c};
  if (!resize_out_like(ctx, op, out, input) ||
      !resize_out(ctx, op, save_mean, ArrayRef<int64_t>(stat, 1)) ||
      !resize_out(ctx, op, save_invstd, ArrayRef<int64_t>(stat, 1))) {
    return ret;
  }
  const int64_t n = input.numel();
  const int64_t count = c > 0 ? n / c : 0;
  ET_KERNEL_CHECK_MSG(ctx, count > 0 || c == 0, InvalidArgument, ret,
                      "%s: training needs at least one value per channel", op);
  int64_t inner = 1;
  for (ssize_t d = 2; d < input.dim(); ++d) {
    inner *= input.sizes()[d];
  }
  std::vector<double> sum(static_cast<size_t>(c), 0.0), sq(static_cast<size_t>(c), 0.0);
  const LoadFn<double> ld = load_fn<double>(input.scalar_type());
  const StoreFn<double> st = store_fn<double>(out.scalar_type());
  const int64_t es = input.element_size();
  const char* x = static_cast<const char*>(input.const_data_ptr());
  auto channel_of = [&](int64_t i) { return static_cast<size_t>((i / inner) % c); };
  for (int64_t i = 0; i < n; ++i) {
    sum[channel_of(i)] += ld(x + logical_to_offset(input, i) * es);
  }
  for (size_t ch = 0; ch < sum.size(); ++ch) {
    sum[ch] /= static_cast<double>(count);  // now the mean
  }
  for (int64_t i = 0; i < n; ++i) {
    const double dv = ld(x + logical_to_offset(input, i) * es) - sum[channel_of(i)];
    sq[channel_of(i)] += dv * dv;
  }
  char* y = static_cast<char*>(out.mutable_data_ptr());
  for (int64_t i = 0; i < n; ++i) {
    const size_t ch = channel_of(i);
    const double invstd = 1.0 / std::sqrt(sq[ch] / static_cast<double>(count) + eps);
    double v = (ld(x + logical_to_offset(input, i) * es) - sum[ch]) * invstd;
    if (weight.has_value()) {
      v *= ld(static_cast<const char*>(weight->const_data_ptr()) +
              logical_to_offset(*weight, static_cast<int64_t>(ch)) * es);
    }
    if (bias.has_value()) {
      v += ld(static_cast<const char*>(bias->const_data_ptr()) +
              logical_to_offset(*bias, static_cast<int64_t>(ch)) * es);
    }
    st(v, y + logical_to_offset(out, i) * es);
  }
  for (size_t ch = 0; ch < sum.size(); ++ch) {
    const int64_t k = static_cast<int64_t>(ch);
    const double var = sq[ch] / static_cast<double>(count);
    st(sum[ch],
       static_cast<char*>(save_mean.mutable_data_ptr()) + logical_to_offset(save_mean, k) * es);
    st(1.0 / std::sqrt(var + eps),
       static_cast<char*>(save_invstd.mutable_data_ptr()) + logical_to_offset(save_invstd, k) * es);
    if (running_mean != nullptr && running_var != nullptr) {
      char* pm = static_cast<char*>(running_mean->mutable_data_ptr()) +
                 logical_to_offset(*running_mean, k) * es;
      char* pv = static_cast<char*>(running_var->mutable_data_ptr()) +
                 logical_to_offset(*running_var, k) * es;
      const double unbiased = count > 1 ? sq[ch] / static_cast<double>(count - 1) : var;
      st((1 - momentum) * ld(pm) + momentum * sum[ch], pm);
      st((1 - momentum) * ld(pv) + momentum * unbiased, pv);
    }
  }
  return ret;
}

// Training: batch statistics (and running ones updated); otherwise the running statistics.
Ret3 batch_norm_legit_out(KernelRuntimeContext& ctx, const Tensor& input,
                          const optional<Tensor>& weight, const optional<Tensor>& bias,
                          Tensor& running_mean, Tensor& running_var, bool training, double momentum,
                          double eps, Tensor& out, Tensor& save_mean, Tensor& save_invstd) {
  if (!training) {
    return batch_norm_no_training_out(ctx, input, weight, bias, running_mean, running_var, momentum,
                                      eps, out, save_mean, save_invstd);
  }
  return batch_norm_training(log_name(batch_norm_legit_out_name), ctx, input, weight, bias,
                             &running_mean, &running_var, momentum, eps, out, save_mean,
                             save_invstd);
}

// No running statistics: only training mode has any statistics to use.
Ret3 batch_norm_legit_no_stats_out(KernelRuntimeContext& ctx, const Tensor& input,
                                   const optional<Tensor>& weight, const optional<Tensor>& bias,
                                   bool training, double momentum, double eps, Tensor& out,
                                   Tensor& save_mean, Tensor& save_invstd) {
  const char* op = log_name(batch_norm_legit_no_stats_out_name);
  ET_KERNEL_CHECK_MSG(ctx, training, InvalidArgument, Ret3(out, save_mean, save_invstd),
                      "%s: argument 'training' must be true without running statistics", op);
  return batch_norm_training(op, ctx, input, weight, bias, nullptr, nullptr, momentum, eps, out,
                             save_mean, save_invstd);
}

}  // namespace

ETK_REGISTER_KERNEL(batch_norm_legit_out_name, batch_norm_legit_out);
ETK_REGISTER_KERNEL(batch_norm_legit_no_stats_out_name, batch_norm_legit_no_stats_out);
ETK_REGISTER_KERNEL(batch_norm_no_training_out_name, batch_norm_no_training_out);
ETK_REGISTER_KERNEL(native_group_norm_out_name, native_group_norm_out);
ETK_REGISTER_KERNEL(native_layer_norm_out_name, native_layer_norm_out);

}  // namespace kernels
}  // namespace executorch
