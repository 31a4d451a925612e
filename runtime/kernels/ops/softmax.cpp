/*
 * _softmax.out and _log_softmax.out along one dim, any rank (0-dim
 * included), float32/float64/float16/bfloat16 (computed in float or
 * double). Max-subtracted; a slice that is entirely -inf gives 0 for softmax
 * and -inf for log-softmax instead of NaN (safe softmax). Contiguous
 * inputs; the inner loops are written to vectorize.
 */
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include <executorch/runtime/kernel/prepared_constants.h>
#include <executorch/runtime/kernels/compute/vmath.h>
#include <executorch/runtime/kernels/detail/shape_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(softmax_out_name, "aten::_softmax.out");
ET_DEFINE_OPERATOR_NAME(log_softmax_out_name, "aten::_log_softmax.out");

// mx[j] = the NaN-propagating max over i < n of x[i * inner + j], in compute type C.
template <class C, class T>
void column_max(const T* x, int64_t n, int64_t inner, C* mx) {
  for (int64_t j = 0; j < inner; ++j) {
    mx[j] = -std::numeric_limits<C>::infinity();
  }
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < inner; ++j) {
      const C v = static_cast<C>(x[i * inner + j]);
      mx[j] = v > mx[j] || std::isnan(v) ? v : mx[j];
    }
  }
}

// Float32 through the compute core's vector exp (compute/vmath.h): along the last dim one row
// at a time; along another dim `inner` columns at a time, each row of the slice being a
// contiguous run of `inner` floats. The same all -inf rule as softmax_impl below.
template <bool kLog>
void softmax_float(const float* x, float* y, int64_t outer, int64_t n, int64_t inner) {
  const compute::VmathKernels& vm = compute::vmath();
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  if (inner == 1) {
    for (int64_t o = 0; o < outer; ++o) {
      const float* xp = x + o * n;
      float* yp = y + o * n;
      const float mx = vm.max(xp, n);
      if (mx == kNegInf) {
        for (int64_t i = 0; i < n; ++i) {
          yp[i] = kLog ? kNegInf : 0.0f;
        }
        continue;
      }
      const float sum = vm.exp_shift_sum(xp, mx, yp, n);
      if (kLog) {
        const float ls = std::log(sum) + mx;
        for (int64_t i = 0; i < n; ++i) {
          yp[i] = xp[i] - ls;
        }
      } else {
        vm.scale(yp, n, 1.0f / sum);
      }
    }
    return;
  }
  std::vector<float> mx(static_cast<size_t>(inner)), sum(static_cast<size_t>(inner));
  std::vector<float> e(static_cast<size_t>(inner));
  for (int64_t o = 0; o < outer; ++o) {
    const float* xp = x + o * n * inner;
    float* yp = y + o * n * inner;
    column_max(xp, n, inner, mx.data());
    for (int64_t j = 0; j < inner; ++j) {
      sum[j] = 0.0f;
    }
    // An all -inf column shifts by 0 instead (e^(-inf - -inf) would be NaN) and is
    // overwritten at the end.
    std::vector<float>& shift = e;
    for (int64_t j = 0; j < inner; ++j) {
      shift[j] = mx[j] == kNegInf ? 0.0f : mx[j];
    }
    for (int64_t i = 0; i < n; ++i) {
      float* row = yp + i * inner;
      vm.exp_sub(xp + i * inner, shift.data(), row, inner);
      for (int64_t j = 0; j < inner; ++j) {
        sum[j] += row[j];
      }
    }
    for (int64_t j = 0; j < inner; ++j) {
      sum[j] = kLog ? shift[j] + std::log(sum[j]) : 1.0f / sum[j];
    }
    for (int64_t i = 0; i < n; ++i) {
      float* row = yp + i * inner;
      const float* xrow = xp + i * inner;
      for (int64_t j = 0; j < inner; ++j) {
        row[j] = kLog ? xrow[j] - sum[j] : row[j] * sum[j];
      }
    }
    for (int64_t j = 0; j < inner; ++j) {
      if (mx[j] == kNegInf) {
        for (int64_t i = 0; i < n; ++i) {
          yp[i * inner + j] = kLog ? kNegInf : 0.0f;
        }
      }
    }
  }
}

