/*
 * Layout rules of this library's kernels (runtime/kernel/prepared_constants.h, LayoutRule): which
 * tensor arguments may be channels-last, so that the Method can switch whole chains of
 * convolutions, their activations, batch norms, residual adds and pools to NHWC at load.
 *
 * Every rule here describes a kernel that computes the same values for each dim order it allows:
 * the elementwise and unary kernels on operands of one dim order (and per-channel operands of
 * shape [N, C, 1, 1], whose two orders are the same bytes), batch norm, the pools and the mean
 * over H and W on a channels-last input, and the convolution on any mix of contiguous and
 * channels-last input and output (ops/convolution.cpp). An operator without a rule keeps every
 * tensor it touches contiguous.
 */
#include <cstdint>

#include <executorch/runtime/kernel/prepared_constants.h>
#include <executorch/runtime/kernels/detail/kernel_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;
using ::executorch::runtime::ArgumentLayouts;
using ::executorch::runtime::kLayoutContiguous;
using ::executorch::runtime::kLayoutFree;
using ::executorch::runtime::Span;

bool is_4d(const Tensor& t) {
  return t.dim() == 4;
}

// H * W == 1: contiguous and channels-last hold the same bytes.
bool is_per_channel(const Tensor& t) {
  return is_4d(t) && t.size(2) * t.size(3) == 1;
}

// A lower-rank operand broadcast against a 4-D one that varies at most over N and C (its dims
// lined up with H and W are 1 or absent): it reads the same element for every pixel.
bool broadcasts_over_pixels(const Tensor& t) {
  for (ssize_t d = t.dim() - 1; d >= 0 && d >= t.dim() - 2; --d) {
    if (t.size(d) != 1) {
      return false;
    }
  }
  return t.dim() < 4;
}

void all_contiguous(Span<EValue*> args, ArgumentLayouts& layout) {
  for (size_t k = 0; k < args.size(); ++k) {
    layout.group[k] = kLayoutContiguous;
  }
}

// The largest 4-D tensor argument (the output of an elementwise operator), or null.
const Tensor* largest_4d(Span<EValue*> args) {
  const Tensor* ref = nullptr;
  for (EValue* a : args) {
    if (a->isTensor() && is_4d(a->toTensor()) &&
        (ref == nullptr || a->toTensor().numel() > ref->numel())) {
      ref = &a->toTensor();
    }
  }
  return ref;
}

// Elementwise and unary operators (and batch norm, with vector_args_free: its per-channel
// weight, bias, statistics and saved outputs are 1-D): the full-size 4-D operands and the output
// share one order; [N, C, 1, 1] operands and scalars may have either; any other broadcast keeps
// everything contiguous.
void tie_full_size(Span<EValue*> args, ArgumentLayouts& layout, bool vector_args_free) {
  const Tensor* ref = largest_4d(args);
  if (ref == nullptr) {
    return;  // nothing 4-D: the presets do not matter
  }
  for (size_t k = 0; k < args.size(); ++k) {
    if (!args[k]->isTensor()) {
      continue;
    }
    const Tensor& t = args[k]->toTensor();
    if (t.sizes() == ref->sizes()) {
      if (t.scalar_type() != ScalarType::Float) {
        all_contiguous(args, layout);  // the float kernels' channels-last paths only
        return;
      }
      layout.group[k] = 0;
    } else if (is_per_channel(t) || broadcasts_over_pixels(t) ||
               (vector_args_free && t.dim() == 1)) {
      layout.group[k] = kLayoutFree;
    } else {
      all_contiguous(args, layout);
      return;
    }
  }
}

void elementwise_rule(Span<EValue*> args, ArgumentLayouts& layout) {
  tie_full_size(args, layout, /*vector_args_free=*/false);
}

void batch_norm_rule(Span<EValue*> args, ArgumentLayouts& layout) {
  tie_full_size(args, layout, /*vector_args_free=*/true);
}

