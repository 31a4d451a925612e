/*
 * Matching of decomposed activations after a convolution or GEMM (activation_run.h).
 */
#include <executorch/runtime/kernels/detail/activation_run.h>

#include <cmath>
#include <cstring>
#include <limits>

#include <executorch/runtime/kernels/detail/shape_util.h>

namespace executorch {
namespace kernels {
namespace detail {
namespace {

using compute::Activation;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
using ::executorch::runtime::EValue;
using ::executorch::runtime::FusionCandidate;
using ::executorch::runtime::Span;

bool is_op(const FusionCandidate& c, const char* name, size_t n_args) {
  return std::strcmp(c.op_name, name) == 0 && c.args.size() == n_args;
}

bool is_float_tensor(const EValue* v) {
  return v->isTensor() && v->toTensor().scalar_type() == ScalarType::Float;
}

// The output of an out-variant call (its out argument, also returned last), when float.
const EValue* float_output(const FusionCandidate& c) {
  const size_t n = c.args.size();
  return n >= 2 && c.args[n - 2] == c.args[n - 1] && is_float_tensor(c.args[n - 1]) ? c.args[n - 1]
                                                                                    : nullptr;
}

bool number(const EValue* v, double* out) {
  if (v->isDouble()) {
    *out = v->toDouble();
    return true;
  }
  if (v->isInt()) {
    *out = static_cast<double>(v->toInt());
    return true;
  }
  return false;
}

// Argument k of c is a constant one-element tensor whose value is `want`.
bool constant_equals(const FusionCandidate& c, size_t k, double want) {
  if (k >= 63 || ((c.constant_args >> k) & 1) == 0 || !c.args[k]->isTensor()) {
    return false;
  }
  const Tensor& t = c.args[k]->toTensor();
  if (t.numel() != 1) {
    return false;
  }
  switch (t.scalar_type()) {
    case ScalarType::Float:
      return t.const_data_ptr<float>()[0] == want;
    case ScalarType::Double:
      return t.const_data_ptr<double>()[0] == want;
    case ScalarType::Long:
      return static_cast<double>(t.const_data_ptr<int64_t>()[0]) == want;
    case ScalarType::Int:
      return static_cast<double>(t.const_data_ptr<int32_t>()[0]) == want;
    default:
      return false;
  }
}

// mul(a, b) of exactly {p, q}, in either order.
bool is_product_of(const FusionCandidate& c, const EValue* p, const EValue* q) {
  return is_op(c, "aten::mul.out", 4) &&
         ((c.args[0] == p && c.args[1] == q) || (c.args[0] == q && c.args[1] == p));
}

// div(t, 6).
bool is_div_by_six(const FusionCandidate& c, const EValue* t) {
  return is_op(c, "aten::div.out", 4) && c.args[0] == t && constant_equals(c, 1, 6.0);
}

Activation match_silu(const EValue* x, Span<const FusionCandidate> next, size_t* n) {
  if (next.size() < 2 || !is_op(next[0], "aten::sigmoid.out", 3) || next[0].args[0] != x) {
    return Activation::kNone;
  }
  const EValue* s = float_output(next[0]);
  if (s == nullptr || !is_product_of(next[1], x, s) || float_output(next[1]) == nullptr) {
    return Activation::kNone;
  }
  *n = 2;
  return Activation::kSilu;
}

Activation match_hard(const EValue* x, Span<const FusionCandidate> next, size_t* n) {
  double alpha = 0;
  if (next.size() < 3 || !is_op(next[0], "aten::add.out", 5) || next[0].args[0] != x ||
      !constant_equals(next[0], 1, 3.0) || !number(next[0].args[2], &alpha) || alpha != 1.0) {
    return Activation::kNone;
  }
  const EValue* t = float_output(next[0]);
  // One or two clamps of t that together bound it to [0, 6].
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  size_t i = 1;
  for (; i < next.size() && i <= 2 && t != nullptr && is_op(next[i], "aten::clamp.out", 5) &&
         next[i].args[0] == t;
       ++i) {
    double v;
    if (!next[i].args[1]->isNone()) {
      if (!number(next[i].args[1], &v)) {
        return Activation::kNone;
      }
      lo = std::fmax(lo, v);
    }
    if (!next[i].args[2]->isNone()) {
      if (!number(next[i].args[2], &v)) {
        return Activation::kNone;
      }
      hi = std::fmin(hi, v);
    }
    t = float_output(next[i]);
  }
  if (t == nullptr || lo != 0.0 || hi != 6.0 || i >= next.size()) {
    return Activation::kNone;
  }
  if (is_div_by_six(next[i], t) && float_output(next[i]) != nullptr) {
    *n = i + 1;
    return Activation::kHardsigmoid;
  }
  const EValue* m = float_output(next[i]);
  if (i + 1 < next.size() && is_product_of(next[i], x, t) && m != nullptr &&
      is_div_by_six(next[i + 1], m) && float_output(next[i + 1]) != nullptr) {
    *n = i + 2;
    return Activation::kHardswish;
  }
  return Activation::kNone;
}

// Both contiguous or both channels-last: equal shapes then store each element at the same
// offset, so an elementwise pass over the bytes is exact.
bool same_dense_order(const Tensor& a, const Tensor& b) {
  return (is_contiguous_dim_order(a) && is_contiguous_dim_order(b)) ||
         (is_channels_last_dim_order(a) && is_channels_last_dim_order(b));
}

}  // namespace

Activation match_activation_run(const EValue* x, Span<const FusionCandidate> next,
                                size_t* n_consumed) {
  *n_consumed = 0;
  if (!is_float_tensor(x)) {
    return Activation::kNone;
  }
  Activation act = match_silu(x, next, n_consumed);
  if (act == Activation::kNone) {
    act = match_hard(x, next, n_consumed);
  }
  // The run's result must have x's shape (a constant of higher rank would broadcast it).
  if (act != Activation::kNone) {
    const Tensor& in = x->toTensor();
    const Tensor& out =
        next[*n_consumed - 1].args[next[*n_consumed - 1].args.size() - 1]->toTensor();
    bool same = in.dim() == out.dim();
    for (ssize_t d = 0; same && d < in.dim(); ++d) {
      same = in.size(d) == out.size(d);
    }
    if (!same) {
      *n_consumed = 0;
      return Activation::kNone;
    }
  }
  return act;
}

bool activation_into(::executorch::runtime::KernelRuntimeContext& ctx, const char* op,
                     Activation act, const Tensor& from, Tensor& to) {
  if (!resize_out(ctx, op, to, from.sizes())) {
    return false;
  }
  if (to.scalar_type() != ScalarType::Float || from.scalar_type() != ScalarType::Float ||
      !same_dense_order(from, to)) {
    ET_LOG(Error, "%s: fused activation: unexpected output layout", op);
    ctx.fail(::executorch::runtime::Error::InvalidProgram);
    return false;
  }
  compute::apply_activation(act, from.const_data_ptr<float>(), to.mutable_data_ptr<float>(),
                            from.numel());
  return true;
}

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
