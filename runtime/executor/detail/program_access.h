/*
 * The one path from executor internals to Program's private state (private
 * header). Program befriends only this struct, so everything the loader,
 * the delegate code and the tests reach inside a Program is listed here.
 */
#pragma once

#include <cstddef>

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/executor/program.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {
namespace internal {

struct ProgramAccess {
  /// The verified flatbuffer root; valid while the Program lives.
  static const executorch_flatbuffer::Program* flatbuffer(
      const Program& program) {
    return program.internal_program_;
  }

  /// Program.segments[info.segment_index] through the program's loader.
  static Result<FreeableBuffer> load_segment(
      const Program& program, const DataLoader::SegmentInfo& info) {
    return program.LoadSegment(info);
  }

  /// Sub-blob `offset_index` of mutable_data_segments[mutable_index].
  static Error load_mutable_subsegment_into(
      const Program& program,
      size_t mutable_index,
      size_t offset_index,
      size_t size,
      void* buffer) {
    return program.load_mutable_subsegment_into(
        mutable_index, offset_index, size, buffer);
  }

  /// The payload of Program.backend_delegate_data[index].
  static Error backend_delegate_data(
      const Program& program,
      size_t index,
      const void** out_data,
      size_t* out_size) {
    return program.get_backend_delegate_data(index, out_data, out_size);
  }
};

}  // namespace internal
}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch
