/*
 * MemoryManager: the three kinds of memory a Method uses, bundled.
 *   method_allocator: long-lived structures built at load time.
 *   planned_memory:   the arenas memory planning assigned tensors into.
 *   temp_allocator:   scratch for kernels/delegates, reset between
 *                     instructions.
 * The manager only holds pointers; the caller owns the allocators and must
 * keep them alive as long as any Method that uses them.
 */
#pragma once

#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace runtime {

class MemoryManager final {
 public:
  /*
   * `method_allocator` is required. Without a temp allocator the method
   * creates its own. The same allocator may not serve as both method and
   * temp allocator: resetting temp memory would destroy the method.
   */
  explicit MemoryManager(
      MemoryAllocator* method_allocator,
      HierarchicalAllocator* planned_memory = nullptr,
      MemoryAllocator* temp_allocator = nullptr)
      : method_allocator_(method_allocator),
        planned_memory_(planned_memory),
        temp_allocator_(temp_allocator) {
    ET_CHECK_MSG(
        temp_allocator == nullptr || method_allocator != temp_allocator,
        "method allocator cannot be the same as temp allocator");
  }

  /* Deprecated: the constant allocator is unused. */
  ET_DEPRECATED MemoryManager(
      ET_UNUSED MemoryAllocator* constant_allocator,
      HierarchicalAllocator* non_constant_allocator,
      MemoryAllocator* runtime_allocator,
      MemoryAllocator* temporary_allocator)
      : MemoryManager(
            runtime_allocator, non_constant_allocator, temporary_allocator) {}

  MemoryAllocator* method_allocator() const {
    return method_allocator_;
  }

  HierarchicalAllocator* planned_memory() const {
    return planned_memory_;
  }

  MemoryAllocator* temp_allocator() const {
    return temp_allocator_;
  }

  /* Devices of the planned buffers (empty when all are on the CPU). */
  Span<const etensor::Device> planned_buffer_devices() const {
    return planned_memory_ != nullptr
               ? planned_memory_->planned_buffer_devices()
               : Span<const etensor::Device>();
  }

  /* True if any planned buffer lives on a non-CPU device. */
  bool has_device_memory() const {
    for (const etensor::Device& d : planned_buffer_devices()) {
      if (!d.is_cpu()) {
        return true;
      }
    }
    return false;
  }

 private:
  MemoryAllocator* method_allocator_;
  HierarchicalAllocator* planned_memory_;
  MemoryAllocator* temp_allocator_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::MemoryManager;
}  // namespace executor
}  // namespace torch
