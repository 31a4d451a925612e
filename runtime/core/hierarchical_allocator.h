/*
 * HierarchicalAllocator: the planned-memory arenas of a method. Memory
 * planning assigns each tensor a (buffer id, offset, size); this class turns
 * that into an address, refusing anything outside the arena.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {

class HierarchicalAllocator final {
 public:
  /* One span per planned buffer, indexed by buffer id. */
  explicit HierarchicalAllocator(Span<Span<uint8_t>> buffers)
      : buffers_(buffers) {}

  /* As above, with the device each buffer lives on (same length). */
  HierarchicalAllocator(
      Span<Span<uint8_t>> buffers, Span<const etensor::Device> buffer_devices)
      : buffers_(buffers), devices_(buffer_devices) {}

  /*
   * Deprecated: buffers described by MemoryAllocators. The allocators'
   * base addresses and sizes are copied into internal storage, so at most
   * kSpanArraySize of them are supported.
   */
  ET_DEPRECATED HierarchicalAllocator(
      uint32_t n_allocators, MemoryAllocator* allocators)
      : buffers_(to_spans(n_allocators, allocators, span_array_)) {}

  // Copies must not keep pointing into the source's internal span array.
  HierarchicalAllocator(const HierarchicalAllocator& other)
      : buffers_(other.buffers_), devices_(other.devices_) {
    adopt_internal_spans(other);
  }
  HierarchicalAllocator& operator=(const HierarchicalAllocator& other) {
    if (this != &other) {
      buffers_ = other.buffers_;
      devices_ = other.devices_;
      adopt_internal_spans(other);
    }
    return *this;
  }

  /*
   * Address of [offset, offset + size) in buffer `memory_id`.
   * InvalidArgument for an unknown buffer id; MemoryAllocationFailed if the
   * range does not fit in that buffer.
   */
  ET_NODISCARD Result<void*> get_offset_address(
      uint32_t memory_id, size_t offset, size_t size) {
    ET_CHECK_OR_RETURN_ERROR(
        memory_id < buffers_.size(),
        InvalidArgument,
        "id %" PRIu32 " >= %zu",
        memory_id,
        buffers_.size());
    Span<uint8_t> buffer = buffers_[memory_id];
    ET_CHECK_OR_RETURN_ERROR(
        offset <= buffer.size() && size <= buffer.size() - offset,
        MemoryAllocationFailed,
        "offset %zu + size %zu > size %zu of buffer %" PRIu32,
        offset,
        size,
        buffer.size(),
        memory_id);
    ET_CHECK_OR_RETURN_ERROR(
        buffer.data() != nullptr || (offset == 0 && size == 0),
        MemoryAllocationFailed,
        "Buffer %" PRIu32 " has no memory",
        memory_id);
    return buffer.data() != nullptr ? static_cast<void*>(buffer.data() + offset)
                                    : nullptr;
  }

  /* The devices given at construction (empty if none were). */
  Span<const etensor::Device> planned_buffer_devices() const {
    return devices_;
  }

 private:
  // Upper bound on allocators for the deprecated constructor.
  static constexpr size_t kSpanArraySize = 16;

  static Span<Span<uint8_t>> to_spans(
      uint32_t n_allocators,
      MemoryAllocator* allocators,
      Span<uint8_t> (&span_array)[kSpanArraySize]) {
    if (allocators == nullptr) {
      return {};
    }
    if (n_allocators > kSpanArraySize) {
      ET_LOG(
          Error,
          "Only %zu allocators supported, got %" PRIu32 "; extra ones ignored",
          kSpanArraySize,
          n_allocators);
      n_allocators = kSpanArraySize;
    }
    for (uint32_t i = 0; i < n_allocators; ++i) {
      span_array[i] =
          Span<uint8_t>(allocators[i].base_address(), allocators[i].size());
    }
    return Span<Span<uint8_t>>(span_array, n_allocators);
  }

  void adopt_internal_spans(const HierarchicalAllocator& other) {
    if (other.buffers_.data() == other.span_array_) {
      for (size_t i = 0; i < other.buffers_.size(); ++i) {
        span_array_[i] = other.span_array_[i];
      }
      buffers_ = Span<Span<uint8_t>>(span_array_, other.buffers_.size());
    }
  }

  Span<uint8_t> span_array_[kSpanArraySize];
  Span<Span<uint8_t>> buffers_;
  Span<const etensor::Device> devices_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::HierarchicalAllocator;
}  // namespace executor
}  // namespace torch
