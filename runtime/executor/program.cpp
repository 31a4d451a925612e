#include <executorch/runtime/executor/program.h>

#include <cinttypes>
#include <cstddef>
#include <cstring>

#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/executor/detail/flatbuffer_vectors.h>
#include <executorch/runtime/executor/detail/program_file.h>
#include <executorch/runtime/executor/detail/program_validation.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/profiler.h>
#include <executorch_schema/program_generated.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

namespace fb = executorch_flatbuffer;
using runtime::detail::check_identifier;
using runtime::detail::checked_add;
using runtime::detail::checked_cast;
using runtime::detail::FileLayout;
using runtime::detail::kMaxProgramSize;
using runtime::detail::load_program_data;
using runtime::detail::load_segment_from;
using runtime::detail::range_within;
using runtime::detail::read_layout;
using runtime::detail::verify_flatbuffer;
using runtime::detail::vsize;

namespace {

/// True iff the program keeps its constants in a segment (docs/format.md §1.4).
/// A single offset is the reserved placeholder alone: no constants are in
/// the segment and the legacy constant_buffer table (if any) applies.
bool uses_constant_segment(const fb::Program* program) {
  const auto* cs = program->constant_segment();
  return cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 1;
}

/// Index of the plan named `name`, or -1.
int64_t find_plan(const fb::Program* program, const char* name) {
  const auto* plans = program->execution_plan();
  if (name == nullptr || plans == nullptr) {
    return -1;
  }
  const size_t len = std::strlen(name);
  for (flatbuffers::uoffset_t i = 0; i < plans->size(); ++i) {
    // Entries and names were checked by validate_program_tables.
    const auto* plan = plans->Get(i);
    if (plan->name()->size() == len &&
        std::memcmp(plan->name()->data(), name, len) == 0) {
      return static_cast<int64_t>(i);
    }
  }
  return -1;
}

/// Program validation (detail/program_validation.cpp): the program tables
/// always, every plan too under InternalConsistency (else load_method
/// validates the plan it loads).
Error validate_program(
    const fb::Program* program,
    size_t segment_base_offset,
    size_t file_size,
    Program::Verification verification) {
  const runtime::detail::ProgramLayout layout{
      static_cast<uint64_t>(segment_base_offset),
      static_cast<uint64_t>(file_size)};
  ET_CHECK_OK_OR_RETURN_ERROR(
      runtime::detail::validate_program_tables(program, layout));
  if (verification == Program::Verification::InternalConsistency) {
    ET_CHECK_OK_OR_RETURN_ERROR(
        runtime::detail::validate_all_execution_plans(program));
  }
  return Error::Ok;
}

/// The constant segment, loaded once (empty on the legacy constant_buffer
/// path). Its index and offsets were checked by validate_program_tables.
Result<FreeableBuffer> load_constant_segment(
    DataLoader* loader,
    size_t segment_base_offset,
    const fb::Program* program) {
  if (!uses_constant_segment(program)) {
    return FreeableBuffer();
  }
  const uint32_t seg = program->constant_segment()->segment_index();
  ET_CHECK_OR_RETURN_ERROR(
      segment_base_offset != 0,
      InvalidProgram,
      "constant_segment refers to segment %" PRIu32
      " but the file has no segment area (no extended header)",
      seg);
  Result<FreeableBuffer> cs = load_segment_from(
      loader,
      segment_base_offset,
      program,
      DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Constant, seg));
  if (!cs.ok()) {
    ET_LOG(
        Error, "cannot load the constant segment (segments[%" PRIu32 "])", seg);
  }
  return cs;
}

}  // namespace

