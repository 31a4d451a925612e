// Loading one method of a program with the memory it runs in (shared by et_run's modes).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/extension/module/memory_limit.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>

namespace et_run {

/// A loaded method with the memory it runs in.
struct LoadedMethod {
  std::vector<executorch::extension::ZeroedBuffer> planned;
  std::vector<executorch::runtime::Span<uint8_t>> spans;
  // Storage for outputs the program leaves to the caller (not memory-planned).
  std::vector<executorch::extension::ZeroedBuffer> output_buffers;
  std::unique_ptr<executorch::runtime::HierarchicalAllocator> planned_memory;
  executorch::extension::MallocMemoryAllocator method_alloc;
  executorch::extension::MallocMemoryAllocator temp_alloc;
  std::unique_ptr<executorch::runtime::MemoryManager> mm;
  std::optional<executorch::runtime::Method> method;
};

/// Loads method `name` with planned buffers and unplanned-output storage sized from the
/// program, all of it reserved in `budget` before it is allocated. `config` carries the load
/// options (e.g. preparation off for --no-prepare).
executorch::runtime::Error load_method(
    const executorch::runtime::Program& program,
    const executorch::runtime::MethodMeta& meta,
    const char* name,
    executorch::runtime::EventTracer* tracer,
    const executorch::runtime::NamedDataMap* data_map,
    const executorch::runtime::MethodLoadConfig& config,
    executorch::extension::MemoryBudget* budget,
    LoadedMethod* out);

}  // namespace et_run