template <class T, bool kLog>
void softmax_impl(const Tensor& in, const Tensor& out, int64_t dim) {
  using C = std::conditional_t<std::is_same<T, double>::value, double, float>;
  int64_t outer = 1, inner = 1;
  const int64_t n = in.dim() == 0 ? 1 : in.size(dim);
  for (int64_t i = 0; i < dim; ++i) {
    outer *= in.size(i);
  }
  for (int64_t i = dim + 1; i < in.dim(); ++i) {
    inner *= in.size(i);
  }
  const T* x = in.const_data_ptr<T>();
  T* y = out.mutable_data_ptr<T>();
  if constexpr (std::is_same<T, float>::value) {
    softmax_float<kLog>(x, y, outer, n, inner);
    return;
  }
  constexpr C kNegInf = -std::numeric_limits<C>::infinity();
  if (inner == 1) {
    std::vector<C> buf;
    if (!std::is_same<T, C>::value) {
      buf.resize(static_cast<size_t>(n));
    }
    for (int64_t o = 0; o < outer; ++o) {
      const T* xp = x + o * n;
      T* yp = y + o * n;
      C mx = kNegInf;
      for (int64_t i = 0; i < n; ++i) {
        const C v = static_cast<C>(xp[i]);
        mx = v > mx || std::isnan(v) ? v : mx;
      }
      if (mx == kNegInf) {
        for (int64_t i = 0; i < n; ++i) {
          yp[i] = static_cast<T>(kLog ? kNegInf : C(0));
        }
        continue;
      }
      C sum = 0;
      if constexpr (std::is_same<T, C>::value) {
        if (kLog) {
          for (int64_t i = 0; i < n; ++i) {
            sum += std::exp(xp[i] - mx);
          }
          const C ls = std::log(sum) + mx;
          for (int64_t i = 0; i < n; ++i) {
            yp[i] = xp[i] - ls;
          }
        } else {
          for (int64_t i = 0; i < n; ++i) {
            const C e = std::exp(xp[i] - mx);
            yp[i] = e;
            sum += e;
          }
          const C inv = C(1) / sum;
          for (int64_t i = 0; i < n; ++i) {
            yp[i] *= inv;
          }
        }
      } else {
        for (int64_t i = 0; i < n; ++i) {
          buf[i] = std::exp(static_cast<C>(xp[i]) - mx);
          sum += buf[i];
        }
        if (kLog) {
          const C ls = std::log(sum) + mx;
          for (int64_t i = 0; i < n; ++i) {
            yp[i] = static_cast<T>(static_cast<C>(xp[i]) - ls);
          }
        } else {
          for (int64_t i = 0; i < n; ++i) {
            yp[i] = static_cast<T>(buf[i] / sum);
          }
        }
      }
    }
    return;
  }
  // Strided along dim: process `inner` columns at once with row buffers.
  std::vector<C> mx(static_cast<size_t>(inner)), sum(static_cast<size_t>(inner));
  for (int64_t o = 0; o < outer; ++o) {
    const T* xp = x + o * n * inner;
    T* yp = y + o * n * inner;
    column_max(xp, n, inner, mx.data());
    for (int64_t j = 0; j < inner; ++j) {
      sum[j] = 0;
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < inner; ++j) {
        if (mx[j] != kNegInf) {
          sum[j] += std::exp(static_cast<C>(xp[i * inner + j]) - mx[j]);
        }
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < inner; ++j) {
        const C v = static_cast<C>(xp[i * inner + j]);
        C r;
        if (mx[j] == kNegInf) {
          r = kLog ? kNegInf : C(0);
        } else if (kLog) {
          r = v - mx[j] - std::log(sum[j]);
        } else {
          r = std::exp(v - mx[j]) / sum[j];
        }
        yp[i * inner + j] = static_cast<T>(r);
      }
    }
  }
}

template <bool kLog>
Tensor& softmax_common(const char* op, KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                       bool half_to_float, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, !half_to_float, InvalidArgument, out,
                      "%s: argument 'half_to_float' = true is not supported", op);
  int64_t d = 0;
  if (!check_dtype_in(ctx, op, "self", self, dtypes::kFloatHBF16) ||
      !check_same_dtype(ctx, op, "self", self, "out", out) ||
      !check_contiguous(ctx, op, "self", self) || !check_contiguous(ctx, op, "out", out) ||
      !normalize_dim(ctx, op, "dim", dim, self.dim(), &d) || !resize_out_like(ctx, op, out, self)) {
    return out;
  }
  if (self.numel() == 0) {
    return out;
  }
  dispatch_dtype<dtypes::kFloatHBF16>(ctx, op, self.scalar_type(), [&](auto tag) {
    using CTYPE = typename decltype(tag)::type;
    softmax_impl<CTYPE, kLog>(self, out, d);
  });
  return out;
}

Tensor& softmax_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                    Tensor& out) {
  return softmax_common<false>(log_name(softmax_out_name), ctx, self, dim, half_to_float, out);
}

Tensor& log_softmax_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                        bool half_to_float, Tensor& out) {
  return softmax_common<true>(log_name(log_softmax_out_name), ctx, self, dim, half_to_float, out);
}

// ---- Fusion at load: attention's scores times a scale, then softmax over the last dim (and
// an expand_copy to the same shape after it, which copies nothing new). The run computes
// each row's x * scale (the float products mul computes) and that row's softmax while the row
// is in cache, instead of a mul pass, a softmax pass and a copy over the whole score tensor.
// Bit-identical: the same products and the same softmax code on them.

