/*
 * Decoding a Method's chains into validated instructions (private header).
 */
#pragma once

#include <cstddef>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/executor/detail/method_internal.h>
#include <executorch/runtime/kernel/operator_registry.h>

#include <executorch_schema/program_generated.h>

namespace executorch {
namespace runtime {
namespace internal {

/**
 * Decodes every chain of `plan` into `*out_chains` (method memory): checks
 * every index (operators, delegates, values, arguments) and resolves every
 * KernelCall by operator name and kernel key, first in `kernel_registry`,
 * then in the global registry, keyed kernel first, then the fallback.
 * Missing operators are all logged (one line each, naming the operator)
 * before the load fails.
 *
 * With `with_op_names` (the method has an EventTracer) every KernelCall also
 * gets its operator name (Instruction::op_name), made once per operator.
 *
 * @retval Error::InvalidProgram a missing chain/instruction, an index out of
 *     range, an unknown instruction kind.
 * @retval Error::OperatorMissing one or more operators have no kernel.
 * @retval Error::Internal an operator name of 100 characters or more.
 */
ET_NODISCARD Error build_chains(
    const LoadContext& ctx,
    const executorch_flatbuffer::ExecutionPlan* plan,
    size_t n_delegates,
    Span<const Kernel> kernel_registry,
    bool with_op_names,
    Chain** out_chains,
    size_t* out_n_chains);

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
