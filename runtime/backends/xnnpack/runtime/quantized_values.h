// Quantized values of the payload (XNNQuantizedTensorValue).
//
// The backend computes in float. A quantized constant (weights: qint8/quint8/qint32 per
// tensor, qcint8/qcint32/qcint4 per channel, qbint4 blockwise with bf16 or float scales) is
// decoded once at init into the floats its integers stand for, (q - zero_point) * scale. A
// quantized activation (qint8/quint8 per tensor, or qdint8 with per-row scales chosen at run
// time) holds floats too, and after the node that writes it, a step rounds it onto its grid:
// y = (clamp(round(x / scale) + zero_point, qmin, qmax) - zero_point) * scale. So every node
// type runs on quantized values with its float code, and a Convert is a copy followed by that
// rounding (fp32 -> quantized) or nothing more (quantized -> fp32).
//
// The exception is the dynamically quantized fully connected (qdint8 rows x qbint4 weights,
// upstream's 8da4w): it runs on the integers, with XNNPACK's own arithmetic
// (compute/qd8_qb4w.h), because float emulation rounds differently by an ulp here and there and
// a quantized network amplifies that. So a qdint8 value also keeps its integers and row
// parameters (Quant::codes), and a qbint4 constant its nibbles (Value::int4_blockwise).
//
// External (argument) values must be float32: a quantized one is refused with NotSupported.
#pragma once

#include <cstdint>
#include <memory>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/named_data_map.h>
#include <xnnpack_schema/schema_generated.h>

#include "graph.h"
#include "payload_header.h"

namespace executorch {
namespace backends {
namespace xnnpack {

// Reads the quantization of value `id` (its common fields are already in graph.values[id]):
// decodes a constant, or records an activation's Quant. InvalidProgram for inconsistent
// parameters (scale count, channel dim, zero point, sizes), NotSupported for a combination
// the backend does not run (naming datatype and parameters).
runtime::Error read_quantized(
    Graph& graph,
    const ::xnnpack_schema::XNNGraph* g,
    const PayloadRegions& regions,
    const runtime::NamedDataMap* named_data,
    uint32_t id,
    const ::xnnpack_schema::XNNQuantizedTensorValue* qv);

// Allocates the side buffers (integers, row scales and zero points) of every dynamically
// quantized value. Run once every node has been read, so that a payload rejected on the way
// allocates nothing for dims it merely claims. MemoryAllocationFailed, naming the value.
runtime::Error allocate_dynamic_quant_buffers(Graph& graph);

// The step that rounds value `id` onto its grid after it is written (nullptr if the value is
// not quantized).
std::unique_ptr<Step> make_quantize_step(const Value& value, uint32_t id);

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
