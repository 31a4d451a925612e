/*
 * MallocMemoryAllocator: a MemoryAllocator with no fixed arena. Each
 * allocate() is a separate malloc(); everything is freed by reset() or on
 * destruction.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <executorch/extension/memory_allocator/memory_allocator_utils.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/profiler.h>

namespace executorch {
namespace extension {

class MallocMemoryAllocator : public executorch::runtime::MemoryAllocator {
 public:
  MallocMemoryAllocator() : MemoryAllocator(0, nullptr) {}

  MallocMemoryAllocator(const MallocMemoryAllocator&) = delete;
  MallocMemoryAllocator& operator=(const MallocMemoryAllocator&) = delete;

  ~MallocMemoryAllocator() override {
    reset();
  }

  /**
   * Returns `size` bytes aligned to `alignment` (a power of two), or nullptr
   * when the alignment is invalid or memory is exhausted.
   */
  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    if (!isPowerOf2(alignment)) {
      ET_LOG(Error, "Alignment %zu is not a power of 2", alignment);
      return nullptr;
    }
    auto padded = utils::get_aligned_size(size, alignment);
    if (!padded.ok()) {
      return nullptr;
    }
    // malloc(0) may return nullptr; a zero-byte request still gets a block.
    void* block = std::malloc(padded.get() == 0 ? 1 : padded.get());
    if (block == nullptr) {
      ET_LOG(Error, "malloc of %zu bytes failed", padded.get());
      return nullptr;
    }
    blocks_.push_back(block);
    EXECUTORCH_TRACK_ALLOCATION(prof_id(), padded.get());
    return alignPointer(block, alignment);
  }

  /// Frees every block handed out so far.
  void reset() override {
    for (void* block : blocks_) {
      std::free(block);
    }
    blocks_.clear();
  }

 private:
  std::vector<void*> blocks_;
};

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::MallocMemoryAllocator;
}  // namespace util
}  // namespace executor
}  // namespace torch
