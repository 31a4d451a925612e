/*
 * Null-safe helpers the runtime and generated kernel wrappers use to report to an optional
 * EventTracer. Every helper does nothing when the tracer pointer is null.
 */
#pragma once

#include <executorch/runtime/core/event_tracer.h>

namespace executorch {
namespace runtime {
namespace internal {

// Profiles one scope (an operator call, a delegate call) when a tracer is present.
class EventTracerProfileOpScope final {
 public:
  EventTracerProfileOpScope(EventTracer* tracer, const char* name)
      : tracer_(tracer) {
    if (tracer_ != nullptr) {
      entry_ = tracer_->start_profiling(name);
    }
  }
  ~EventTracerProfileOpScope() {
    if (tracer_ != nullptr) {
      tracer_->end_profiling(entry_);
    }
  }
  EventTracerProfileOpScope(const EventTracerProfileOpScope&) = delete;
  EventTracerProfileOpScope& operator=(const EventTracerProfileOpScope&) =
      delete;

 private:
  EventTracer* tracer_;
  EventTracerEntry entry_{};
};

// Same shape, for profiling a whole method execution or load phase.
using EventTracerProfileMethodScope = EventTracerProfileOpScope;

inline void event_tracer_create_event_block(
    EventTracer* tracer, const char* name) {
  if (tracer != nullptr) {
    tracer->create_event_block(name);
  }
}

inline void event_tracer_set_chain_debug_handle(
    EventTracer* tracer, ChainID chain_id, DebugHandle debug_handle) {
  if (tracer != nullptr) {
    tracer->set_chain_debug_handle(chain_id, debug_handle);
  }
}

inline void event_tracer_log_evalue(EventTracer* tracer, const EValue& value) {
  if (tracer != nullptr && tracer->event_tracer_debug_level() >=
                               EventTracerDebugLogLevel::kIntermediateOutputs) {
    tracer->log_evalue(value, LoggedEValueType::kIntermediateOutput);
  }
}

inline void event_tracer_log_evalue_output(
    EventTracer* tracer, const EValue& value) {
  if (tracer != nullptr && tracer->event_tracer_debug_level() >=
                               EventTracerDebugLogLevel::kProgramOutputs) {
    tracer->log_evalue(value, LoggedEValueType::kProgramOutput);
  }
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
