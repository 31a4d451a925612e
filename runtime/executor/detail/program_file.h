/*
 * Reading a .pte file's structure through its DataLoader (private header):
 * the extended header, the program data and its flatbuffer, and segments.
 * Used by Program::load and Program::LoadSegment.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/result.h>
#include <executorch_schema/program_generated.h>

namespace executorch {
namespace runtime {
namespace detail {

/// Largest flatbuffer the flatbuffers library can address (and verify).
constexpr uint64_t kMaxProgramSize = FLATBUFFERS_MAX_BUFFER_SIZE;

/// Where the flatbuffer ends and the segments begin, from the head bytes.
struct FileLayout {
  uint64_t program_size;
  /// 0: the file has no extended header, hence no segments.
  uint64_t segment_base_offset;
};

/// Reads and checks the extended header (if any) against the file size.
Result<FileLayout> read_layout(DataLoader* loader, size_t file_size);

/// The flatbuffer part of the file, [0, program_size), loaded; InvalidArgument
/// when the loader's buffer is not max-aligned.
Result<FreeableBuffer> load_program_data(
    DataLoader* loader, size_t program_size);

/// InvalidProgram unless the identifier is the one this runtime reads.
Error check_identifier(const uint8_t* data);

/// Runs the flatbuffers Verifier: afterwards every offset, vector and string
/// reachable from the root lies inside [data, data + program_size).
Result<const executorch_flatbuffer::Program*> verify_flatbuffer(
    const uint8_t* data, size_t program_size);

/**
 * Loads segments[segment_info.segment_index] of `program` through `loader`,
 * the segment area starting at `segment_base_offset`. NotFound when there is
 * no segment area or the index is out of range.
 */
Result<FreeableBuffer> load_segment_from(
    DataLoader* loader,
    size_t segment_base_offset,
    const executorch_flatbuffer::Program* program,
    const DataLoader::SegmentInfo& segment_info);

}  // namespace detail
}  // namespace runtime
}  // namespace executorch
