#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>

#include <algorithm>
#include <cinttypes>
#include <cstring>

#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/executor/detail/flatbuffer_vectors.h>
#include <executorch/runtime/executor/detail/program_validation.h>
#include <executorch/runtime/platform/log.h>
#include <executorch_schema/flat_tensor_generated.h>

namespace executorch {
namespace extension {

namespace ft = flat_tensor_flatbuffer;
using executorch::ET_RUNTIME_NAMESPACE::TensorLayout;
using executorch::runtime::DataLoader;
using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Result;
using executorch::runtime::Span;
using runtime::detail::checked_add;
using runtime::detail::checked_cast;
using runtime::detail::range_within;
using runtime::detail::vsize;

namespace {

constexpr size_t kAlignment = alignof(std::max_align_t);
constexpr size_t kMaxRank = 16;

// Checks one entry; the file-level layout was checked by load().
Error check_entry(
    const ft::FlatTensor* flat,
    const FlatTensorHeader& h,
    flatbuffers::uoffset_t i) {
  const auto* e = flat->named_data()->Get(i);
  ET_CHECK_OR_RETURN_ERROR(
      e != nullptr && e->key() != nullptr,
      InvalidExternalData,
      "ptd named_data[%u].key is missing",
      static_cast<unsigned>(i));
  const auto* segs = flat->segments();
  ET_CHECK_OR_RETURN_ERROR(
      e->segment_index() < segs->size(),
      InvalidExternalData,
      "ptd named_data[%u].segment_index %" PRIu32 " out of range (%u segments)",
      static_cast<unsigned>(i),
      e->segment_index(),
      static_cast<unsigned>(segs->size()));
  const auto* s = segs->Get(e->segment_index());
  ET_CHECK_OR_RETURN_ERROR(
      s != nullptr && range_within(s->offset(), s->size(), h.segment_data_size),
      InvalidExternalData,
      "ptd segments[%" PRIu32 "] lies outside the segment area (%" PRIu64
      " bytes)",
      e->segment_index(),
      h.segment_data_size);
  const auto* layout = e->tensor_layout();
  if (layout == nullptr) {
    return Error::Ok;
  }
  ET_CHECK_OR_RETURN_ERROR(
      layout->sizes() != nullptr && layout->dim_order() != nullptr &&
          layout->sizes()->size() == layout->dim_order()->size() &&
          layout->sizes()->size() <= kMaxRank,
      InvalidExternalData,
      "ptd named_data[%u].tensor_layout: sizes/dim_order missing, of "
      "different length, or rank > %zu",
      static_cast<unsigned>(i),
      kMaxRank);
  const size_t elem = runtime::detail::scalar_type_element_size(
      static_cast<int8_t>(layout->scalar_type()));
  ET_CHECK_OR_RETURN_ERROR(
      elem != 0,
      InvalidExternalData,
      "ptd named_data[%u].tensor_layout.scalar_type %d is invalid",
      static_cast<unsigned>(i),
      static_cast<int>(layout->scalar_type()));
  size_t numel = 0;
  size_t nbytes = 0;
  ET_CHECK_OR_RETURN_ERROR(
      runtime::detail::checked_nbytes(
          layout->sizes()->data(),
          layout->sizes()->size(),
          elem,
          &numel,
          &nbytes),
      InvalidExternalData,
      "ptd named_data[%u].tensor_layout.sizes: negative size or overflow",
      static_cast<unsigned>(i));
  ET_CHECK_OR_RETURN_ERROR(
      nbytes <= s->size(),
      InvalidExternalData,
      "ptd named_data[%u]: tensor of %zu bytes in a %" PRIu64 "-byte segment",
      static_cast<unsigned>(i),
      nbytes,
      s->size());
  return Error::Ok;
}

const ft::NamedData* find(const ft::FlatTensor* flat, std::string_view key) {
  const auto* named = flat->named_data();
  for (flatbuffers::uoffset_t i = 0; i < named->size(); ++i) {
    const auto* k = named->Get(i)->key();
    if (k->size() == key.size() &&
        (key.empty() || std::memcmp(k->data(), key.data(), key.size()) == 0)) {
      return named->Get(i);
    }
  }
  return nullptr;
}

}  // namespace

FlatTensorDataMap::~FlatTensorDataMap() = default;

Result<FlatTensorDataMap> FlatTensorDataMap::load(DataLoader* loader) {
  ET_CHECK_OR_RETURN_ERROR(
      loader != nullptr, InvalidArgument, "FlatTensorDataMap: loader is null");
  Result<size_t> file_size_r = loader->size();
  if (!file_size_r.ok()) {
    return file_size_r.error();
  }
  const size_t file_size = file_size_r.get();
  ET_CHECK_OR_RETURN_ERROR(
      file_size >= FlatTensorHeader::kNumHeadBytes,
      InvalidExternalData,
      "ptd file too small: %zu bytes",
      file_size);
  Result<FreeableBuffer> head = loader->load(
      0,
      FlatTensorHeader::kNumHeadBytes,
      DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Program));
  if (!head.ok()) {
    return head.error();
  }
  Result<FlatTensorHeader> fh =
      FlatTensorHeader::Parse(head->data(), head->size());
  ET_CHECK_OR_RETURN_ERROR(
      fh.ok(),
      InvalidExternalData,
      "ptd header missing or corrupt (error 0x%x)",
      static_cast<unsigned>(fh.error()));
  const FlatTensorHeader h = fh.get();

