/*
 * Conversion from PAL ticks to wall-clock units.
 */
#pragma once

#include <stdint.h>

#include <executorch/runtime/platform/platform.h>

namespace executorch {
namespace runtime {

/* Converts a tick count to nanoseconds using the platform's tick ratio. */
inline uint64_t ticks_to_ns(et_timestamp_t ticks) {
  const et_tick_ratio_t ratio = pal_ticks_to_ns_multiplier();
  if (ratio.denominator == 0) {
    return 0;  // A broken PAL; do not divide by zero.
  }
  return static_cast<uint64_t>(ticks) * ratio.numerator / ratio.denominator;
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::ticks_to_ns;
}  // namespace executor
}  // namespace torch
