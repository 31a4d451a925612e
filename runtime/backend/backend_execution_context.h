/*
 * BackendExecutionContext: what the runtime hands to
 * BackendInterface::execute() for one delegate call.
 */
#pragma once

#include <cstddef>

#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/memory_allocator.h>

namespace executorch {
namespace runtime {

class BackendExecutionContext final {
 public:
  /**
   * @param event_tracer Optional tracer (may be null).
   * @param temp_allocator Scratch allocator, reset after the call returns
   *     (may be null, then allocate() returns null).
   * @param method_name Name of the executing Method (may be null).
   */
  BackendExecutionContext(
      EventTracer* event_tracer = nullptr,
      MemoryAllocator* temp_allocator = nullptr,
      const char* method_name = nullptr)
      : event_tracer_(event_tracer),
        temp_allocator_(temp_allocator),
        method_name_(method_name) {}

  /// The event tracer, or null when tracing is off.
  EventTracer* event_tracer() {
    return event_tracer_;
  }

  /**
   * Scratch memory valid until execute() returns; null when there is no temp
   * allocator or it is exhausted.
   */
  void* allocate(
      size_t size, size_t alignment = MemoryAllocator::kDefaultAlignment) {
    if (temp_allocator_ == nullptr) {
      return nullptr;
    }
    return temp_allocator_->allocate(size, alignment);
  }

  MemoryAllocator* get_temp_allocator() {
    return temp_allocator_;
  }

  const char* get_method_name() const {
    return method_name_;
  }

 private:
  EventTracer* event_tracer_ = nullptr;
  MemoryAllocator* temp_allocator_ = nullptr;
  const char* method_name_ = nullptr;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::BackendExecutionContext;
}  // namespace executor
}  // namespace torch
