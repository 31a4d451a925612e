/*
 * The cap on memory sized from a program file.
 *
 * A .pte file declares the sizes of its memory-planned buffers and the bound
 * sizes of its inputs and outputs; a 1 KB file may ask for 2^63 bytes. Code
 * that allocates from those sizes (Module, et_run, the Python bindings) first
 * reserves them in a MemoryBudget, which refuses, with a typed error naming
 * the size and the limit, before anything is allocated. The caller can raise
 * the limit (Module::set_max_memory(), et_run --max-memory, Python
 * load_method(max_memory=...)).
 */
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {

/// Used when the machine does not report its physical memory.
constexpr uint64_t kFallbackMaxMemory = uint64_t{4} << 30;

/**
 * The default limit: half of physical memory. A program asking for more than
 * that cannot run here without swapping the rest of the machine out, so it is
 * far more likely a malformed or hostile file than a real model; half still
 * admits any model that can realistically run, and leaves the other half for
 * the rest of the process (weights, activations of other methods) and the OS.
 */
inline uint64_t default_max_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  uint64_t total = 0;
  if (pages <= 0 || page_size <= 0 ||
      __builtin_mul_overflow(
          static_cast<uint64_t>(pages),
          static_cast<uint64_t>(page_size),
          &total)) {
    return kFallbackMaxMemory;
  }
  return total / 2;
}

/**
 * The bytes one method load allocates from sizes the program declares, as a
 * running total checked against a limit before each allocation. Sums are
 * overflow-checked: a total that does not fit in 64 bits is over any limit.
 */
class MemoryBudget {
 public:
  /// `raise_hint` says how the caller raises the limit (quoted in the error).
  MemoryBudget(uint64_t limit, const char* raise_hint)
      : limit_(limit), raise_hint_(raise_hint) {}

  uint64_t limit() const {
    return limit_;
  }
  uint64_t used() const {
    return used_;
  }

  /**
   * Adds `bytes` for `what` (e.g. "planned buffers of method 'forward'").
   * Returns Error::MemoryAllocationFailed, logging the size and the limit,
   * and leaves the total unchanged if the new total would pass the limit.
   */
  runtime::Error reserve(uint64_t bytes, const char* what) {
    uint64_t total = 0;
    if (__builtin_add_overflow(used_, bytes, &total) || total > limit_) {
      ET_LOG(
          Error,
          "%s: %llu bytes (%llu already reserved) exceed the memory limit of "
          "%llu bytes; %s",
          what,
          static_cast<unsigned long long>(bytes),
          static_cast<unsigned long long>(used_),
          static_cast<unsigned long long>(limit_),
          raise_hint_);
      return runtime::Error::MemoryAllocationFailed;
    }
    used_ = total;
    return runtime::Error::Ok;
  }

  /**
   * Reserves the sum of `meta`'s planned buffer sizes for `what`. A negative
   * size is InvalidProgram; a sum that overflows 64 bits is over the limit.
   */
  runtime::Error reserve_planned(
      const runtime::MethodMeta& meta, const char* what) {
    uint64_t sum = 0;
    for (size_t i = 0; i < meta.num_memory_planned_buffers(); ++i) {
      const runtime::Result<int64_t> size = meta.memory_planned_buffer_size(i);
      if (!size.ok()) {
        return size.error();
      }
      if (size.get() < 0) {
        ET_LOG(
            Error,
            "%s: planned buffer %zu has negative size %lld",
            what,
            i,
            static_cast<long long>(size.get()));
        return runtime::Error::InvalidProgram;
      }
      if (__builtin_add_overflow(
              sum, static_cast<uint64_t>(size.get()), &sum)) {
        ET_LOG(
            Error,
            "%s: the planned buffer sizes add up to more than 2^64 bytes, over "
            "the memory limit of %llu bytes",
            what,
            static_cast<unsigned long long>(limit_));
        return runtime::Error::MemoryAllocationFailed;
      }
    }
    return reserve(sum, what);
  }

 private:
  uint64_t limit_;
  uint64_t used_ = 0;
  const char* raise_hint_;
};

/// Frees a buffer from allocate_zeroed().
struct FreeDeleter {
  void operator()(void* p) const {
    std::free(p);
  }
};
using ZeroedBuffer = std::unique_ptr<uint8_t[], FreeDeleter>;

/**
 * `size` zero bytes (at least one, so an empty buffer still has an address),
 * or nullptr if the system refuses: never an exception or an abort. calloc
 * maps large blocks as untouched zero pages, so a big buffer costs no
 * zero-filling time until it is used.
 */
inline ZeroedBuffer allocate_zeroed(size_t size) {
  return ZeroedBuffer(
      static_cast<uint8_t*>(std::calloc(size == 0 ? 1 : size, 1)));
}

}  // namespace extension
}  // namespace executorch
