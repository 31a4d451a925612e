/*
 * Checks of a .pte's flatbuffer that the flatbuffers Verifier cannot make
 * (private header). Both functions expect a root that already passed
 * flatbuffers::Verifier, so every table, vector and string they touch is
 * in bounds; they check what those numbers mean: indices, enum ranges, union
 * tags, tensor shapes, and offsets into data outside the flatbuffer.
 *
 * Every failure logs one line that names the offending field (for example
 * "execution_plan[0].values[3].Tensor.sizes[1] = -1 is negative") and returns
 * the error; nothing aborts.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/error.h>

namespace executorch_flatbuffer {
struct ExecutionPlan;
struct Instruction;
struct Program;
struct Tensor;
}  // namespace executorch_flatbuffer

namespace executorch {
namespace runtime {
namespace detail {

/// Where the flatbuffer sits in its file; the limits for segment checks.
struct ProgramLayout {
  /// Absolute offset of the segment area; 0 = the file has no segments.
  uint64_t segment_base_offset;
  /// Actual size of the file (from the DataLoader).
  uint64_t file_size;
};

/**
 * Program-level tables, checked on every load (both verification levels,
 * because Program itself dereferences them): execution_plan and each plan's
 * name; the segment table against the file size; constant_segment /
 * constant_buffer; mutable_data_segments; named_data (keys, indices,
 * duplicates); backend_delegate_data entries.
 */
Error validate_program_tables(
    const executorch_flatbuffer::Program* program, const ProgramLayout& layout);

/**
 * Every semantic cross-reference of one execution plan: required fields,
 * value kinds and union tags, tensors (dtype, rank <= 16, dim_order
 * permutation, sizes, numel/nbytes overflow, constant and mutable data
 * ranges, planned-memory ranges), list items, inputs/outputs, instructions
 * (operator, delegate and value indices, jump destinations), operators and
 * delegates.
 */
Error validate_execution_plan(
    const executorch_flatbuffer::Program* program, size_t plan_index);

/**
 * The storage and aliasing rules of one plan (storage_validation.cpp), run
 * last by validate_execution_plan: every tensor an instruction reads or
 * names has storage (planned, constant, or bound by the caller or an
 * et_view); constants are never moved or plan inputs (what kernels and
 * delegates write is checked at load_method, write_validation.h); MoveCall
 * keeps each slot's kind; FreeCall frees only planned intermediates; an
 * et_view result fits in the viewed tensor. Expects a
 * plan that passed the other checks of validate_execution_plan.
 */
Error validate_storage_rules(
    const executorch_flatbuffer::ExecutionPlan* plan, size_t plan_index);

/// Whether `ins` (of a validated plan) is an executorch_prim::et_view call
/// with its three arguments.
bool is_view_call(
    const executorch_flatbuffer::ExecutionPlan* plan,
    const executorch_flatbuffer::Instruction* ins);

/// Whether an executorch_prim::et_view call of a validated plan binds
/// `value_index` (so the caller does not).
bool is_view_result(
    const executorch_flatbuffer::ExecutionPlan* plan, size_t value_index);

/// validate_execution_plan for every plan, plus unique method names.
Error validate_all_execution_plans(
    const executorch_flatbuffer::Program* program);

/// Element size of a serialized ScalarType, or 0 if the value is invalid
/// (valid: 0..29, which includes the types the schema does not name).
size_t scalar_type_element_size(int8_t scalar_type);

/// Bytes a serialized tensor may hold at most: its sizes are the upper bound
/// of a dynamic shape. False if a size is negative or the product overflows
/// (possible only for the dynamic plan inputs validation excuses).
bool tensor_capacity_bytes(const executorch_flatbuffer::Tensor* t, size_t* out);

}  // namespace detail
}  // namespace runtime
}  // namespace executorch
