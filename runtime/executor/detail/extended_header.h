/*
 * The optional "eh00" extended header of a .pte file (private header).
 *
 * It sits at file offset 8, inside the flatbuffer's bytes, and tells where the
 * flatbuffer ends and where the segment area begins. See docs/format.md §1.1,
 * §1.2.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/result.h>

namespace executorch {
namespace runtime {
namespace detail {

struct ExtendedHeader {
  /// Bytes a reader asks for to find the header.
  static constexpr size_t kNumHeadBytes = 64;
  /// File offset of the magic.
  static constexpr size_t kHeaderOffset = 8;
  /// Exact magic; "eh01" and friends count as "no header".
  static constexpr char kMagic[4] = {'e', 'h', '0', '0'};
  /// Smallest header length that carries program_size and
  /// segment_base_offset (magic + length + 2 x uint64).
  static constexpr uint32_t kMinLength = 24;
  /// Header length that also carries segment_data_size.
  static constexpr uint32_t kLengthWithDataSize = 32;

  /**
   * Parses the head of a file (`size` bytes at `data`).
   *
   * @returns the header; NotFound if the magic is absent (or the data is too
   *     short to hold it); InvalidProgram if the magic is present but the
   *     header is truncated or declares a length below kMinLength.
   */
  static Result<ExtendedHeader> parse(const void* data, size_t size);

  uint64_t program_size;
  uint64_t segment_base_offset;
  /// 0 when the header predates the field.
  uint64_t segment_data_size;
};

}  // namespace detail
}  // namespace runtime
}  // namespace executorch
