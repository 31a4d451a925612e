#include <executorch/extension/flat_tensor/serialize/flat_tensor_header.h>

#include <cinttypes>
#include <cstring>

#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {

using runtime::Error;
using runtime::Result;
using runtime::detail::read_le32;
using runtime::detail::read_le64;

constexpr char FlatTensorHeader::kMagic[FlatTensorHeader::kMagicSize];

Result<FlatTensorHeader> FlatTensorHeader::Parse(
    const void* data, size_t size) {
  if (data == nullptr || size < kNumHeadBytes) {
    return Error::InvalidArgument;
  }
  const uint8_t* h = static_cast<const uint8_t*>(data) + kHeaderOffset;
  if (std::memcmp(h, kMagic, kMagicSize) != 0) {
    return Error::NotFound;
  }
  const uint32_t length = read_le32(h + 4);
  if (length < kHeaderExpectedLength) {
    ET_LOG(
        Error,
        "FlatTensor header length %" PRIu32 " < %" PRIu32,
        length,
        kHeaderExpectedLength);
    return Error::InvalidExternalData;
  }
  FlatTensorHeader out{};
  out.flatbuffer_offset = read_le64(h + 8);
  out.flatbuffer_size = read_le64(h + 16);
  out.segment_base_offset = read_le64(h + 24);
  out.segment_data_size = read_le64(h + 32);
  return out;
}

}  // namespace extension
}  // namespace executorch
