// ETDumpGen: events are serialized into a flatbuffers::FlatBufferBuilder as they end (each
// event is a finished table, so nothing is held open between the Method's calls); the
// offsets of a block's events and allocators are kept until the block closes, when its
// RunData is built. get_etdump_data() closes the last block and finishes the buffer.
#include <executorch/devtools/etdump/etdump_flatcc.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <executorch_schema/etdump_schema_flatcc_generated.h>

#include <executorch/devtools/etdump/detail/etdump_values.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/platform.h>

namespace executorch {
namespace etdump {

using ::executorch::runtime::AllocatorID;
using ::executorch::runtime::ArrayRef;
using ::executorch::runtime::ChainID;
using ::executorch::runtime::DebugHandle;
using ::executorch::runtime::DelegateDebugIdType;
using ::executorch::runtime::Error;
using ::executorch::runtime::EValue;
using ::executorch::runtime::EventTracerEntry;
using ::executorch::runtime::kUnsetDelegateDebugIntId;
using ::executorch::runtime::LoggedEValueType;
using ::executorch::runtime::Span;

struct ETDumpGen::Impl {
  explicit Impl(Span<uint8_t> out) : output(out) {}

  flatbuffers::FlatBufferBuilder fbb;
  Span<uint8_t> output;  // the caller's buffer for the finished ETDump, if any
  internal::DebugBuffer debug_buffer;
  EventTracerFilterBase* filter = nullptr;

  // The open block: its name, bundled input index and what it holds so far.
  bool block_open = false;
  bool finished = false;  // get_etdump_data() ran; the builder holds the result
  // When the builder was last emptied: an event started before that refers to strings of
  // the previous ETDump and is dropped (get_etdump_data() called in the middle of it).
  et_timestamp_t cleared_at = 0;

  bool started_in_previous_dump(const EventTracerEntry& entry) const {
    return entry.start_time < cleared_at;
  }
  std::string block_name;
  int block_bundled_input_index = -1;
  std::vector<flatbuffers::Offset<::etdump::Allocator>> allocators;
  std::vector<flatbuffers::Offset<::etdump::Event>> events;
  std::vector<flatbuffers::Offset<::etdump::RunData>> runs;

  void clear() {
    fbb.Clear();
    cleared_at = ::executorch::runtime::pal_current_ticks();
    block_open = false;
    finished = false;
    allocators.clear();
    events.clear();
    runs.clear();
    debug_buffer.rewind();
  }

  void close_block() {
    if (!block_open) {
      return;
    }
    auto name = fbb.CreateString(block_name);
    auto allocs = fbb.CreateVector(allocators);
    auto evs = fbb.CreateVector(events);
    runs.push_back(::etdump::CreateRunData(
        fbb, name, block_bundled_input_index, allocs, evs));
    allocators.clear();
    events.clear();
    block_open = false;
  }

  void open_block(const char* name, int bundled_input_index) {
    if (finished) {
      clear();  // the previous ETDump was handed out: start a new one
    }
    close_block();
    block_name = name != nullptr ? name : "";
    block_bundled_input_index = bundled_input_index;
    block_open = true;
  }

  // Events need a block; one that arrives before any (e.g. from a backend's init) gets a
  // block of its own rather than being lost.
  void ensure_block(int bundled_input_index) {
    if (!block_open || finished) {
      open_block("Default", bundled_input_index);
    }
  }

  flatbuffers::Offset<flatbuffers::String> name_string(const char* name) {
    return name != nullptr ? fbb.CreateSharedString(name) : 0;
  }

  // A delegate's intermediate output, attributed to the DelegateCall being executed.
  template <typename T>
  Result<bool> log_delegate_output(
      const char* name,
      DelegateDebugIntId id,
      const T& output,
      ChainID chain,
      DebugHandle handle,
      int bundled_input_index) {
    if ((name == nullptr) == (id == kUnsetDelegateDebugIntId)) {
      ET_LOG(
          Error,
          "ETDumpGen: a delegate output needs exactly one of a name and an "
          "integer id; not logged");
      return Error::InvalidArgument;
    }
    if (filter != nullptr) {
      Result<bool> skip = filter->filter(name, id);
      if (!skip.ok()) {
        return skip.error();
      }
      if (skip.get()) {
        return false;
      }
    }
    ensure_block(bundled_input_index);
    Result<internal::ValueRef> value =
        internal::encode_value(fbb, debug_buffer, output);
    if (!value.ok()) {
      return value.error();
    }
    auto id_str = name_string(name);
    push_debug_event(::etdump::CreateDebugEvent(
        fbb,
        static_cast<uint64_t>(static_cast<int64_t>(chain)),
        static_cast<int32_t>(handle),
        value.get(),
        name != nullptr ? kUnsetDelegateDebugIntId : id,
        id_str));
    return true;
  }

