/*
 * Reading a .pte file's structure through its DataLoader: the extended
 * header, the program data and its flatbuffer, and segments.
 */
#include <executorch/runtime/executor/detail/program_file.h>

#include <cinttypes>
#include <cstring>

#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/executor/detail/extended_header.h>
#include <executorch/runtime/executor/detail/flatbuffer_vectors.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {
namespace detail {

namespace fb = executorch_flatbuffer;

namespace {

/// Program data must be aligned like malloc() memory so that the
/// flatbuffer's aligned scalars and force-aligned vectors stay aligned.
constexpr size_t kProgramAlignment = alignof(std::max_align_t);

bool is_aligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % kProgramAlignment == 0;
}

}  // namespace

Result<FileLayout> read_layout(DataLoader* loader, size_t file_size) {
  const size_t head_size = file_size < ExtendedHeader::kNumHeadBytes
                               ? file_size
                               : ExtendedHeader::kNumHeadBytes;
  Result<FreeableBuffer> head = loader->load(
      0,
      head_size,
      DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Program));
  if (!head.ok()) {
    ET_LOG(Error, "cannot read the first %zu bytes of the program", head_size);
    return head.error();
  }
  ET_CHECK_OR_RETURN_ERROR(
      head->size() == head_size && head->data() != nullptr,
      InvalidProgram,
      "loader returned %zu head bytes, asked for %zu",
      head->size(),
      head_size);

  Result<ExtendedHeader> eh = ExtendedHeader::parse(head->data(), head->size());
  if (eh.error() == Error::NotFound) {
    // No extended header: the whole file is the flatbuffer, no segments.
    return FileLayout{file_size, 0};
  }
  if (!eh.ok()) {
    return eh.error();
  }
  const uint64_t program_size = eh->program_size;
  const uint64_t base = eh->segment_base_offset;
  const uint64_t data_size = eh->segment_data_size;
  ET_CHECK_OR_RETURN_ERROR(
      program_size >= 8,
      InvalidProgram,
      "extended header program_size %" PRIu64 " < 8",
      program_size);
  ET_CHECK_OR_RETURN_ERROR(
      program_size <= file_size,
      InvalidProgram,
      "extended header program_size %" PRIu64 " exceeds the file size %zu",
      program_size,
      file_size);
  ET_CHECK_OR_RETURN_ERROR(
      program_size < kMaxProgramSize,
      InvalidProgram,
      "extended header program_size %" PRIu64 " too large for a flatbuffer",
      program_size);
  if (base != 0) {
    ET_CHECK_OR_RETURN_ERROR(
        base >= program_size,
        InvalidProgram,
        "extended header segment_base_offset %" PRIu64
        " overlaps the program data (program_size %" PRIu64 ")",
        base,
        program_size);
    ET_CHECK_OR_RETURN_ERROR(
        base <= file_size,
        InvalidProgram,
        "extended header segment_base_offset %" PRIu64
        " exceeds the file size %zu",
        base,
        file_size);
  }
  // Expected file size; skipped for old files with base != 0 and no size.
  if (data_size > 0 || base == 0) {
    uint64_t expected = program_size;
    if (base != 0) {
      ET_CHECK_OR_RETURN_ERROR(
          checked_add(base, data_size, &expected),
          InvalidProgram,
          "extended header segment_base_offset %" PRIu64
          " + segment_data_size %" PRIu64 " overflows",
          base,
          data_size);
    }
    ET_CHECK_OR_RETURN_ERROR(
        expected <= file_size,
        InvalidProgram,
        "file is truncated: the extended header needs %" PRIu64
        " bytes, the file has %zu",
        expected,
        file_size);
  }
  return FileLayout{program_size, base};
}

Result<FreeableBuffer> load_segment_from(
    DataLoader* loader,
    size_t segment_base_offset,
    const fb::Program* program,
    const DataLoader::SegmentInfo& segment_info) {
  const size_t index = segment_info.segment_index;
  if (loader == nullptr || segment_base_offset == 0) {
    ET_LOG(
        Error, "segment %zu requested, but the program has no segments", index);
    return Error::NotFound;
  }
  const auto* segs = program->segments();
  if (index >= vsize(segs)) {
    ET_LOG(
        Error,
        "segment index %zu out of range (%zu segments)",
        index,
        vsize(segs));
    return Error::NotFound;
  }
  const auto* seg = segs->Get(static_cast<flatbuffers::uoffset_t>(index));
  uint64_t start = 0;
  size_t start_sz = 0;
  size_t size_sz = 0;
  ET_CHECK_OR_RETURN_ERROR(
      checked_add<uint64_t>(segment_base_offset, seg->offset(), &start) &&
          checked_cast(start, &start_sz) && checked_cast(seg->size(), &size_sz),
      InvalidProgram,
      "segments[%zu] offset %" PRIu64 " overflows",
      index,
      seg->offset());
  return loader->load(start_sz, size_sz, segment_info);
}

/// The flatbuffer part of the file, [0, program_size), loaded and aligned.
Result<FreeableBuffer> load_program_data(
    DataLoader* loader, size_t program_size) {
  Result<FreeableBuffer> program_data = loader->load(
      0,
      program_size,
      DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Program));
  if (!program_data.ok()) {
    ET_LOG(Error, "cannot load %zu bytes of program data", program_size);
    return program_data.error();
  }
  ET_CHECK_OR_RETURN_ERROR(
      program_data->size() == program_size && program_data->data() != nullptr,
      InvalidProgram,
      "loader returned %zu bytes of program data, asked for %zu",
      program_data->size(),
      program_size);
  ET_CHECK_OR_RETURN_ERROR(
      is_aligned(program_data->data()),
      InvalidArgument,
      "program data at %p is not %zu-byte aligned",
      program_data->data(),
      kProgramAlignment);
  return program_data;
}

/// Identifier: exactly "ET12" (docs/format.md §1.8).
Error check_identifier(const uint8_t* data) {
  const char* id = flatbuffers::GetBufferIdentifier(data);
  if (std::memcmp(id, fb::ProgramIdentifier(), 4) == 0) {
    return Error::Ok;
  }
  if (id[0] == 'E' && id[1] == 'T') {
    ET_LOG(
        Error,
        "bad identifier: program version '%.4s' is not supported (want "
        "'%s')",
        id,
        fb::ProgramIdentifier());
  } else {
    ET_LOG(
        Error,
        "bad identifier '%.4s': not an ExecuTorch program (want '%s')",
        id,
        fb::ProgramIdentifier());
  }
  return Error::InvalidProgram;
}

/// Structural verification, at every level: after this every offset,
/// vector and string reachable from the root lies inside the data.
Result<const fb::Program*> verify_flatbuffer(
    const uint8_t* data, size_t program_size) {
  const uint32_t root_offset = runtime::detail::read_le32(data);
  ET_CHECK_OR_RETURN_ERROR(
      root_offset >= 8 && root_offset <= program_size - 4,
      InvalidProgram,
      "root offset %" PRIu32 " out of range [8, %zu]",
      root_offset,
      program_size - 4);
  flatbuffers::Verifier verifier(data, program_size);
  ET_CHECK_OR_RETURN_ERROR(
      fb::VerifyProgramBuffer(verifier),
      InvalidProgram,
      "flatbuffer verification failed: the program data is corrupt "
      "(offset, vector or string out of bounds, or nesting too deep)");
  return fb::GetProgram(data);
}

}  // namespace detail
}  // namespace runtime
}  // namespace executorch
