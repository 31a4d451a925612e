#include "scratch.h"

#include <cstdlib>

namespace executorch {
namespace kernels {
namespace compute {
namespace {

struct Buffer {
  void* data = nullptr;
  size_t size = 0;
  ~Buffer() {
    std::free(data);
  }
};

struct ThreadScratch {
  Buffer slots[static_cast<int>(ScratchSlot::kCount)];
};

}  // namespace

void* thread_scratch(ScratchSlot slot, size_t bytes) {
  thread_local ThreadScratch scratch;
  Buffer& b = scratch.slots[static_cast<int>(slot)];
  if (bytes <= b.size && b.data != nullptr)
    return b.data;
  // Grow by at least 1.5x so a slowly increasing sequence of shapes does not reallocate on
  // every call; aligned_alloc needs a size that is a multiple of the alignment.
  size_t want = bytes < b.size + b.size / 2 ? b.size + b.size / 2 : bytes;
  want = round_up_bytes(want == 0 ? kScratchAlign : want, kScratchAlign);
  void* p = std::aligned_alloc(kScratchAlign, want);
  if (p == nullptr)
    return nullptr;
  std::free(b.data);
  b.data = p;
  b.size = want;
  return p;
}

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
