/*
 * The temp allocator a Method uses when its MemoryManager has none
 * (private header): heap blocks, all released on every reset().
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include <executorch/runtime/core/memory_allocator.h>

namespace executorch {
namespace runtime {
namespace internal {

class MallocTempAllocator final : public MemoryAllocator {
 public:
  MallocTempAllocator() : MemoryAllocator(0, nullptr) {}

  ~MallocTempAllocator() override {
    reset();
  }

  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
      return nullptr;
    }
    if (alignment < alignof(Block)) {
      alignment = alignof(Block);
    }
    // [Block header][padding][payload aligned to `alignment`]
    const size_t overhead = sizeof(Block) + alignment - 1;
    if (size > SIZE_MAX - overhead) {
      return nullptr;
    }
    void* raw = std::malloc(size + overhead);
    if (raw == nullptr) {
      return nullptr;
    }
    Block* b = static_cast<Block*>(raw);
    b->next = head_;
    head_ = b;
    used_ += size;
    const uintptr_t start = reinterpret_cast<uintptr_t>(raw) + sizeof(Block);
    const uintptr_t aligned =
        (start + alignment - 1) & ~(uintptr_t)(alignment - 1);
    return reinterpret_cast<void*>(aligned);
  }

  void reset() override {
    while (head_ != nullptr) {
      Block* next = head_->next;
      std::free(head_);
      head_ = next;
    }
    used_ = 0;
  }

  size_t used_size() const override {
    return used_;
  }

  size_t free_size() const override {
    return SIZE_MAX - used_;
  }

 private:
  struct Block {
    Block* next;
    alignas(std::max_align_t) unsigned char pad[1];
  };
  Block* head_ = nullptr;
  size_t used_ = 0;
};

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
