// How ETDumpGen writes a logged value: its ETDump Value table, and for tensors their data
// into the caller's debug buffer. Internal to ETDumpGen.
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch_schema/etdump_schema_flatcc_generated.h>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>

namespace executorch {
namespace etdump {
namespace internal {

// The caller's buffer for tensor data: each blob starts at a 64-byte aligned offset (from
// the buffer's start) and the gaps are zeroed, so the written prefix is deterministic.
class DebugBuffer {
 public:
  static constexpr size_t kAlignment = 64;

  DebugBuffer() = default;
  explicit DebugBuffer(::executorch::runtime::Span<uint8_t> buffer)
      : buffer_(buffer) {}

  bool is_set() const {
    return buffer_.data() != nullptr;
  }
  size_t used() const {
    return used_;
  }
  void rewind(size_t to = 0) {
    used_ = to;
  }
  /// The offset the blob was written at, or OutOfResources when it does not fit (nothing
  /// is written then).
  ::executorch::runtime::Result<size_t> write(const void* data, size_t size);

 private:
  ::executorch::runtime::Span<uint8_t> buffer_;
  size_t used_ = 0;
};

using ValueRef = flatbuffers::Offset<::etdump::Value>;

/// The Value for one EValue; a null offset for kinds ETDump does not hold (None, String,
/// int/double/bool lists, ...). Errors: InvalidArgument for tensor data without a debug
/// buffer or an unsupported dtype, OutOfResources when the debug buffer is full. On error
/// the debug buffer is left as it was.
::executorch::runtime::Result<ValueRef> encode_evalue(
    flatbuffers::FlatBufferBuilder& fbb,
    DebugBuffer& debug_buffer,
    const ::executorch::runtime::EValue& value,
    bool is_program_output);

// The kinds a delegate can log for one of its nodes.
::executorch::runtime::Result<ValueRef> encode_value(
    flatbuffers::FlatBufferBuilder& fbb,
    DebugBuffer& debug_buffer,
    const executorch::aten::Tensor& value);
::executorch::runtime::Result<ValueRef> encode_value(
    flatbuffers::FlatBufferBuilder& fbb,
    DebugBuffer& debug_buffer,
    ::executorch::runtime::ArrayRef<executorch::aten::Tensor> value);
::executorch::runtime::Result<ValueRef> encode_value(
    flatbuffers::FlatBufferBuilder& fbb, DebugBuffer& debug_buffer, int value);
::executorch::runtime::Result<ValueRef> encode_value(
    flatbuffers::FlatBufferBuilder& fbb, DebugBuffer& debug_buffer, bool value);
::executorch::runtime::Result<ValueRef> encode_value(
    flatbuffers::FlatBufferBuilder& fbb,
    DebugBuffer& debug_buffer,
    double value);

}  // namespace internal
}  // namespace etdump
}  // namespace executorch
