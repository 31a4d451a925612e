/*
 * Shared pieces of the per-plan validation files (private header):
 * program_validation.cpp (plan tables, inputs/outputs, operators),
 * value_validation.cpp (values and tensors), instruction_validation.cpp
 * (delegates, chains and instructions), storage_validation.cpp.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/executor/detail/field_path.h>
#include <executorch/runtime/executor/detail/flatbuffer_vectors.h>
#include <executorch_schema/program_generated.h>

namespace executorch {
namespace runtime {
namespace detail {

/// True if `v` is a constant tensor: its data comes from the program
/// (data_buffer_idx, or an EXTERNAL name) without a planned place of its own
/// (storage_validation.cpp, which decides every tensor's storage).
bool is_constant_tensor(const executorch_flatbuffer::EValue* v);

inline bool is_tensor_or_list(executorch_flatbuffer::KernelTypes k) {
  using executorch_flatbuffer::KernelTypes;
  return k == KernelTypes::Tensor || k == KernelTypes::TensorList ||
         k == KernelTypes::OptionalTensorList;
}

/// Calls f(value index) for each tensor an argument of a validated plan
/// names: the value itself, or a list's Tensor items (absent items of an
/// optional list, -1, are skipped).
template <typename F>
void for_each_tensor(
    const executorch_flatbuffer::ExecutionPlan* plan, int32_t arg, F&& f) {
  namespace fb = executorch_flatbuffer;
  const auto* values = plan->values();
  const fb::EValue* v = values->Get(static_cast<flatbuffers::uoffset_t>(arg));
  if (v->val_type() == fb::KernelTypes::Tensor) {
    f(static_cast<size_t>(arg));
    return;
  }
  const flatbuffers::Vector<int32_t>* items = nullptr;
  if (const auto* l = v->val_as_TensorList()) {
    items = l->items();
  } else if (const auto* o = v->val_as_OptionalTensorList()) {
    items = o->items();
  }
  for (flatbuffers::uoffset_t i = 0; items != nullptr && i < items->size();
       ++i) {
    const int32_t item = items->Get(i);
    if (item >= 0 &&
        values->Get(static_cast<flatbuffers::uoffset_t>(item))->val_type() ==
            fb::KernelTypes::Tensor) {
      f(static_cast<size_t>(item));
    }
  }
}

/// Largest tensor rank a program may declare.
constexpr size_t kMaxTensorRank = 16;

/// The Verifier checks a vector's length word for 4-byte alignment but not
/// its elements: a vector of 8-byte scalars can sit at a 4-aligned address,
/// and reading it through the generated accessors would be a misaligned
/// load. Every such vector the runtime reads is checked with this.
template <typename T>
bool elements_aligned(const flatbuffers::Vector<T>* v) {
  return v == nullptr ||
         reinterpret_cast<uintptr_t>(v->data()) % alignof(T) == 0;
}

/// What the program offers for `data_buffer_idx` of constant tensors.
struct ConstantTable {
  bool segment_path;      // constant_segment with more than the reserved offset
  size_t count;           // valid indices are [1, count)
  uint64_t segment_size;  // size of the constant segment (segment path)
};

ConstantTable constant_table(const executorch_flatbuffer::Program* program);

/// One plan under validation, and how to name its fields.
struct PlanContext {
  const executorch_flatbuffer::Program* program;
  const executorch_flatbuffer::ExecutionPlan* plan;
  size_t plan_index;
  size_t num_values;
  ConstantTable constants;

  /// "execution_plan[p]".
  FieldPath path() const {
    return FieldPath::plan(plan_index);
  }
  /// "execution_plan[p].values[vi]".
  FieldPath value_path(size_t vi) const {
    return path().item("values", vi);
  }
  /// "execution_plan[p].values[vi].Tensor".
  FieldPath tensor_path(size_t vi) const {
    return value_path(vi).field("Tensor");
  }
  /// "execution_plan[p].chains[ci].instructions[ii]".
  FieldPath instruction_path(size_t ci, size_t ii) const {
    return path().item("chains", ci).item("instructions", ii);
  }
};

/// The kind of values[index] (NONE for a null entry).
executorch_flatbuffer::KernelTypes value_type(
    const PlanContext& c, size_t index);

/// Every entry of plan.values (value_validation.cpp).
Error validate_values(const PlanContext& c);

/// Every entry of plan.delegates (instruction_validation.cpp).
Error validate_delegates(const PlanContext& c);

/// Every chain and instruction (instruction_validation.cpp).
Error validate_chains(const PlanContext& c);

}  // namespace detail
}  // namespace runtime
}  // namespace executorch
