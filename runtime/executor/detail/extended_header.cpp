#include <executorch/runtime/executor/detail/extended_header.h>

#include <cinttypes>
#include <cstring>

#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {
namespace detail {

constexpr char ExtendedHeader::kMagic[4];

Result<ExtendedHeader> ExtendedHeader::parse(const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  // magic (4) + length (4)
  if (data == nullptr || size < kHeaderOffset + 8 ||
      std::memcmp(bytes + kHeaderOffset, kMagic, sizeof(kMagic)) != 0) {
    return Error::NotFound;
  }
  const uint8_t* h = bytes + kHeaderOffset;
  const uint32_t length = read_le32(h + 4);
  if (length < kMinLength) {
    ET_LOG(
        Error,
        "extended header corrupt: header_length %" PRIu32 " < %" PRIu32,
        length,
        kMinLength);
    return Error::InvalidProgram;
  }
  const size_t known =
      length >= kLengthWithDataSize ? kLengthWithDataSize : kMinLength;
  if (size - kHeaderOffset < known) {
    ET_LOG(
        Error,
        "extended header corrupt: %zu head bytes cannot hold a %zu-byte header",
        size,
        known);
    return Error::InvalidProgram;
  }
  ExtendedHeader out{};
  out.program_size = read_le64(h + 8);
  out.segment_base_offset = read_le64(h + 16);
  out.segment_data_size = length >= kLengthWithDataSize ? read_le64(h + 24) : 0;
  return out;
}

}  // namespace detail
}  // namespace runtime
}  // namespace executorch
