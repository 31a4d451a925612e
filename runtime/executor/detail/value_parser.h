/*
 * The value table of a Method (private header).
 */
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/executor/detail/method_internal.h>

#include <executorch_schema/program_generated.h>

namespace executorch {
namespace runtime {
namespace internal {

/**
 * Parses `plan->values()` into `ctx.values[0, ctx.n_values)`, which must
 * already hold default (None) EValues. Values are parsed in index order;
 * list elements must precede tensor lists that hold them.
 *
 * @retval Error::InvalidProgram a missing/unknown entry, an index out of
 *     range, a malformed list or tensor.
 * @retval Error::InvalidType a list element of the wrong kind.
 * @returns Errors from tensor parsing and memory allocation.
 */
ET_NODISCARD Error parse_values(
    const LoadContext& ctx, const executorch_flatbuffer::ExecutionPlan* plan);

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