Result<Program> Program::load(DataLoader* loader, Verification verification) {
  EXECUTORCH_SCOPE_PROF("Program::load");
  ET_CHECK_OR_RETURN_ERROR(
      loader != nullptr, InvalidArgument, "Program::load: loader is null");
  ET_CHECK_OR_RETURN_ERROR(
      verification == Verification::Minimal ||
          verification == Verification::InternalConsistency,
      InvalidArgument,
      "unknown verification level %d",
      static_cast<int>(verification));

  Result<size_t> file_size_r = loader->size();
  if (!file_size_r.ok()) {
    ET_LOG(Error, "cannot get the program's size from the loader");
    return file_size_r.error();
  }
  const size_t file_size = file_size_r.get();
  ET_CHECK_OR_RETURN_ERROR(
      file_size >= 8,
      InvalidProgram,
      "file too small: %zu bytes cannot hold a program",
      file_size);

  Result<FileLayout> layout = read_layout(loader, file_size);
  if (!layout.ok()) {
    return layout.error();
  }
  size_t program_size = 0;
  size_t segment_base_offset = 0;
  ET_CHECK_OR_RETURN_ERROR(
      checked_cast(layout->program_size, &program_size) &&
          checked_cast(layout->segment_base_offset, &segment_base_offset),
      InvalidProgram,
      "program layout does not fit in size_t");
  ET_CHECK_OR_RETURN_ERROR(
      program_size < kMaxProgramSize,
      InvalidProgram,
      "program data of %zu bytes too large for a flatbuffer",
      program_size);

  Result<FreeableBuffer> program_data = load_program_data(loader, program_size);
  if (!program_data.ok()) {
    return program_data.error();
  }
  const auto* data = static_cast<const uint8_t*>(program_data->data());
  ET_CHECK_OK_OR_RETURN_ERROR(check_identifier(data));
  Result<const fb::Program*> program = verify_flatbuffer(data, program_size);
  if (!program.ok()) {
    return program.error();
  }
  ET_CHECK_OK_OR_RETURN_ERROR(validate_program(
      program.get(), segment_base_offset, file_size, verification));

  std::optional<internal::PteDataMap> pte_data_map;
  if (program.get()->named_data() != nullptr) {
    Result<internal::PteDataMap> m = internal::PteDataMap::create(
        loader, segment_base_offset, program.get());
    if (!m.ok()) {
      return m.error();
    }
    pte_data_map.emplace(std::move(m.get()));
  }
  Result<FreeableBuffer> constant_segment_data =
      load_constant_segment(loader, segment_base_offset, program.get());
  if (!constant_segment_data.ok()) {
    return constant_segment_data.error();
  }

  return Program(
      loader,
      segment_base_offset,
      std::move(program_data.get()),
      program.get(),
      std::move(constant_segment_data.get()),
      std::move(pte_data_map),
      verification);
}

Result<const void*> Program::get_constant_buffer_data(
    size_t buffer_idx, size_t nbytes) const {
  const fb::Program* program = internal_program_;
  if (uses_constant_segment(program)) {
    const auto* offsets = program->constant_segment()->offsets();
    ET_CHECK_OR_RETURN_ERROR(
        buffer_idx < offsets->size(),
        InvalidArgument,
        "constant index %zu out of range (%u constant_segment offsets)",
        buffer_idx,
        static_cast<unsigned>(offsets->size()));
    const uint64_t off =
        offsets->Get(static_cast<flatbuffers::uoffset_t>(buffer_idx));
    const size_t seg_size = constant_segment_data_.size();
    ET_CHECK_OR_RETURN_ERROR(
        range_within(off, nbytes, seg_size),
        InvalidArgument,
        "constant %zu: offset %" PRIu64
        " + nbytes %zu exceeds the constant "
        "segment (%zu bytes)",
        buffer_idx,
        off,
        nbytes,
        seg_size);
    if (seg_size == 0) {
      return static_cast<const void*>(nullptr);
    }
    return static_cast<const uint8_t*>(constant_segment_data_.data()) + off;
  }
  const auto* cb = program->constant_buffer();
  ET_CHECK_OR_RETURN_ERROR(
      buffer_idx < vsize(cb),
      InvalidArgument,
      "constant index %zu out of range (%zu constant_buffer entries)",
      buffer_idx,
      vsize(cb));
  const auto* storage =
      cb->Get(static_cast<flatbuffers::uoffset_t>(buffer_idx))->storage();
  ET_CHECK_OR_RETURN_ERROR(
      nbytes <= vsize(storage),
      InvalidArgument,
      "constant %zu: nbytes %zu exceeds constant_buffer storage (%zu bytes)",
      buffer_idx,
      nbytes,
      vsize(storage));
  if (storage == nullptr) {
    return static_cast<const void*>(nullptr);
  }
  return static_cast<const void*>(storage->data());
}

