/*
 * A small .pte writer for the tests: builds programs with the flatbuffers
 * object API, lays them out like the upstream exporter (flatbuffer, "eh00"
 * extended header inserted at offset 8, 128-aligned segments) and offers hooks
 * to corrupt any part. Also captures runtime log lines so tests can check
 * that an error names the offending field.
 */
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <executorch/runtime/core/error.h>
#include <executorch_schema/program_generated.h>

namespace et_test {

namespace fb = executorch_flatbuffer;

/// A file image plus where its parts are.
struct PteFile {
  std::vector<uint8_t> bytes;
  bool has_header = false;
  size_t program_size = 0;  // flatbuffer bytes incl. header
  size_t segment_base = 0;  // 0 when no segments

  // Little-endian patch helpers.
  void put32(size_t off, uint32_t v) {
    for (int i = 0; i < 4; ++i)
      bytes[off + i] = uint8_t(v >> (8 * i));
  }
  void put64(size_t off, uint64_t v) {
    for (int i = 0; i < 8; ++i)
      bytes[off + i] = uint8_t(v >> (8 * i));
  }
  uint32_t get32(size_t off) const {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
      v |= uint32_t(bytes[off + i]) << (8 * i);
    return v;
  }
};

struct WriteOptions {
  /// Write the extended header even if all segments are empty.
  bool force_header = false;
  /// Never write the extended header.
  bool no_header = false;
  size_t segment_alignment = 128;
  /// Called after the segment table is filled in, before packing.
  std::function<void(fb::ProgramT&)> after_layout;
};

/// Packs `program` and appends `segments` (the program's segment table is
/// rewritten to describe them).
PteFile write_pte(fb::ProgramT program, const std::vector<std::vector<uint8_t>>& segments,
                  const WriteOptions& opts = {});

/// Splits a file into its program and segments (inverse of write_pte).
bool read_pte(const std::vector<uint8_t>& file, fb::ProgramT* program,
              std::vector<std::vector<uint8_t>>* segments);

// ---- building blocks ----

std::unique_ptr<fb::EValueT> tensor_value(fb::ScalarType dtype, std::vector<int32_t> sizes,
                                          std::vector<uint8_t> dim_order, uint32_t mem_id,
                                          uint64_t mem_offset, uint32_t data_buffer_idx = 0);
std::unique_ptr<fb::EValueT> int_value(int64_t v);
std::unique_ptr<fb::EValueT> null_value();

/// The test program "add" (one method "forward"): out = a + b * alpha with
/// three planned float[2,2] tensors (mem 1 at 0, 16, 32), an Int alpha, and a
/// constant float[2] weight (value 4, data_buffer_idx 1) in the constant
/// segment (segment 0, 8 bytes: 1.0f, 2.0f). With `legacy_constants`, the
/// weight is in constant_buffer instead. Values: 0 a, 1 b, 2 out, 3 alpha,
/// 4 weight.
struct AddProgram {
  fb::ProgramT program;
  std::vector<std::vector<uint8_t>> segments;
};
AddProgram make_add_program(bool legacy_constants = false);

/// make_add_program() written out.
PteFile add_pte(const WriteOptions& opts = {});

/// Allocates 16-aligned memory holding `bytes` (for BufferDataLoader).
struct AlignedBytes {
  explicit AlignedBytes(const std::vector<uint8_t>& bytes);
  AlignedBytes(const AlignedBytes&) = delete;
  ~AlignedBytes() {
    std::free(data);
  }
  uint8_t* data = nullptr;
  size_t size = 0;
};

// ---- log capture ----

/// Starts capturing runtime log lines (idempotent) and clears the buffer.
void clear_log();
/// All lines captured since clear_log(), newline separated.
std::string captured_log();

}  // namespace et_test