// Argument counts: mul.out(self, other, out, ret), _softmax.out(self, dim, half_to_float,
// out, ret), expand_copy.out(self, size, implicit, out, ret).
using ::executorch::runtime::Span;

constexpr size_t kMulArgs = 4, kSoftmaxArgs = 5;

const Tensor* float_tensor(const EValue* v) {
  return v->isTensor() && v->toTensor().scalar_type() == ScalarType::Float ? &v->toTensor()
                                                                           : nullptr;
}

void scaled_softmax_run(KernelRuntimeContext& ctx, Span<EValue*> args) {
  const char* op = "fused mul and softmax";
  const Tensor* x = float_tensor(args[0]);
  const Tensor* scale = float_tensor(args[1]);
  const Tensor* mul_out = float_tensor(args[2]);
  const Tensor* out = float_tensor(args[args.size() - 1]);
  if (x == nullptr || scale == nullptr || mul_out == nullptr || out == nullptr ||
      scale->numel() != 1 || x->dim() < 1) {
    ET_LOG(Error, "%s: unexpected arguments", op);
    ctx.fail(Error::InvalidProgram);
    return;
  }
  if (!check_contiguous(ctx, op, "self", *x) || !check_contiguous(ctx, op, "out", *out) ||
      !check_contiguous(ctx, op, "out", *mul_out) || !resize_out_like(ctx, op, *out, *x) ||
      (mul_out != out && !resize_out_like(ctx, op, *mul_out, *x))) {
    return;
  }
  const float s = scale->const_data_ptr<float>()[0];
  // x * s + (-0) is x * s exactly (-0 is the additive identity of every float, signed zeros
  // included), written with the same vectors the softmax then loads (element-wise stores
  // under a vector load would stall store forwarding).
  const compute::VmathKernels& vm = compute::vmath();
  const int64_t n = x->size(x->dim() - 1);
  const int64_t rows = n > 0 ? x->numel() / n : 0;
  const float* xp = x->const_data_ptr<float>();
  float* yp = out->mutable_data_ptr<float>();
  if (mul_out != out) {
    // The run's output shares storage with x, so the Method kept mul's own output (apart from
    // both): all the products go there first, as mul would write them, then the softmax.
    float* mp = mul_out->mutable_data_ptr<float>();
    vm.scale_shift(xp, mp, rows * n, s, -0.0f);
    softmax_float<false>(mp, yp, rows, n, 1);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    float* yrow = yp + r * n;
    vm.scale_shift(xp + r * n, yrow, n, s, -0.0f);
    softmax_float<false>(yrow, yrow, 1, n, 1);
  }
}

bool same_sizes(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes();
}

::executorch::runtime::FusedKernel fuse_scaled_softmax(
    Span<EValue*> mul, Span<const ::executorch::runtime::FusionCandidate> next,
    size_t* n_consumed) {
  if (mul.size() != kMulArgs || next.size() < 1 ||
      std::strcmp(next[0].op_name, "aten::_softmax.out") != 0 ||
      next[0].args.size() != kSoftmaxArgs || next[0].args[0] != mul[kMulArgs - 1]) {
    return nullptr;
  }
  const Tensor* x = float_tensor(mul[0]);
  const Tensor* scale = float_tensor(mul[1]);
  const Tensor* y = float_tensor(next[0].args[3]);
  const EValue* dim = next[0].args[1];
  const EValue* half = next[0].args[2];
  if (x == nullptr || scale == nullptr || y == nullptr || x->dim() < 1 || scale->numel() != 1 ||
      scale->dim() > x->dim() || !float_tensor(mul[2]) || !same_sizes(*x, mul[2]->toTensor()) ||
      !same_sizes(*x, *y) || !is_contiguous_dim_order(*x) || !is_contiguous_dim_order(*y) ||
      !dim->isInt() || (dim->toInt() != -1 && dim->toInt() != x->dim() - 1) || !half->isBool() ||
      half->toBool()) {
    return nullptr;
  }
  *n_consumed = 1;
  // An expand_copy of the softmax to its own shape copies it unchanged: the run writes its
  // output instead.
  if (next.size() >= 2 && std::strcmp(next[1].op_name, "aten::expand_copy.out") == 0 &&
      next[1].args.size() == 5 && next[1].args[0] == next[0].args[4]) {
    const Tensor* e = float_tensor(next[1].args[3]);
    if (e != nullptr && same_sizes(*e, *y) && is_contiguous_dim_order(*e)) {
      *n_consumed = 2;
    }
  }
  return scaled_softmax_run;
}

[[maybe_unused]] const bool g_softmax_fuser_registered =
    ::executorch::runtime::register_run_fuser("aten::mul.out", fuse_scaled_softmax) == Error::Ok;

}  // namespace

ETK_REGISTER_KERNEL(softmax_out_name, softmax_out);
ETK_REGISTER_KERNEL(log_softmax_out_name, log_softmax_out);

}  // namespace kernels
}  // namespace executorch