  uint64_t fb_end = 0;
  ET_CHECK_OR_RETURN_ERROR(
      checked_add(h.flatbuffer_offset, h.flatbuffer_size, &fb_end) &&
          fb_end >= 8 && fb_end <= file_size &&
          fb_end < FLATBUFFERS_MAX_BUFFER_SIZE,
      InvalidExternalData,
      "ptd header flatbuffer_offset %" PRIu64 " + flatbuffer_size %" PRIu64
      " is not inside the %zu-byte file",
      h.flatbuffer_offset,
      h.flatbuffer_size,
      file_size);
  uint64_t seg_end = 0;
  ET_CHECK_OR_RETURN_ERROR(
      checked_add(h.segment_base_offset, h.segment_data_size, &seg_end) &&
          seg_end <= file_size &&
          (h.segment_data_size == 0 || h.segment_base_offset >= fb_end),
      InvalidExternalData,
      "ptd header segment_base_offset %" PRIu64 " + segment_data_size %" PRIu64
      " is not inside the %zu-byte file after the flatbuffer",
      h.segment_base_offset,
      h.segment_data_size,
      file_size);

  Result<FreeableBuffer> data = loader->load(
      0,
      static_cast<size_t>(fb_end),
      DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Program));
  if (!data.ok()) {
    return data.error();
  }
  ET_CHECK_OR_RETURN_ERROR(
      data->size() == fb_end && data->data() != nullptr,
      InvalidExternalData,
      "loader returned %zu bytes, asked for %" PRIu64,
      data->size(),
      fb_end);
  ET_CHECK_OR_RETURN_ERROR(
      reinterpret_cast<uintptr_t>(data->data()) % kAlignment == 0,
      InvalidArgument,
      "ptd data at %p is not %zu-byte aligned",
      data->data(),
      kAlignment);
  const auto* bytes = static_cast<const uint8_t*>(data->data());
  ET_CHECK_OR_RETURN_ERROR(
      ft::FlatTensorBufferHasIdentifier(bytes),
      InvalidExternalData,
      "ptd identifier '%.4s' is not '%s'",
      flatbuffers::GetBufferIdentifier(bytes),
      ft::FlatTensorIdentifier());
  {
    flatbuffers::Verifier verifier(bytes, static_cast<size_t>(fb_end));
    ET_CHECK_OR_RETURN_ERROR(
        ft::VerifyFlatTensorBuffer(verifier),
        InvalidExternalData,
        "ptd flatbuffer verification failed: the file is corrupt");
  }
  const ft::FlatTensor* flat = ft::GetFlatTensor(bytes);
  ET_CHECK_OR_RETURN_ERROR(
      flat->named_data() != nullptr,
      InvalidExternalData,
      "ptd FlatTensor.named_data is missing");
  ET_CHECK_OR_RETURN_ERROR(
      flat->segments() != nullptr,
      InvalidExternalData,
      "ptd FlatTensor.segments is missing");
  for (flatbuffers::uoffset_t i = 0; i < flat->named_data()->size(); ++i) {
    Error err = check_entry(flat, h, i);
    if (err != Error::Ok) {
      return err;
    }
  }
  return FlatTensorDataMap(h, std::move(data.get()), flat, loader);
}

