/*
 * Null-safe helpers the runtime and generated kernel wrappers use to report to an optional
 * EventTracer. Every helper does nothing when the tracer pointer is null.
 */
#pragma once

#include <executorch/runtime/core/event_tracer.h>

namespace executorch {
namespace runtime {
namespace internal {

// Profiles one scope when a tracer is present and `active` holds.
class EventTracerProfileScope {
 public:
  EventTracerProfileScope(EventTracer* tracer, const char* name, bool active)
      : tracer_(active ? tracer : nullptr) {
    if (tracer_ != nullptr) {
      entry_ = tracer_->start_profiling(name);
    }
  }
  ~EventTracerProfileScope() {
    if (tracer_ != nullptr) {
      tracer_->end_profiling(entry_);
    }
  }
  EventTracerProfileScope(const EventTracerProfileScope&) = delete;
  EventTracerProfileScope& operator=(const EventTracerProfileScope&) = delete;

 private:
  EventTracer* tracer_;
  EventTracerEntry entry_{};
};

// An operator or delegate call: skipped when the tracer profiles methods only.
class EventTracerProfileOpScope final : public EventTracerProfileScope {
 public:
  EventTracerProfileOpScope(EventTracer* tracer, const char* name)
      : EventTracerProfileScope(
            tracer,
            name,
            tracer != nullptr &&
                tracer->event_tracer_profiling_level() >
                    EventTracerProfilingLevel::kProfileMethodOnly) {}
};

// A whole method execution or load phase: profiled at every profiling level.
class EventTracerProfileMethodScope final : public EventTracerProfileScope {
 public:
  EventTracerProfileMethodScope(EventTracer* tracer, const char* name)
      : EventTracerProfileScope(tracer, name, true) {}
};

// Sets the chain and debug handle (instruction index) for the scope of one instruction, so
// events logged inside it (kernel, delegate, intermediate outputs) are attributed to it.
class EventTracerProfileInstructionScope final {
 public:
  EventTracerProfileInstructionScope(
      EventTracer* tracer, ChainID chain_id, DebugHandle debug_handle)
      : tracer_(tracer) {
    if (tracer_ != nullptr) {
      tracer_->set_chain_debug_handle(chain_id, debug_handle);
    }
  }
  ~EventTracerProfileInstructionScope() {
    if (tracer_ != nullptr) {
      tracer_->set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
    }
  }
  EventTracerProfileInstructionScope(
      const EventTracerProfileInstructionScope&) = delete;
  EventTracerProfileInstructionScope& operator=(
      const EventTracerProfileInstructionScope&) = delete;

 private:
  EventTracer* tracer_;
};

inline EventTracerEntry event_tracer_begin_profiling_event(
    EventTracer* tracer, const char* name) {
  if (tracer != nullptr) {
    return tracer->start_profiling(name);
  }
  return EventTracerEntry{};  // ignored: there is no tracer to end it
}

inline void event_tracer_end_profiling_event(
    EventTracer* tracer, EventTracerEntry entry) {
  if (tracer != nullptr) {
    tracer->end_profiling(entry);
  }
}

inline AllocatorID event_tracer_track_allocator(
    EventTracer* tracer, const char* name) {
  return tracer != nullptr ? tracer->track_allocator(name) : 0;
}

inline void event_tracer_track_allocation(
    EventTracer* tracer, AllocatorID id, size_t size) {
  if (tracer != nullptr) {
    tracer->track_allocation(id, size);
  }
}

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
    // A value the tracer cannot record (e.g. its debug buffer is full) is the tracer's to
    // report; the execution itself is unaffected.
    (void)tracer->log_evalue(value, LoggedEValueType::kIntermediateOutput);
  }
}

inline void event_tracer_log_evalue_output(
    EventTracer* tracer, const EValue& value) {
  if (tracer != nullptr && tracer->event_tracer_debug_level() >=
                               EventTracerDebugLogLevel::kProgramOutputs) {
    (void)tracer->log_evalue(value, LoggedEValueType::kProgramOutput);
  }
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
