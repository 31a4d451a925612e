// The XNNPACK delegate payload's header ("XH00"), written by upstream ExecuTorch's exporter
// (backends/xnnpack/serialization/xnnpack_graph_serialize.py there):
//
//   bytes  0..3   padding (the flatbuffer convention's root offset slot)
//   bytes  4..7   magic "XH00"
//   bytes  8..9   header length, little-endian u16 (at least 30)
//   bytes 10..13  flatbuffer offset, u32        bytes 14..17  flatbuffer size, u32
//   bytes 18..21  constant data offset, u32     bytes 22..29  constant data size, u64
//
// A payload without the magic is a bare flatbuffer (the older layout).
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/result.h>

namespace executorch {
namespace backends {
namespace xnnpack {

struct PayloadRegions {
  const uint8_t* flatbuffer = nullptr;
  size_t flatbuffer_size = 0;
  // The constants that follow the flatbuffer (may be empty).
  const uint8_t* constant_data = nullptr;
  uint64_t constant_data_size = 0;
};

// Splits the payload into its regions, checking every offset and size against the payload
// (InvalidProgram naming the field otherwise).
runtime::Result<PayloadRegions> parse_payload(const void* data, size_t size);

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
