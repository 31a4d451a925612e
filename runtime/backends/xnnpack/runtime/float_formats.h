// fp16 and bf16 values: what upstream's exporter writes for a model in half precision
// (model.half(): fp16 activations, constants and delegate arguments; bf16 the same way when
// its partitioner is asked for bf16), and the index output of ArgMaxPooling2d.
//
// The backend computes in float. An fp16/bf16 constant is decoded once at init. An fp16/bf16
// activation holds floats, and after the node that writes it a step rounds it onto the
// format's grid (round to nearest even, as a float -> half conversion does), so every node
// type runs in half precision with its float code; XNNPACK's own half-precision kernels
// accumulate in float too and round when they store, so the two agree within the usual fp16
// tolerance. An external value that is not float32 gets a float staging buffer at init: the
// caller's Half/BFloat16 tensor is converted into it when bound, and the output staging
// buffers are converted into the caller's tensors after the steps ran (exact, the values are
// already on their grid). Nothing is allocated at execute.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <xnnpack_schema/schema_generated.h>

#include "graph.h"

namespace executorch {
namespace backends {
namespace xnnpack {

// The format of a non-quantized value of datatype `t`; false for a datatype this backend
// does not run (the caller reports it).
bool float_format_of(::xnnpack_schema::XNNDatatype t, FloatFormat* out);

// Why a non-quantized datatype is refused, for the NotSupported message.
const char* unsupported_datatype_reason(::xnnpack_schema::XNNDatatype t);

// Bytes of one stored element of a constant in format f (fp32 4, fp16/bf16 2).
size_t element_bytes(FloatFormat f);

// Decodes `numel` elements stored in format f (any alignment) into `out`.
void decode_elements(
    FloatFormat f, const uint8_t* bytes, size_t numel, float* out);

// The step that rounds value `id` onto its fp16/bf16 grid after it is written (nullptr for
// the other formats).
std::unique_ptr<Step> make_round_step(const Value& value, uint32_t id);

// Gives every external value that is not float32 its float staging buffer (after all nodes
// were accepted). MemoryAllocationFailed.
runtime::Error allocate_staging(Graph& graph);

// Binds the caller's tensor `t` to the non-fp32 external value `v`: checks its dtype against
// the value's format (InvalidArgument otherwise) and, for an input, converts it into the
// staging buffer. `t` has the value's shape (checked by the caller).
runtime::Error bind_staged(
    Value& v, runtime::etensor::Tensor& t, bool is_output);

// Converts every non-fp32 external output's staging buffer into its bound tensor.
void write_back_staged_outputs(Graph& graph);

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
