/*
 * Plain C types shared by the platform abstraction layer and the C++ runtime.
 */
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A point in time measured in platform ticks (see et_pal_current_ticks). */
typedef uint64_t et_timestamp_t;

/*
 * Ticks-to-nanoseconds conversion factor, kept as a fraction so that
 * platforms with non-integral tick lengths lose no precision:
 *   ns = ticks * numerator / denominator
 */
typedef struct {
  uint64_t numerator;
  uint64_t denominator;
} et_tick_ratio_t;

#ifdef __cplusplus
} /* extern "C" */
#endif
