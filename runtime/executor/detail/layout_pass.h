/*
 * Load-time layout assignment (private header).
 *
 * Exported programs give every activation the contiguous (NCHW) dim order,
 * but the convolution kernels run faster on channels-last (NHWC) tensors.
 * Before the other load-time passes (prepare.h), the Method switches 4-D
 * float intermediate values to channels-last where every instruction that
 * touches them has a layout rule allowing it (runtime/kernel/
 * prepared_constants.h, LayoutRule):
 *
 *  - values tied by a rule (the operands and output of an elementwise
 *    operator, say) form one class, which switches as a whole;
 *  - a class stays contiguous if any member is a method input or output, a
 *    constant, written more than once or in place, an item of a tensor list,
 *    dynamically shaped, or touched by an instruction without a rule (a
 *    delegate call, a view, a permute, ...) or whose rule requires it;
 *  - of the others, a class switches when some instruction prefers one of
 *    its members channels-last (a convolution's input or output).
 *
 * Only the dim order and strides change: the values keep their planned
 * storage and size, so the memory plan stays valid.
 */
#pragma once

#include <cstddef>

#include <executorch/runtime/core/evalue.h>

#include <executorch_schema/program_generated.h>

namespace executorch {
namespace runtime {
namespace internal {

/// Switches the values of `plan` that may be channels-last to the dim order
/// `channels_last` ({0, 2, 3, 1}, storage that outlives the values) and
/// returns how many it switched.
size_t switch_to_channels_last(
    const executorch_flatbuffer::ExecutionPlan* plan,
    EValue* values,
    size_t n_values,
    executorch::aten::DimOrderType* channels_last);

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