  // A delegate's opaque metadata for its event (empty when there is none).
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> metadata_vector(
      const void* metadata, size_t metadata_len) {
    return fbb.CreateVector(
        static_cast<const uint8_t*>(metadata),
        metadata != nullptr ? metadata_len : 0);
  }

  void push_profile_event(flatbuffers::Offset<::etdump::ProfileEvent> e) {
    events.push_back(::etdump::CreateEvent(fbb, e, 0, 0));
  }
  void push_debug_event(flatbuffers::Offset<::etdump::DebugEvent> e) {
    events.push_back(::etdump::CreateEvent(fbb, 0, 0, e));
  }
};

ETDumpGen::ETDumpGen(Span<uint8_t> buffer) : impl_(new Impl(buffer)) {}

ETDumpGen::~ETDumpGen() = default;

void ETDumpGen::clear_builder() {
  impl_->clear();
}

void ETDumpGen::reset() {
  impl_->clear();
  impl_->debug_buffer = internal::DebugBuffer();
}

void ETDumpGen::create_event_block(const char* name) {
  impl_->open_block(name, bundled_input_index_);
}

EventTracerEntry ETDumpGen::start_profiling(
    const char* name, ChainID chain_id, DebugHandle debug_handle) {
  impl_->ensure_block(bundled_input_index_);
  EventTracerEntry entry{};
  entry.event_id = name != nullptr ? impl_->name_string(name).o : -1;
  entry.delegate_event_id_type = DelegateDebugIdType::kNone;
  // Without an explicit chain, the event belongs to the instruction being executed.
  entry.chain_id = chain_id == -1 ? chain_id_ : chain_id;
  entry.debug_handle = chain_id == -1 ? debug_handle_ : debug_handle;
  entry.start_time = ::executorch::runtime::pal_current_ticks();
  return entry;
}

void ETDumpGen::end_profiling(EventTracerEntry entry) {
  const et_timestamp_t end_time = ::executorch::runtime::pal_current_ticks();
  if (entry.delegate_event_id_type != DelegateDebugIdType::kNone) {
    ET_LOG(
        Error,
        "ETDumpGen: a delegate event was ended with end_profiling; use "
        "end_profiling_delegate (event dropped)");
    return;
  }
  impl_->ensure_block(bundled_input_index_);
  if (impl_->started_in_previous_dump(entry)) {
    return;
  }
  flatbuffers::Offset<flatbuffers::String> name = 0;
  if (entry.event_id != -1) {
    name.o = static_cast<flatbuffers::uoffset_t>(entry.event_id);
  }
  impl_->push_profile_event(::etdump::CreateProfileEvent(
      impl_->fbb,
      name,
      entry.chain_id,
      static_cast<int32_t>(entry.debug_handle),
      kUnsetDelegateDebugIntId,
      0,
      0,
      entry.start_time,
      end_time));
}

namespace {

// A delegate event names itself either by string or by integer id, never both.
bool valid_delegate_id(const char* name, DelegateDebugIntId id) {
  if ((name == nullptr) == (id == kUnsetDelegateDebugIntId)) {
    ET_LOG(
        Error,
        "ETDumpGen: a delegate event needs exactly one of a name and an "
        "integer id (got %s and %d); event dropped",
        name != nullptr ? "a name" : "no name",
        static_cast<int>(id));
    return false;
  }
  return true;
}

}  // namespace

EventTracerEntry ETDumpGen::start_profiling_delegate(
    const char* name, DelegateDebugIntId delegate_debug_index) {
  EventTracerEntry entry{};
  entry.chain_id = chain_id_;
  entry.debug_handle = debug_handle_;
  entry.start_time = ::executorch::runtime::pal_current_ticks();
  if (!valid_delegate_id(name, delegate_debug_index)) {
    entry.event_id = -1;
    entry.delegate_event_id_type = DelegateDebugIdType::kNone;
    return entry;
  }
  impl_->ensure_block(bundled_input_index_);
  if (name != nullptr) {
    entry.delegate_event_id_type = DelegateDebugIdType::kStr;
    entry.event_id = impl_->name_string(name).o;
  } else {
    entry.delegate_event_id_type = DelegateDebugIdType::kInt;
    entry.event_id = delegate_debug_index;
  }
  return entry;
}

void ETDumpGen::end_profiling_delegate(
    EventTracerEntry entry, const void* metadata, size_t metadata_len) {
  const et_timestamp_t end_time = ::executorch::runtime::pal_current_ticks();
  if (entry.delegate_event_id_type == DelegateDebugIdType::kNone) {
    return;  // dropped at start (already logged)
  }
  impl_->ensure_block(bundled_input_index_);
  if (impl_->started_in_previous_dump(entry)) {
    return;
  }
  flatbuffers::Offset<flatbuffers::String> id_str = 0;
  DelegateDebugIntId id_int = kUnsetDelegateDebugIntId;
  if (entry.delegate_event_id_type == DelegateDebugIdType::kStr) {
    id_str.o = static_cast<flatbuffers::uoffset_t>(entry.event_id);
  } else {
    id_int = static_cast<DelegateDebugIntId>(entry.event_id);
  }
  auto meta = impl_->metadata_vector(metadata, metadata_len);
  impl_->push_profile_event(::etdump::CreateProfileEvent(
      impl_->fbb,
      0,
      entry.chain_id,
      static_cast<int32_t>(entry.debug_handle),
      id_int,
      id_str,
      meta,
      entry.start_time,
      end_time));
}

void ETDumpGen::log_profiling_delegate(
    const char* name,
    DelegateDebugIntId delegate_debug_index,
    et_timestamp_t start_time,
    et_timestamp_t end_time,
    const void* metadata,
    size_t metadata_len) {
  if (!valid_delegate_id(name, delegate_debug_index)) {
    return;
  }
  impl_->ensure_block(bundled_input_index_);
  auto id_str = impl_->name_string(name);
  auto meta = impl_->metadata_vector(metadata, metadata_len);
  impl_->push_profile_event(::etdump::CreateProfileEvent(
      impl_->fbb,
      0,
      chain_id_,
      static_cast<int32_t>(debug_handle_),
      name != nullptr ? kUnsetDelegateDebugIntId : delegate_debug_index,
      id_str,
      meta,
      start_time,
      end_time));
}

AllocatorID ETDumpGen::track_allocator(const char* name) {
  impl_->ensure_block(bundled_input_index_);
  auto n = impl_->name_string(name != nullptr ? name : "");
  impl_->allocators.push_back(::etdump::CreateAllocator(impl_->fbb, n));
  return static_cast<AllocatorID>(impl_->allocators.size() - 1);
}

void ETDumpGen::track_allocation(AllocatorID id, size_t size) {
  impl_->ensure_block(bundled_input_index_);
  auto alloc = ::etdump::CreateAllocationEvent(
      impl_->fbb, static_cast<int32_t>(id), static_cast<uint64_t>(size));
  impl_->events.push_back(::etdump::CreateEvent(impl_->fbb, 0, alloc, 0));
}

Result<bool> ETDumpGen::log_evalue(
    const EValue& evalue, LoggedEValueType evalue_type) {
  impl_->ensure_block(bundled_input_index_);
  Result<internal::ValueRef> value = internal::encode_evalue(
      impl_->fbb,
      impl_->debug_buffer,
      evalue,
      evalue_type == LoggedEValueType::kProgramOutput);
  if (!value.ok()) {
    return value.error();
  }
  if (value->IsNull()) {
    return false;  // a kind of value ETDump does not hold
  }
  impl_->push_debug_event(::etdump::CreateDebugEvent(
      impl_->fbb,
      static_cast<uint64_t>(static_cast<int64_t>(chain_id_)),
      static_cast<int32_t>(debug_handle_),
      value.get()));
  return true;
}

Result<bool> ETDumpGen::log_intermediate_output_delegate(
    const char* name,
    DelegateDebugIntId delegate_debug_index,
    const executorch::aten::Tensor& output) {
  return impl_->log_delegate_output(
      name,
      delegate_debug_index,
      output,
      chain_id_,
      debug_handle_,
      bundled_input_index_);
}

Result<bool> ETDumpGen::log_intermediate_output_delegate(
    const char* name,
    DelegateDebugIntId delegate_debug_index,
    const ArrayRef<executorch::aten::Tensor> output) {
  return impl_->log_delegate_output(
      name,
      delegate_debug_index,
      output,
      chain_id_,
      debug_handle_,
      bundled_input_index_);
}

Result<bool> ETDumpGen::log_intermediate_output_delegate(
    const char* name,
    DelegateDebugIntId delegate_debug_index,
    const int& output) {
  return impl_->log_delegate_output(
      name,
      delegate_debug_index,
      output,
      chain_id_,
      debug_handle_,
      bundled_input_index_);
}

Result<bool> ETDumpGen::log_intermediate_output_delegate(
    const char* name,
    DelegateDebugIntId delegate_debug_index,
    const bool& output) {
  return impl_->log_delegate_output(
      name,
      delegate_debug_index,
      output,
      chain_id_,
      debug_handle_,
      bundled_input_index_);
}

Result<bool> ETDumpGen::log_intermediate_output_delegate(
    const char* name,
    DelegateDebugIntId delegate_debug_index,
    const double& output) {
  return impl_->log_delegate_output(
      name,
      delegate_debug_index,
      output,
      chain_id_,
      debug_handle_,
      bundled_input_index_);
}

void ETDumpGen::set_delegation_intermediate_output_filter(
    EventTracerFilterBase* event_tracer_filter) {
  impl_->filter = event_tracer_filter;
}

Result<bool> ETDumpGen::set_debug_buffer(Span<uint8_t> buffer) {
  if (buffer.data() == nullptr && buffer.size() > 0) {
    ET_LOG(
        Error, "ETDumpGen: a debug buffer of %zu bytes at null", buffer.size());
    return Error::InvalidArgument;
  }
  impl_->debug_buffer = internal::DebugBuffer(buffer);
  return true;
}

size_t ETDumpGen::get_debug_buffer_used_bytes() const {
  return impl_->debug_buffer.used();
}

ETDumpResult ETDumpGen::get_etdump_data() {
  Impl& d = *impl_;
  if (!d.finished) {
    d.close_block();
    if (d.runs.empty()) {
      return ETDumpResult{nullptr, 0};
    }
    auto runs = d.fbb.CreateVector(d.runs);
    auto root = ::etdump::CreateETDump(d.fbb, ETDUMP_VERSION, runs);
    d.fbb.FinishSizePrefixed(root, ::etdump::ETDumpIdentifier());
    d.finished = true;
  }
  const size_t size = d.fbb.GetSize();
  if (d.output.data() != nullptr) {
    if (size > d.output.size()) {
      ET_LOG(
          Error,
          "ETDumpGen: the ETDump (%zu bytes) does not fit the buffer given to "
          "the constructor (%zu bytes)",
          size,
          d.output.size());
      return ETDumpResult{nullptr, 0};
    }
    std::memcpy(d.output.data(), d.fbb.GetBufferPointer(), size);
    return ETDumpResult{d.output.data(), size};
  }
  void* copy = std::malloc(size);
  if (copy == nullptr) {
    ET_LOG(Error, "ETDumpGen: out of memory for a %zu byte ETDump", size);
    return ETDumpResult{nullptr, 0};
  }
  std::memcpy(copy, d.fbb.GetBufferPointer(), size);
  return ETDumpResult{copy, size};
}

size_t ETDumpGen::get_num_blocks() {
  return impl_->runs.size() + (impl_->block_open ? 1 : 0);
}

bool ETDumpGen::is_static_etdump() {
  return impl_->output.data() != nullptr;
}

}  // namespace etdump
}  // namespace executorch
