/*
 * The header of a .ptd (FlatTensor) file: at file offset 8, magic "FH01",
 * then a little-endian uint32 header length and four uint64 fields telling
 * where the flatbuffer and the segment area are.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace extension {

struct ET_API FlatTensorHeader {
  /// Bytes a reader asks for to find the header.
  static constexpr size_t kNumHeadBytes = 64;
  /// File offset of the magic.
  static constexpr size_t kHeaderOffset = 8;
  static constexpr size_t kMagicSize = 4;
  static constexpr char kMagic[kMagicSize] = {'F', 'H', '0', '1'};
  /// magic + length + four uint64 fields.
  static constexpr uint32_t kHeaderExpectedLength = 4 + 4 + 8 + 8 + 8 + 8;

  /**
   * Parses the first `size` bytes of a file.
   *
   * @retval Error::InvalidArgument fewer than kNumHeadBytes bytes.
   * @retval Error::NotFound no "FH01" magic.
   * @retval Error::InvalidExternalData the header length is too small.
   */
  static runtime::Result<FlatTensorHeader> Parse(const void* data, size_t size);

  /// Offset of the flatbuffer payload (after the padded header).
  uint64_t flatbuffer_offset;
  /// Length of the flatbuffer payload.
  uint64_t flatbuffer_size;
  /// Absolute offset of the segment area.
  uint64_t segment_base_offset;
  /// Bytes of segment data.
  uint64_t segment_data_size;
};

}  // namespace extension
}  // namespace executorch
