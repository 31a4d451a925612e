/*
 * The tensor prim ops (private header); registered with the scalar prim ops
 * in register_prim_ops.cpp.
 */
#pragma once

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>

namespace executorch {
namespace runtime {
namespace prim_ops {

/// executorch_prim::et_view.default(self, size, out): `out` becomes a view
/// of `self`'s data with the shape `size` (one entry may be -1).
void et_view(KernelRuntimeContext& context, Span<EValue*> args);

/// executorch_prim::et_copy_index.tensor(copy_to, copy_from, index): grows
/// `copy_to` to index+1 rows and copies `copy_from` into row `index`.
void et_copy_index(KernelRuntimeContext& context, Span<EValue*> args);

}  // namespace prim_ops
}  // namespace runtime
}  // namespace executorch
