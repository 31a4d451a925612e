#include <executorch/runtime/executor/pte_data_map.h>

#include <cinttypes>
#include <cstring>

#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/platform/log.h>
#include <executorch_schema/program_generated.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {
namespace internal {

Result<PteDataMap> PteDataMap::create(
    DataLoader* loader,
    size_t segment_base_offset,
    const executorch_flatbuffer::Program* program) {
  ET_CHECK_OR_RETURN_ERROR(
      loader != nullptr && program != nullptr,
      InvalidArgument,
      "PteDataMap needs a loader and a program");
  ET_CHECK_OR_RETURN_ERROR(
      program->named_data() != nullptr,
      InvalidArgument,
      "program has no named_data");
  ET_CHECK_OR_RETURN_ERROR(
      program->segments() != nullptr,
      InvalidArgument,
      "program lists named_data but no segments");
  return PteDataMap(loader, segment_base_offset, program);
}

PteDataMap::~PteDataMap() = default;

Result<const TensorLayout> PteDataMap::get_tensor_layout(
    ET_UNUSED std::string_view key) const {
  return Error::NotImplemented;
}

Error PteDataMap::load_data_into(
    ET_UNUSED std::string_view key,
    ET_UNUSED void* buffer,
    ET_UNUSED size_t size) const {
  return Error::NotImplemented;
}

Result<FreeableBuffer> PteDataMap::get_data(std::string_view key) const {
  const auto* named = program_->named_data();
  const auto* segments = program_->segments();
  for (flatbuffers::uoffset_t i = 0; i < named->size(); ++i) {
    const auto* entry = named->Get(i);
    if (entry == nullptr || entry->key() == nullptr) {
      continue;
    }
    const auto* k = entry->key();
    if (k->size() != key.size() ||
        (key.size() != 0 &&
         std::memcmp(k->data(), key.data(), key.size()) != 0)) {
      continue;
    }
    const uint32_t seg = entry->segment_index();
    ET_CHECK_OR_RETURN_ERROR(
        detail::index_in_range(seg, segments->size()),
        InvalidProgram,
        "named_data[%u].segment_index %" PRIu32 " out of range (%u segments)",
        static_cast<unsigned>(i),
        seg,
        static_cast<unsigned>(segments->size()));
    ET_CHECK_OR_RETURN_ERROR(
        segment_base_offset_ != 0,
        NotFound,
        "named_data '%.*s': program has no segment area",
        static_cast<int>(key.size()),
        key.data());
    const auto* ds = segments->Get(seg);
    ET_CHECK_OR_RETURN_ERROR(
        ds != nullptr, InvalidProgram, "segments[%" PRIu32 "] is null", seg);
    uint64_t start = 0;
    size_t start_sz = 0;
    size_t size_sz = 0;
    ET_CHECK_OR_RETURN_ERROR(
        detail::checked_add<uint64_t>(
            segment_base_offset_, ds->offset(), &start) &&
            detail::checked_cast(start, &start_sz) &&
            detail::checked_cast(ds->size(), &size_sz),
        InvalidProgram,
        "segments[%" PRIu32 "] offset overflows",
        seg);
    return loader_->load(
        start_sz,
        size_sz,
        DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Constant, seg));
  }
  return Error::NotFound;
}

Result<uint32_t> PteDataMap::get_num_keys() const {
  return program_->named_data()->size();
}

Result<const char*> PteDataMap::get_key(uint32_t index) const {
  const auto* named = program_->named_data();
  ET_CHECK_OR_RETURN_ERROR(
      index < named->size(),
      InvalidArgument,
      "key index %" PRIu32 " out of range (%u keys)",
      index,
      static_cast<unsigned>(named->size()));
  const auto* entry = named->Get(index);
  ET_CHECK_OR_RETURN_ERROR(
      entry != nullptr && entry->key() != nullptr,
      InvalidProgram,
      "named_data[%" PRIu32 "].key is null",
      index);
  return entry->key()->c_str();
}

}  // namespace internal
}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch
