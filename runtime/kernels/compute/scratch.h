// Per-thread scratch memory for the compute core (private).
#pragma once

#include <cstddef>
#include <cstdint>

namespace executorch {
namespace kernels {
namespace compute {

// Independent users get separate slots, so a routine that carves its own workspace (conv) can
// call another that falls back to scratch (sgemm) without the two aliasing.
// kLayout holds a kernel's channels-last copy of an operand around a call into the others.
enum class ScratchSlot : int { kGemm = 0, kConv = 1, kLayout = 2, kCount = 3 };

// A 64-byte aligned buffer of at least `bytes`, owned by the calling thread and freed at thread
// exit. It only grows (geometrically), so steady-state calls do not allocate. Returns nullptr if
// the allocation fails. The contents are not preserved across a call that grows it.
void* thread_scratch(ScratchSlot slot, size_t bytes);

// For tests: from now on, thread_scratch(slot, bytes) on the calling thread fails for any
// `bytes` above `limit` (SIZE_MAX, the default, lifts it). The kernels' paths for scratch memory
// that cannot be had are otherwise unreachable in a test.
void set_thread_scratch_limit(ScratchSlot slot, size_t limit);

constexpr size_t kScratchAlign = 64;

inline size_t round_up_bytes(size_t n, size_t a) {
  return (n + a - 1) / a * a;
}

// Aligns `p` up to kScratchAlign inside a caller's workspace.
inline void* align_up(void* p) {
  uintptr_t v = reinterpret_cast<uintptr_t>(p);
  return reinterpret_cast<void*>((v + kScratchAlign - 1) & ~(uintptr_t)(kScratchAlign - 1));
}

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
