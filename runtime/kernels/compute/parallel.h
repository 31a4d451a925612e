// How the compute core sizes its parallel_for chunks (private to the kernel library).
#pragma once

#include <cstdint>

namespace executorch {
namespace kernels {
namespace compute {

// Work (multiply-adds, or elements moved) below which a chunk is not worth waking a worker
// for: a wake-up costs some tens of microseconds.
constexpr double kMinParallelWork = 1 << 17;

// The parallel_for grain (items per chunk, >= 1) for items of `work_per_item` each, so that
// every chunk carries at least `min_work`.
inline int64_t parallel_grain(double work_per_item, double min_work = kMinParallelWork) {
  const double items = work_per_item > 0 ? min_work / work_per_item : min_work;
  return items < 1 ? 1 : static_cast<int64_t>(items);
}

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
