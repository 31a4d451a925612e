/*
 * Recognizes, at load, the instructions an export decomposes an activation into, right after
 * an operator (a convolution or a GEMM) whose output x they read:
 *   SiLU          sigmoid(x) -> s;  mul(x, s)
 *   hardswish     add(x, 3) -> t;  clamp(t, 0, ..) / clamp(t, .., 6);  mul(x, t) -> m;  div(m, 6)
 *   hardsigmoid   add(x, 3) -> t;  clamp(t, 0, ..) / clamp(t, .., 6);  div(t, 6)
 * (the clamps as one clamp(t, 0, 6) or two one-sided ones; the constants 3 and 6 as constant
 * one-element tensors, alpha 1). Only float32 values, each read by the next step. The Method
 * checks that the intermediates are read nowhere else (prepared_constants.h, RunFuser).
 */
#pragma once

#include <cstddef>

#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/prepared_constants.h>
#include <executorch/runtime/kernels/compute/activation.h>

namespace executorch {
namespace kernels {
namespace detail {

// The activation that `next` starts with, reading `x` (the first operator's output), and how
// many of `next` it spans; kNone (and *n_consumed 0) if none.
compute::Activation match_activation_run(
    const ::executorch::runtime::EValue* x,
    ::executorch::runtime::Span<const ::executorch::runtime::FusionCandidate> next,
    size_t* n_consumed);

// The last step of a fused run whose first operator kept its own output `from` (see
// RunFuser): to = act(from), to resized to from's shape. Both float, both contiguous or both
// channels-last (the fusers check). False after failing ctx (with a log naming op).
bool activation_into(::executorch::runtime::KernelRuntimeContext& ctx, const char* op,
                     compute::Activation act, const ::executorch::aten::Tensor& from,
                     ::executorch::aten::Tensor& to);

// The output of the fused run (the last argument of the fused instruction).
inline ::executorch::runtime::EValue* run_output(
    ::executorch::runtime::Span<::executorch::runtime::EValue*> args) {
  return args[args.size() - 1];
}

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