// Pools and the mean over H and W: the float 4-D input (argument 0) and a float output that
// keeps a spatial extent share one order; an output of one pixel per channel (or of lower rank)
// may have either. Max pool's int64 indices are written in either order: they prefer
// channels-last in a class of their own, because a channels-last pool stores one pixel's indices
// for all channels at once, which in NCHW order is one store per channel a plane apart. Their
// own class: a reader without a rule keeps them contiguous without pinning the whole chain.
void pool_rule(Span<EValue*> args, ArgumentLayouts& layout) {
  if (args.size() < 2 || !args[0]->isTensor() || !is_4d(args[0]->toTensor()) ||
      args[0]->toTensor().scalar_type() != ScalarType::Float) {
    return;
  }
  layout.group[0] = 0;
  for (size_t k = 1; k < args.size(); ++k) {
    if (!args[k]->isTensor()) {
      continue;
    }
    const Tensor& t = args[k]->toTensor();
    if (t.scalar_type() == ScalarType::Long && is_4d(t) && !is_per_channel(t)) {
      layout.group[k] = 1;
      layout.prefers_channels_last |= uint64_t{1} << k;
    } else if (t.scalar_type() != ScalarType::Float || t.dim() < 4 || is_per_channel(t)) {
      layout.group[k] = kLayoutFree;
    } else if (is_4d(t) && t.size(0) == args[0]->toTensor().size(0) &&
               t.size(1) == args[0]->toTensor().size(1)) {
      layout.group[k] = 0;
    } else {
      all_contiguous(args, layout);
      return;
    }
  }
}

// mean.out(self, dim, keepdim, dtype, out): a pool when it reduces exactly H and W of a 4-D
// input.
void mean_rule(Span<EValue*> args, ArgumentLayouts& layout) {
  if (args.size() < 2 || !args[0]->isTensor() || !is_4d(args[0]->toTensor()) ||
      !args[1]->isIntList()) {
    return;
  }
  const auto dims = args[1]->toIntList();
  bool h = false, w = false;
  for (const int64_t d : dims) {
    h = h || d == 2 || d == -2;
    w = w || d == 3 || d == -1;
  }
  if (dims.size() == 2 && h && w) {
    pool_rule(args, layout);
  }
}

// convolution.out(input, weight, bias, stride, padding, dilation, transposed, output_padding,
// groups, out): a 2-D, non-transposed float convolution runs in NHWC when its input or output
// is channels-last, so it prefers both; they need not match. The weight and bias are read in
// either order.
void convolution_rule(Span<EValue*> args, ArgumentLayouts& layout) {
  if (args.size() < 10 || !args[0]->isTensor() || !is_4d(args[0]->toTensor()) ||
      args[0]->toTensor().scalar_type() != ScalarType::Float || !args[6]->isBool() ||
      args[6]->toBool() || !args[9]->isTensor() || !is_4d(args[9]->toTensor())) {
    return;
  }
  layout.group[0] = 0;
  layout.group[1] = kLayoutFree;
  layout.group[2] = kLayoutFree;
  for (size_t k = 9; k < args.size(); ++k) {
    if (args[k] == args[9]) {  // the out argument and the returned out
      layout.group[k] = 1;
      layout.prefers_channels_last |= uint64_t{1} << k;
    }
  }
  layout.prefers_channels_last |= 1u;
}

struct RuleEntry {
  const char* op;
  ::executorch::runtime::LayoutRule rule;
};

constexpr RuleEntry kRules[] = {
    {"aten::convolution.out", convolution_rule},
    {"aten::add.out", elementwise_rule},
    {"aten::add.Scalar_out", elementwise_rule},
    {"aten::sub.out", elementwise_rule},
    {"aten::sub.Scalar_out", elementwise_rule},
    {"aten::mul.out", elementwise_rule},
    {"aten::mul.Scalar_out", elementwise_rule},
    {"aten::div.out", elementwise_rule},
    {"aten::div.Scalar_out", elementwise_rule},
    {"aten::relu.out", elementwise_rule},
    {"aten::hardtanh.out", elementwise_rule},
    {"aten::clamp.out", elementwise_rule},
    {"aten::sigmoid.out", elementwise_rule},
    {"aten::silu.out", elementwise_rule},
    {"aten::hardswish.out", elementwise_rule},
    {"aten::hardsigmoid.out", elementwise_rule},
    {"aten::clone.out", elementwise_rule},
    {"aten::_native_batch_norm_legit_no_training.out", batch_norm_rule},
    {"aten::max_pool2d_with_indices.out", pool_rule},
    {"aten::avg_pool2d.out", pool_rule},
    {"aten::_adaptive_avg_pool2d.out", pool_rule},
    {"aten::mean.out", mean_rule},
};

bool register_layout_rules() {
  bool ok = true;
  for (const RuleEntry& e : kRules) {
    ok = ::executorch::runtime::register_layout_rule(e.op, e.rule) == Error::Ok && ok;
  }
  return ok;
}

// A failure (e.g. a second copy of this library) only means those values stay contiguous.
[[maybe_unused]] const bool g_layout_rules_registered = register_layout_rules();

}  // namespace
}  // namespace kernels
}  // namespace executorch
