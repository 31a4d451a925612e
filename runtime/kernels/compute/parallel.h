// How the CPU kernels size their parallel_for chunks (private to the kernel library and the
// backends built with it, which include it for the same thresholds).
//
// A chunk must carry enough work to pay for waking a worker (some tens of microseconds):
// kDefaultMinParallelWork multiply-adds or elements. ET_KERNELS_MIN_PARALLEL_WORK in the
// environment (read once) replaces it; 1 splits every loop as finely as the thread count
// allows, which the tests use to drive every split path with small tensors.
#pragma once

#include <cstdint>
#include <cstdlib>

#include <executorch/runtime/kernel/thread_parallel_interface.h>

namespace executorch {
namespace kernels {
namespace compute {

constexpr double kDefaultMinParallelWork = 1 << 17;

inline double min_parallel_work() {
  static const double work = [] {
    const char* s = std::getenv("ET_KERNELS_MIN_PARALLEL_WORK");
    char* end = nullptr;
    const double v = s != nullptr ? std::strtod(s, &end) : 0.0;
    return s != nullptr && end != s && *end == '\0' && v >= 1.0 ? v : kDefaultMinParallelWork;
  }();
  return work;
}

// The parallel_for grain (items per chunk, >= 1) for items of `work_per_item` each.
inline int64_t parallel_grain(double work_per_item) {
  const double items =
      work_per_item > 0 ? min_parallel_work() / work_per_item : min_parallel_work();
  return items < 1 ? 1 : static_cast<int64_t>(items);
}

// f(begin, end) over [0, items) in chunks of at least the work above, across the thread pool
// (inline when small). f must treat every item the same whatever range it is given. False only
// if f threw (the kernels do not throw).
template <class F>
bool parallel_items(int64_t items, double work_per_item, const F& f) {
  return extension::parallel_for(0, items, parallel_grain(work_per_item), f);
}

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