Result<const NamedDataMap*> Program::get_named_data_map() const {
  if (pte_data_map_.has_value()) {
    return static_cast<const NamedDataMap*>(&pte_data_map_.value());
  }
  return Error::NotFound;
}

size_t Program::num_methods() const {
  return vsize(internal_program_->execution_plan());
}

Result<const char*> Program::get_method_name(size_t method_index) const {
  ET_CHECK_OR_RETURN_ERROR(
      method_index < num_methods(),
      InvalidArgument,
      "method index %zu out of range (%zu methods)",
      method_index,
      num_methods());
  // Plans and their names were checked at load.
  return internal_program_->execution_plan()
      ->Get(static_cast<flatbuffers::uoffset_t>(method_index))
      ->name()
      ->c_str();
}

Result<Method> Program::load_method(
    const char* method_name,
    MemoryManager* memory_manager,
    EventTracer* event_tracer,
    const NamedDataMap* named_data_map,
    const LoadBackendOptionsMap* backend_options,
    Span<const Kernel> kernel_registry) const {
  return load_method(
      method_name,
      memory_manager,
      MethodLoadConfig{},
      event_tracer,
      named_data_map,
      backend_options,
      kernel_registry);
}

Result<Method> Program::load_method(
    const char* method_name,
    MemoryManager* memory_manager,
    const MethodLoadConfig& config,
    EventTracer* event_tracer,
    const NamedDataMap* named_data_map,
    const LoadBackendOptionsMap* backend_options,
    Span<const Kernel> kernel_registry) const {
  EXECUTORCH_SCOPE_PROF("Program::load_method");
  const int64_t index = find_plan(internal_program_, method_name);
  ET_CHECK_OR_RETURN_ERROR(
      index >= 0,
      InvalidArgument,
      "no method named '%s'",
      method_name == nullptr ? "(null)" : method_name);
  if (verification_ == Verification::Minimal) {
    // InternalConsistency validated every plan at load already.
    Error err = runtime::detail::validate_execution_plan(
        internal_program_, static_cast<size_t>(index));
    if (err != Error::Ok) {
      return err;
    }
  }
  const fb::ExecutionPlan* plan = internal_program_->execution_plan()->Get(
      static_cast<flatbuffers::uoffset_t>(index));
  return Method::load(
      const_cast<fb::ExecutionPlan*>(plan),
      this,
      memory_manager,
      event_tracer,
      named_data_map,
      backend_options,
      kernel_registry,
      config);
}

Result<MethodMeta> Program::method_meta(const char* method_name) const {
  const int64_t index = find_plan(internal_program_, method_name);
  ET_CHECK_OR_RETURN_ERROR(
      index >= 0,
      InvalidArgument,
      "no method named '%s'",
      method_name == nullptr ? "(null)" : method_name);
  return MethodMeta(internal_program_->execution_plan()->Get(
      static_cast<flatbuffers::uoffset_t>(index)));
}

Result<const char*> Program::get_output_flattening_encoding(
    const char* method_name) const {
  const int64_t index = find_plan(internal_program_, method_name);
  ET_CHECK_OR_RETURN_ERROR(
      index >= 0,
      InvalidArgument,
      "no method named '%s'",
      method_name == nullptr ? "(null)" : method_name);
  const auto* plan = internal_program_->execution_plan()->Get(
      static_cast<flatbuffers::uoffset_t>(index));
  ET_CHECK_OR_RETURN_ERROR(
      plan->container_meta_type() != nullptr &&
          plan->container_meta_type()->encoded_out_str() != nullptr,
      InvalidProgram,
      "execution_plan[%" PRId64
      "].container_meta_type.encoded_out_str is "
      "missing",
      index);
  return plan->container_meta_type()->encoded_out_str()->c_str();
}

