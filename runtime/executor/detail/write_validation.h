/*
 * Which values a loaded method's instructions write, and whether they may
 * (private header).
 *
 * Program validation cannot know this: which arguments a kernel writes is a
 * property of the kernel, and which arguments a delegate writes is decided
 * by its payload. Method load knows both once the kernels are resolved and
 * the delegates initialized, so the check runs there:
 *
 *   kernel    the arguments its KernelWriteSet names (make_boxed_kernel
 *             records one from the C++ signature: every Tensor& parameter,
 *             the lists of an out variant returning nothing, the return
 *             slot); without a record, the position rule below;
 *   delegate  the arguments its backend reported from init()
 *             (BackendInitContext::internal_report_written_arg); without a
 *             report, the call's last argument;
 *   position  the last argument, with the run of tensor arguments just
 *   rule      before it when it is a list (the out tensors of a multi-output
 *             call), and the first argument of an in-place operator (name
 *             ending in '_').
 *
 * A written tensor (or list item) may not be a constant (program data, maybe
 * a read-only mapping shared by every Method) nor an et_view result (its
 * data belongs to the viewed tensor). A written plan input that the caller
 * binds by pointer is recorded: set_input then requires a buffer that holds
 * the input's whole capacity, since a kernel may resize it up to that.
 */
#pragma once

#include <cstddef>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/executor/detail/delegate.h>
#include <executorch/runtime/executor/detail/method_internal.h>

#include <executorch_schema/program_generated.h>

namespace executorch {
namespace runtime {
namespace internal {

/**
 * Checks every write of the decoded chains (see the file comment).
 *
 * @param input_writes Out, one per plan input: whether an instruction
 *     writes the caller-bound storage of that input (false for planned
 *     inputs, whose data set_input copies).
 * @retval Error::InvalidProgram a constant or an et_view result is written;
 *     the log names the instruction, the argument and the value.
 */
Error validate_write_sets(
    const executorch_flatbuffer::Program* program,
    const executorch_flatbuffer::ExecutionPlan* plan,
    const Chain* chains,
    size_t n_chains,
    const BackendDelegate* delegates,
    size_t n_delegates,
    InputWrite* input_writes);

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
