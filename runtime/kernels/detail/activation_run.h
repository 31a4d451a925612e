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

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
