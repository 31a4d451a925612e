/*
 * Facts about an execution plan that the load-time passes (prepare.cpp,
 * layout_pass.cpp) share: who writes a value, whether it is a plan output,
 * an operator's full name (private header).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <executorch_schema/program_generated.h>

namespace executorch {
namespace runtime {
namespace internal {

/// Per value: how many places may write it during execute() (plan inputs,
/// kernel outputs, every argument of an in-place kernel or a delegate, move
/// targets).
struct Writes {
  std::vector<uint32_t> count;
  void add(int64_t v) {
    if (v >= 0 && static_cast<size_t>(v) < count.size()) {
      ++count[static_cast<size_t>(v)];
    }
  }
  uint32_t of(int64_t v) const {
    return v >= 0 && static_cast<size_t>(v) < count.size()
               ? count[static_cast<size_t>(v)]
               : 1;
  }
};

Writes count_writes(
    const executorch_flatbuffer::ExecutionPlan* plan, size_t n_values);

/// Per value: how many places read or name it (instruction arguments, list
/// items, moves, jump conditions, plan outputs).
std::vector<uint32_t> count_uses(
    const executorch_flatbuffer::ExecutionPlan* plan, size_t n_values);

bool is_plan_output(
    const executorch_flatbuffer::ExecutionPlan* plan, int32_t v);

/// "name.overload" (or "name") of operator `op` into buf; false if it does
/// not fit.
bool full_op_name(
    const executorch_flatbuffer::Operator* op, char* buf, size_t size);

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
