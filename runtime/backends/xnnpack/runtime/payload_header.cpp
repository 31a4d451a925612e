#include "payload_header.h"

#include <cinttypes>
#include <cstring>

#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace backends {
namespace xnnpack {

using runtime::Error;
using runtime::Result;

namespace {

constexpr size_t kMagicOffset = 4;
constexpr char kMagic[4] = {'X', 'H', '0', '0'};
constexpr size_t kHeaderLengthOffset = 8;
constexpr size_t kFlatbufferOffsetOffset = 10;
constexpr size_t kFlatbufferSizeOffset = 14;
constexpr size_t kConstantOffsetOffset = 18;
constexpr size_t kConstantSizeOffset = 22;
constexpr size_t kMinHeaderSize = 30;
// A flatbuffer has at least its root offset and its file identifier.
constexpr size_t kMinFlatbufferSize = 8;

uint64_t read_le(const uint8_t* p, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i) {
    v |= static_cast<uint64_t>(p[i]) << (8 * i);
  }
  return v;
}

}  // namespace

Result<PayloadRegions> parse_payload(const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  if (bytes == nullptr) {
    ET_LOG(Error, "XnnpackBackend: the delegate payload is missing");
    return Error::InvalidProgram;
  }
  PayloadRegions regions;
  const bool has_header =
      size >= kMagicOffset + sizeof(kMagic) &&
      std::memcmp(bytes + kMagicOffset, kMagic, sizeof(kMagic)) == 0;
  if (!has_header) {
    regions.flatbuffer = bytes;
    regions.flatbuffer_size = size;
  } else {
    if (size < kMinHeaderSize) {
      ET_LOG(
          Error,
          "XnnpackBackend: payload of %zu bytes is shorter than its %zu-byte "
          "header",
          size,
          kMinHeaderSize);
      return Error::InvalidProgram;
    }
    const uint64_t header_length = read_le(bytes + kHeaderLengthOffset, 2);
    const uint64_t fb_offset = read_le(bytes + kFlatbufferOffsetOffset, 4);
    const uint64_t fb_size = read_le(bytes + kFlatbufferSizeOffset, 4);
    const uint64_t cd_offset = read_le(bytes + kConstantOffsetOffset, 4);
    const uint64_t cd_size = read_le(bytes + kConstantSizeOffset, 8);
    if (header_length < kMinHeaderSize || header_length > size) {
      ET_LOG(
          Error,
          "XnnpackBackend: payload header length %" PRIu64 " is invalid",
          header_length);
      return Error::InvalidProgram;
    }
    // All values are at most 2^32 except cd_size: the subtractions below cannot wrap.
    if (fb_offset < header_length || fb_offset > size ||
        fb_size > size - fb_offset) {
      ET_LOG(
          Error,
          "XnnpackBackend: payload flatbuffer [%" PRIu64 ", +%" PRIu64
          ") is outside the %zu-byte payload",
          fb_offset,
          fb_size,
          size);
      return Error::InvalidProgram;
    }
    if (cd_offset < fb_offset + fb_size || cd_offset > size ||
        cd_size > size - cd_offset) {
      ET_LOG(
          Error,
          "XnnpackBackend: payload constant data [%" PRIu64 ", +%" PRIu64
          ") overlaps the flatbuffer or is outside the %zu-byte payload",
          cd_offset,
          cd_size,
          size);
      return Error::InvalidProgram;
    }
    regions.flatbuffer = bytes + fb_offset;
    regions.flatbuffer_size = static_cast<size_t>(fb_size);
    regions.constant_data = bytes + cd_offset;
    regions.constant_data_size = cd_size;
  }
  if (regions.flatbuffer_size < kMinFlatbufferSize) {
    ET_LOG(
        Error,
        "XnnpackBackend: payload flatbuffer of %zu bytes is too small",
        regions.flatbuffer_size);
    return Error::InvalidProgram;
  }
  return regions;
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
