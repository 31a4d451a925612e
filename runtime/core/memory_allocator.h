/*
 * MemoryAllocator: a bump allocator over a caller-provided buffer. It never
 * frees individual allocations; reset() releases everything at once. When
 * the buffer is exhausted, allocate() logs and returns nullptr.
 *
 * Subclasses (e.g. a malloc-backed allocator) override the virtuals.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/profiler.h>

namespace executorch {
namespace runtime {

class ET_API MemoryAllocator {
 public:
  /* Alignment of allocations that do not ask for one. */
  static constexpr size_t kDefaultAlignment = alignof(void*);

  /* Serves allocations from [base_address, base_address + size). */
  MemoryAllocator(uint32_t size, uint8_t* base_address)
      : begin_(base_address),
        end_(base_address != nullptr ? base_address + size : nullptr),
        cur_(base_address),
        size_(base_address != nullptr ? size : 0) {}

  virtual ~MemoryAllocator() = default;

  /*
   * `size` bytes aligned to `alignment` (a power of two), or nullptr if the
   * alignment is invalid or the buffer has no room left.
   */
  virtual void* allocate(size_t size, size_t alignment = kDefaultAlignment) {
    if (!isPowerOf2(alignment)) {
      ET_LOG(Error, "Alignment %zu is not a power of 2", alignment);
      return nullptr;
    }
    if (begin_ == nullptr) {
      ET_LOG(Error, "Allocator has no memory");
      return nullptr;
    }
    // Work in integers so that running past the end is never formed as a
    // pointer (which would be undefined behaviour).
    const uintptr_t cur = reinterpret_cast<uintptr_t>(cur_);
    const uintptr_t end = reinterpret_cast<uintptr_t>(end_);
    const uintptr_t aligned =
        (cur + (alignment - 1)) & ~(uintptr_t)(alignment - 1);
    if (aligned < cur || aligned > end || size > end - aligned) {
      ET_LOG(
          Error,
          "Memory allocation failed: %zu bytes requested, %zu free",
          size,
          static_cast<size_t>(end - cur));
      return nullptr;
    }
    uint8_t* result = cur_ + (aligned - cur);
    cur_ = result + size;
    EXECUTORCH_TRACK_ALLOCATION(prof_id_, size);
    return result;
  }

  /* Space for one T (not constructed), or nullptr. */
  template <typename T>
  T* allocateInstance(size_t alignment = alignof(T)) {
    return static_cast<T*>(allocate(sizeof(T), alignment));
  }

  /* Space for `size` Ts (not constructed), or nullptr (also on overflow). */
  template <typename T>
  T* allocateList(size_t size, size_t alignment = alignof(T)) {
    if (size != 0 && sizeof(T) > SIZE_MAX / size) {
      ET_LOG(
          Error,
          "List of %zu elements of %zu bytes overflows",
          size,
          sizeof(T));
      return nullptr;
    }
    return static_cast<T*>(allocate(size * sizeof(T), alignment));
  }

  /* Forgets every allocation; the whole buffer is available again. */
  virtual void reset() {
    cur_ = begin_;
  }

  /* Profiling is not implemented; kept for source compatibility. */
  void enable_profiling(ET_UNUSED const char* name) {}

  virtual uint8_t* base_address() const {
    return begin_;
  }

  virtual uint32_t size() const {
    return size_;
  }

  /* Bytes handed out since construction or the last reset(). */
  virtual size_t used_size() const {
    return static_cast<size_t>(cur_ - begin_);
  }

  virtual size_t free_size() const {
    return static_cast<size_t>(end_ - cur_);
  }

 protected:
  int32_t prof_id() const {
    return prof_id_;
  }

  /* Rounds `ptr` up to a multiple of `alignment` (a power of two). */
  static uint8_t* alignPointer(void* ptr, size_t alignment) {
    const uintptr_t addr = reinterpret_cast<uintptr_t>(ptr);
    const uintptr_t aligned =
        (addr + (alignment - 1)) & ~(uintptr_t)(alignment - 1);
    return reinterpret_cast<uint8_t*>(aligned);
  }

  static constexpr bool isPowerOf2(size_t value) {
    return value != 0 && (value & (value - 1)) == 0;
  }

 private:
  uint8_t* begin_;
  uint8_t* end_;
  uint8_t* cur_;
  uint32_t size_;
  int32_t prof_id_ = -1;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::MemoryAllocator;
}  // namespace executor
}  // namespace torch