Program::HeaderStatus Program::check_header(const void* data, size_t size) {
  if (data == nullptr || size < kMinHeadBytes) {
    return HeaderStatus::ShortData;
  }
  const char* id = static_cast<const char*>(data) + 4;
  if (std::memcmp(id, fb::ProgramIdentifier(), 4) == 0) {
    return HeaderStatus::CompatibleVersion;
  }
  if (id[0] == 'E' && id[1] == 'T') {
    return HeaderStatus::IncompatibleVersion;
  }
  return HeaderStatus::NotPresent;
}

Error Program::get_backend_delegate_data(
    size_t index, const void** out_data, size_t* out_size) const {
  const auto* bdd = internal_program_->backend_delegate_data();
  ET_CHECK_OR_RETURN_ERROR(
      index < vsize(bdd),
      NotFound,
      "backend_delegate_data index %zu out of range (%zu entries)",
      index,
      vsize(bdd));
  ET_CHECK_OR_RETURN_ERROR(
      out_data != nullptr && out_size != nullptr,
      InvalidArgument,
      "get_backend_delegate_data: null output pointer");
  // Entries and their data were checked at load.
  const auto* blob =
      bdd->Get(static_cast<flatbuffers::uoffset_t>(index))->data();
  *out_data = blob->data();
  *out_size = blob->size();
  return Error::Ok;
}

Result<FreeableBuffer> Program::LoadSegment(
    const DataLoader::SegmentInfo& segment_info) const {
  EXECUTORCH_SCOPE_PROF("Program::LoadSegment");
  return load_segment_from(
      loader_, segment_base_offset_, internal_program_, segment_info);
}

Error Program::load_mutable_subsegment_into(
    size_t mutable_data_segments_index,
    size_t offset_index,
    size_t size,
    void* buffer) const {
  EXECUTORCH_SCOPE_PROF("Program::load_mutable_subsegment_into");
  if (loader_ == nullptr || segment_base_offset_ == 0) {
    ET_LOG(Error, "mutable data requested, but the program has no segments");
    return Error::NotFound;
  }
  const auto* mds = internal_program_->mutable_data_segments();
  if (mutable_data_segments_index >= vsize(mds)) {
    ET_LOG(
        Error,
        "mutable_data_segments index %zu out of range (%zu entries)",
        mutable_data_segments_index,
        vsize(mds));
    return Error::NotFound;
  }
  // Entry, offsets and segment_index were checked at load.
  const auto* sub = mds->Get(
      static_cast<flatbuffers::uoffset_t>(mutable_data_segments_index));
  if (offset_index >= vsize(sub->offsets())) {
    ET_LOG(
        Error,
        "mutable_data_segments[%zu].offsets index %zu out of range (%zu)",
        mutable_data_segments_index,
        offset_index,
        vsize(sub->offsets()));
    return Error::NotFound;
  }
  const uint64_t off =
      sub->offsets()->Get(static_cast<flatbuffers::uoffset_t>(offset_index));
  const auto* seg = internal_program_->segments()->Get(sub->segment_index());
  ET_CHECK_OR_RETURN_ERROR(
      range_within(off, size, seg->size()),
      InvalidArgument,
      "mutable_data_segments[%zu].offsets[%zu] %" PRIu64
      " + size %zu "
      "exceeds segment %" PRIu32 " (%" PRIu64 " bytes)",
      mutable_data_segments_index,
      offset_index,
      off,
      size,
      sub->segment_index(),
      seg->size());
  uint64_t start = 0;
  size_t start_sz = 0;
  ET_CHECK_OR_RETURN_ERROR(
      checked_add<uint64_t>(segment_base_offset_, seg->offset(), &start) &&
          checked_add(start, off, &start) && checked_cast(start, &start_sz),
      InvalidProgram,
      "mutable data offset overflows");
  return loader_->load_into(
      start_sz,
      size,
      DataLoader::SegmentInfo(
          DataLoader::SegmentInfo::Type::Mutable, sub->segment_index()),
      buffer);
}

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch
