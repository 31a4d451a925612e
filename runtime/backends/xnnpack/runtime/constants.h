// Where a constant's bytes are: the payload's constant region, the program's named data (by
// key) or, in the older layout, inline in the flatbuffer. Shared by the plain and the quantized
// value readers (graph_builder.cpp, quantized_values.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/named_data_map.h>
#include <xnnpack_schema/schema_generated.h>

#include "payload_header.h"

namespace executorch {
namespace backends {
namespace xnnpack {

// The schema's name of a datatype, for messages.
const char* datatype_name(::xnnpack_schema::XNNDatatype t);

// The bytes of constant `index` (a constant_buffer_idx or scale_buffer_idx), which must hold
// exactly `nbytes`. Named data is returned in `holder` (the caller frees it when done).
// InvalidProgram (index, size or region wrong) or InvalidExternalData (named data missing or
// short), with a log line naming value `value_id`.
runtime::Error locate_constant(
    const ::xnnpack_schema::XNNGraph* g,
    const PayloadRegions& regions,
    const runtime::NamedDataMap* named_data,
    uint32_t value_id,
    uint32_t index,
    size_t nbytes,
    runtime::FreeableBuffer& holder,
    const uint8_t** out);

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
