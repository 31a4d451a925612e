/*
 * Tensor values of a Method (private header): metadata from the flatbuffer,
 * data from planned memory, the Program's constants, the mutable-data
 * segment or an external (.ptd) data map.
 */
#pragma once

#include <cstddef>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/executor/detail/method_internal.h>

#include <executorch_schema/program_generated.h>

namespace executorch {
namespace runtime {
namespace internal {

/**
 * Builds the tensor of value `value_index` from `s_tensor`: TensorImpl,
 * sizes, dim order and strides in method memory, data pointer resolved.
 *
 * Expects a tensor that passed program validation (dtype, sizes, dim order
 * and data ranges are not checked again).
 *
 * @retval Error::NotSupported unbounded dynamism.
 * @retval Error::InvalidProgram strides do not fit in int32.
 * @returns Other errors from data resolution (see resolve_tensor_data).
 */
ET_NODISCARD Result<executorch::aten::Tensor> parse_tensor(
    const LoadContext& ctx,
    const executorch_flatbuffer::Tensor* s_tensor,
    size_t value_index);

/// True if the tensor is memory-planned (allocation info present, or a
/// stored-data index with one): set_input copies into it.
bool tensor_is_planned(const executorch_flatbuffer::Tensor* s_tensor);

/// True if the tensor is an EXTERNAL constant (no allocation info).
bool tensor_is_external_constant(const executorch_flatbuffer::Tensor* s_tensor);

/**
 * Counts the EXTERNAL constant tensors of `plan`, then (if any) fetches each
 * distinct fully qualified name once from `external_map` into
 * `out` (allocated from the method allocator), validating the layout.
 *
 * @retval Error::InvalidState external constants exist but no map was given.
 * @retval Error::InvalidExternalData missing name, layout mismatch, or the
 *     data cannot be fetched.
 */
ET_NODISCARD Error load_external_constants(
    const executorch_flatbuffer::ExecutionPlan* plan,
    const NamedDataMap* external_map,
    MemoryAllocator* method_allocator,
    ExternalConstant** out,
    size_t* out_count);

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
