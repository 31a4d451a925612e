/*
 * Weak POSIX defaults for the C PAL hooks declared in platform.h. An
 * application (or another shared object loaded first) overrides any of them
 * by defining a strong symbol of the same name.
 */
#include <executorch/runtime/platform/compiler.h>

// Must precede platform.h so the declarations there come out weak too.
#define ET_INTERNAL_PLATFORM_WEAKNESS ET_WEAK
#include <executorch/runtime/platform/platform.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

extern "C" {

ET_WEAK void et_pal_init(void) {
  // Nothing to set up: the monotonic clock and stderr need no preparation.
}

ET_WEAK ET_NORETURN void et_pal_abort(void) {
  // Flush what we have so the reason for the abort is not lost.
  fflush(stderr);
  abort();
}

ET_WEAK et_timestamp_t et_pal_current_ticks(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
    return 0;
  }
  // One tick is one nanosecond on this platform.
  return static_cast<et_timestamp_t>(ts.tv_sec) * 1000000000ull +
         static_cast<et_timestamp_t>(ts.tv_nsec);
}

ET_WEAK et_tick_ratio_t et_pal_ticks_to_ns_multiplier(void) {
  return et_tick_ratio_t{1, 1};
}

ET_WEAK void et_pal_emit_log_message(
    et_timestamp_t timestamp,
    et_pal_log_level_t level,
    const char* filename,
    ET_UNUSED const char* function,
    size_t line,
    const char* message,
    ET_UNUSED size_t length) {
  // Ticks are nanoseconds here (see et_pal_ticks_to_ns_multiplier).
  const uint64_t us_total = timestamp / 1000u;
  const uint64_t us = us_total % 1000000u;
  const uint64_t s_total = us_total / 1000000u;
  fprintf(
      stderr,
      "%c %02" PRIu64 ":%02" PRIu64 ":%02" PRIu64 ".%06" PRIu64
      " executorch:%s:%zu] %s\n",
      static_cast<char>(level),
      s_total / 3600u,
      (s_total / 60u) % 60u,
      s_total % 60u,
      us,
      filename != nullptr ? filename : "?",
      line,
      message != nullptr ? message : "");
  fflush(stderr);
}

ET_WEAK void* et_pal_allocate(size_t size) {
  return malloc(size);
}

ET_WEAK void et_pal_free(void* ptr) {
  free(ptr);
}

}  // extern "C"
