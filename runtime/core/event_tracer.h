/*
 * EventTracer: the hook interface through which a Method reports profiling and debugging
 * events (operator start/end, delegate events, logged values) to a user-supplied tracer.
 * The runtime only calls it when a tracer was given to load_method/Module; with none, the
 * hooks cost a null check.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/types.h>

namespace executorch {
namespace runtime {

using AllocatorID = uint32_t;
using ChainID = int32_t;
using DebugHandle = uint32_t;
// Identifies an event inside a delegate (the AOT DelegateMappingBuilder's integer id).
using DelegateDebugIntId = int32_t;

constexpr ChainID kUnsetChainId = -1;
constexpr DebugHandle kUnsetDebugHandle = 0;
constexpr DelegateDebugIntId kUnsetDelegateDebugIntId = -1;
constexpr int kUnsetBundledInputIndex = -1;

enum class DelegateDebugIdType { kNone, kInt, kStr };

// Serialized by tracers: the numeric values are part of the contract.
enum class LoggedEValueType { kIntermediateOutput = 0, kProgramOutput = 1 };

// Ordered by increasing verbosity; comparisons rely on the order.
enum class EventTracerDebugLogLevel {
  kNoLogging,
  kProgramOutputs,
  kIntermediateOutputs
};
enum class EventTracerProfilingLevel { kProfileMethodOnly, kProfileAllEvents };

// Decides which delegate intermediate outputs a tracer skips: filter() returns true to skip.
class EventTracerFilterBase {
 public:
  virtual Result<bool> filter(
      const char* name, DelegateDebugIntId delegate_debug_index) = 0;
  virtual ~EventTracerFilterBase() = default;
};

struct EventTracerEntry {
  int64_t event_id;
  ChainID chain_id;
  DebugHandle debug_handle;
  et_timestamp_t start_time;
  DelegateDebugIdType delegate_event_id_type;
};

class ET_API EventTracer {
 public:
  virtual ~EventTracer() = default;

  virtual void create_event_block(const char* name) = 0;
  virtual EventTracerEntry start_profiling(
      const char* name,
      ChainID chain_id = kUnsetChainId,
      DebugHandle debug_handle = kUnsetDebugHandle) = 0;
  virtual EventTracerEntry start_profiling_delegate(
      const char* name, DelegateDebugIntId delegate_debug_index) = 0;
  virtual void end_profiling_delegate(
      EventTracerEntry event_tracer_entry,
      const void* metadata = nullptr,
      size_t metadata_len = 0) = 0;
  virtual void log_profiling_delegate(
      const char* name,
      DelegateDebugIntId delegate_debug_index,
      et_timestamp_t start_time,
      et_timestamp_t end_time,
      const void* metadata = nullptr,
      size_t metadata_len = 0) = 0;
  virtual void end_profiling(EventTracerEntry prof_entry) = 0;
  virtual void track_allocation(AllocatorID id, size_t size) = 0;
  virtual AllocatorID track_allocator(const char* name) = 0;
  // Returns true when the value was recorded, false when the tracer chose not to, or an
  // error (e.g. Error::OutOfResources when a debug buffer is full).
  virtual Result<bool> log_evalue(
      const EValue& evalue, LoggedEValueType evalue_type) = 0;

  // Intermediate outputs a delegate reports for one of its own nodes, identified by name or
  // by integer id (exactly one of them set). The defaults record nothing, so a tracer that
  // does not debug delegates need not implement them.
  virtual Result<bool> log_intermediate_output_delegate(
      const char* /*name*/,
      DelegateDebugIntId /*delegate_debug_index*/,
      const executorch::aten::Tensor& /*output*/) {
    return false;
  }
  virtual Result<bool> log_intermediate_output_delegate(
      const char* /*name*/,
      DelegateDebugIntId /*delegate_debug_index*/,
      const ArrayRef<executorch::aten::Tensor> /*output*/) {
    return false;
  }
  virtual Result<bool> log_intermediate_output_delegate(
      const char* /*name*/,
      DelegateDebugIntId /*delegate_debug_index*/,
      const int& /*output*/) {
    return false;
  }
  virtual Result<bool> log_intermediate_output_delegate(
      const char* /*name*/,
      DelegateDebugIntId /*delegate_debug_index*/,
      const bool& /*output*/) {
    return false;
  }
  virtual Result<bool> log_intermediate_output_delegate(
      const char* /*name*/,
      DelegateDebugIntId /*delegate_debug_index*/,
      const double& /*output*/) {
    return false;
  }
  virtual void set_delegation_intermediate_output_filter(
      EventTracerFilterBase* /*event_tracer_filter*/) {}

  // Chain and debug handle of the instruction being executed, set by the Method before
  // each kernel call so tracers can attribute events without extra arguments.
  void set_chain_debug_handle(ChainID chain_id, DebugHandle debug_handle) {
    chain_id_ = chain_id;
    debug_handle_ = debug_handle;
  }
  ChainID current_chain_id() const {
    return chain_id_;
  }
  DebugHandle current_debug_handle() const {
    return debug_handle_;
  }

  void set_event_tracer_debug_level(EventTracerDebugLogLevel level) {
    debug_level_ = level;
  }
  EventTracerDebugLogLevel event_tracer_debug_level() const {
    return debug_level_;
  }

  void set_event_tracer_profiling_level(EventTracerProfilingLevel level) {
    profiling_level_ = level;
  }
  EventTracerProfilingLevel event_tracer_profiling_level() const {
    return profiling_level_;
  }

  void set_bundled_input_index(int index) {
    bundled_input_index_ = index;
  }
  int bundled_input_index() const {
    return bundled_input_index_;
  }

 protected:
  ChainID chain_id_ = kUnsetChainId;
  DebugHandle debug_handle_ = kUnsetDebugHandle;
  EventTracerDebugLogLevel debug_level_ = EventTracerDebugLogLevel::kNoLogging;
  EventTracerProfilingLevel profiling_level_ =
      EventTracerProfilingLevel::kProfileAllEvents;
  int bundled_input_index_ = kUnsetBundledInputIndex;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::DelegateDebugIntId;
using ::executorch::runtime::EventTracer;
using ::executorch::runtime::EventTracerEntry;
using ::executorch::runtime::kUnsetDelegateDebugIntId;
}  // namespace executor
}  // namespace torch
