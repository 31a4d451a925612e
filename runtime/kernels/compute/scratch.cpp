#include "scratch.h"

#include <cstdint>
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
  size_t limits[static_cast<int>(ScratchSlot::kCount)] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
};

thread_local ThreadScratch scratch;

}  // namespace

void set_thread_scratch_limit(ScratchSlot slot, size_t limit) {
  scratch.limits[static_cast<int>(slot)] = limit;
}

void* thread_scratch(ScratchSlot slot, size_t bytes) {
  if (bytes > scratch.limits[static_cast<int>(slot)])
    return nullptr;
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