Result<const TensorLayout> FlatTensorDataMap::get_tensor_layout(
    std::string_view key) const {
  const ft::NamedData* e = find(flat_tensor_, key);
  if (e == nullptr) {
    return Error::NotFound;
  }
  const auto* layout = e->tensor_layout();
  ET_CHECK_OR_RETURN_ERROR(
      layout != nullptr,
      NotFound,
      "ptd key '%.*s' has no tensor layout",
      static_cast<int>(key.size()),
      key.data());
  return TensorLayout::create(
      Span<const int32_t>(layout->sizes()->data(), layout->sizes()->size()),
      Span<const uint8_t>(
          layout->dim_order()->data(), layout->dim_order()->size()),
      static_cast<executorch::aten::ScalarType>(layout->scalar_type()));
}

Result<FreeableBuffer> FlatTensorDataMap::get_data(std::string_view key) const {
  const ft::NamedData* e = find(flat_tensor_, key);
  if (e == nullptr) {
    return Error::NotFound;
  }
  const auto* s = flat_tensor_->segments()->Get(e->segment_index());
  size_t offset = 0;
  size_t size = 0;
  ET_CHECK_OR_RETURN_ERROR(
      checked_cast(header_.segment_base_offset + s->offset(), &offset) &&
          checked_cast(s->size(), &size),
      InvalidExternalData,
      "ptd segment offset does not fit in size_t");
  return loader_->load(
      offset,
      size,
      DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::External));
}

Error FlatTensorDataMap::load_data_into(
    std::string_view key, void* buffer, size_t size) const {
  const ft::NamedData* e = find(flat_tensor_, key);
  if (e == nullptr) {
    return Error::NotFound;
  }
  Result<const TensorLayout> layout = get_tensor_layout(key);
  if (!layout.ok()) {
    return layout.error();
  }
  const size_t nbytes = layout->nbytes();
  ET_CHECK_OR_RETURN_ERROR(
      buffer != nullptr || nbytes == 0,
      InvalidArgument,
      "load_data_into: destination is null");
  ET_CHECK_OR_RETURN_ERROR(
      size >= nbytes,
      InvalidArgument,
      "load_data_into '%.*s': buffer of %zu bytes, tensor needs %zu",
      static_cast<int>(key.size()),
      key.data(),
      size,
      nbytes);
  const auto* s = flat_tensor_->segments()->Get(e->segment_index());
  size_t offset = 0;
  ET_CHECK_OR_RETURN_ERROR(
      checked_cast(header_.segment_base_offset + s->offset(), &offset),
      InvalidExternalData,
      "ptd segment offset does not fit in size_t");
  return loader_->load_into(
      offset,
      nbytes,
      DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::External),
      buffer);
}

Result<uint32_t> FlatTensorDataMap::get_num_keys() const {
  return flat_tensor_->named_data()->size();
}

Result<const char*> FlatTensorDataMap::get_key(uint32_t index) const {
  const uint32_t n = flat_tensor_->named_data()->size();
  ET_CHECK_OR_RETURN_ERROR(
      index < n,
      InvalidArgument,
      "key index %" PRIu32 " out of range (%" PRIu32 " keys)",
      index,
      n);
  return flat_tensor_->named_data()->Get(index)->key()->c_str();
}

}  // namespace extension
}  // namespace executorch
