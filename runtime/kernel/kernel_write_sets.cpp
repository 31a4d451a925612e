/*
 * The process-wide table of kernel write sets (operator_registry.h,
 * KernelWriteSet): which arguments of its boxed call a kernel may write.
 *
 * It sits beside the kernel registry rather than in Kernel because Kernel
 * keeps upstream's layout (name, key, function), and because one function
 * can be registered under several names and keys: the set belongs to the
 * function. Storage and concurrency follow the registry
 * (operator_registry.cpp): a constant-initialized fixed table, writers
 * serialized by a mutex, entries published by a release store of the count
 * and never changed afterwards, so lookups take no lock.
 */
#include <executorch/runtime/kernel/operator_registry.h>

#include <atomic>
#include <mutex>

#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {
namespace internal {

namespace {

// One entry per distinct boxed function; the kernel registry's capacity.
constexpr size_t kMaxWriteSets = 8192;

struct Entry {
  OpFunction fn;
  KernelWriteSet set;
};

std::mutex write_set_lock;
std::atomic<size_t> num_write_sets{0};
Entry write_sets[kMaxWriteSets];

const Entry* find_entry(OpFunction fn, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (write_sets[i].fn == fn) {
      return &write_sets[i];
    }
  }
  return nullptr;
}

}  // namespace

Error record_kernel_write_set(OpFunction fn, KernelWriteSet set) {
  if (fn == nullptr || set.num_args > 64) {
    ET_LOG(
        Error,
        "record_kernel_write_set: null function or %u arguments (at most 64)",
        static_cast<unsigned>(set.num_args));
    return Error::InvalidArgument;
  }
  std::lock_guard<std::mutex> guard(write_set_lock);
  const size_t n = num_write_sets.load(std::memory_order_relaxed);
  if (const Entry* e = find_entry(fn, n)) {
    if (e->set.num_args == set.num_args && e->set.written == set.written) {
      return Error::Ok;
    }
    ET_LOG(
        Error,
        "record_kernel_write_set: the function already has another write set");
    return Error::InvalidArgument;
  }
  if (n == kMaxWriteSets) {
    ET_LOG(Error, "record_kernel_write_set: the table is full (%zu)", n);
    return Error::RegistrationExceedingMaxKernels;
  }
  write_sets[n] = Entry{fn, set};
  num_write_sets.store(n + 1, std::memory_order_release);
  return Error::Ok;
}

const KernelWriteSet* find_kernel_write_set(OpFunction fn) {
  if (fn == nullptr) {
    return nullptr;
  }
  const Entry* e =
      find_entry(fn, num_write_sets.load(std::memory_order_acquire));
  return e != nullptr ? &e->set : nullptr;
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
