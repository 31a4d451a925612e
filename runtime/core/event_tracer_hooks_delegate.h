/*
 * Null-safe helpers a backend calls from execute() to report its own per-node events
 * through the EventTracer of the BackendExecutionContext (which may be null). Each delegate
 * event is identified either by a name or by an integer id from the AOT delegate mapping,
 * never both, and is attributed to the DelegateCall instruction being executed.
 */
#pragma once

#include <type_traits>

#include <executorch/runtime/core/event_tracer.h>

namespace executorch {
namespace runtime {

inline EventTracerEntry event_tracer_start_profiling_delegate(
    EventTracer* event_tracer,
    const char* name,
    DelegateDebugIntId delegate_debug_id) {
  if (event_tracer != nullptr) {
    return event_tracer->start_profiling_delegate(name, delegate_debug_id);
  }
  return EventTracerEntry{};  // ignored: there is no tracer to end it
}

inline void event_tracer_end_profiling_delegate(
    EventTracer* event_tracer,
    EventTracerEntry event_tracer_entry,
    const void* metadata = nullptr,
    size_t metadata_len = 0) {
  if (event_tracer != nullptr) {
    event_tracer->end_profiling_delegate(
        event_tracer_entry, metadata, metadata_len);
  }
}

// For backends that time their nodes themselves (e.g. on an accelerator clock).
inline void event_tracer_log_profiling_delegate(
    EventTracer* event_tracer,
    const char* name,
    DelegateDebugIntId delegate_debug_id,
    et_timestamp_t start_time,
    et_timestamp_t end_time,
    const void* metadata = nullptr,
    size_t metadata_len = 0) {
  if (event_tracer != nullptr) {
    event_tracer->log_profiling_delegate(
        name, delegate_debug_id, start_time, end_time, metadata, metadata_len);
  }
}

template <typename T>
inline void event_tracer_log_output_delegate(
    EventTracer* event_tracer,
    const char* name,
    DelegateDebugIntId delegate_debug_id,
    const T& output) {
  static_assert(
      std::is_same<T, int>::value || std::is_same<T, bool>::value ||
          std::is_same<T, double>::value ||
          std::is_same<T, executorch::aten::Tensor>::value ||
          std::is_same<T, ArrayRef<executorch::aten::Tensor>>::value,
      "Unsupported type for a delegate intermediate output");
  if (event_tracer != nullptr) {
    // A failure to record (e.g. a full debug buffer) is the tracer's to report; the
    // backend's computation is unaffected.
    (void)event_tracer->log_intermediate_output_delegate(
        name, delegate_debug_id, output);
  }
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::event_tracer_end_profiling_delegate;
using ::executorch::runtime::event_tracer_log_output_delegate;
using ::executorch::runtime::event_tracer_log_profiling_delegate;
using ::executorch::runtime::event_tracer_start_profiling_delegate;
}  // namespace executor
}  // namespace torch
