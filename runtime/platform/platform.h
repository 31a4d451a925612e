/*
 * Platform abstraction layer (PAL).
 *
 * The C hooks below are what a port of the runtime provides. The library
 * ships weak POSIX defaults (default/posix.cpp); an application overrides any
 * of them simply by defining a strong symbol of the same name. Because the
 * hooks are called through the PLT, that works even when the runtime lives in
 * a shared library.
 *
 * C++ code may instead install function pointers at run time with
 * executorch::runtime::register_pal(); the pal_*() wrappers consult those
 * first and fall back to the et_pal_*() hooks.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/types.h>

/*
 * Internal: the default implementation defines this to ET_WEAK before
 * including the header. Clients must leave it alone so their definitions
 * come out strong.
 */
#ifndef ET_INTERNAL_PLATFORM_WEAKNESS
#define ET_INTERNAL_PLATFORM_WEAKNESS
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Severity of a log message as seen by the PAL. Each value is a printable
 * ASCII character so a sink can print it directly.
 */
typedef enum {
  kDebug = 'D',
  kInfo = 'I',
  kError = 'E',
  kFatal = 'F',
  kUnknown = '?',
} et_pal_log_level_t;

/* One-time platform setup; runtime_init() calls it. */
ET_API void et_pal_init(void) ET_INTERNAL_PLATFORM_WEAKNESS;

/* Stop the program for good. Must not return. */
ET_API ET_NORETURN void et_pal_abort(void) ET_INTERNAL_PLATFORM_WEAKNESS;

/* A monotonic, non-decreasing tick count. */
ET_API et_timestamp_t et_pal_current_ticks(void) ET_INTERNAL_PLATFORM_WEAKNESS;

/* How to turn ticks into nanoseconds: ns = ticks * num / den. */
ET_API et_tick_ratio_t et_pal_ticks_to_ns_multiplier(void)
    ET_INTERNAL_PLATFORM_WEAKNESS;

/*
 * Deliver one finished log line. `message` is `length` bytes and is also
 * NUL-terminated; it carries no trailing newline.
 */
ET_API void et_pal_emit_log_message(
    et_timestamp_t timestamp,
    et_pal_log_level_t level,
    const char* filename,
    const char* function,
    size_t line,
    const char* message,
    size_t length) ET_INTERNAL_PLATFORM_WEAKNESS;

/* Heap hooks for the few places the runtime needs dynamic memory. */
ET_API void* et_pal_allocate(size_t size) ET_INTERNAL_PLATFORM_WEAKNESS;
ET_API void et_pal_free(void* ptr) ET_INTERNAL_PLATFORM_WEAKNESS;

#ifdef __cplusplus
} /* extern "C" */

namespace executorch {
namespace runtime {

/*
 * A set of PAL function pointers installed at run time. A null member means
 * "use the et_pal_*() hook".
 */
struct ET_API PalImpl {
  using pal_init_method = void (*)();
  using pal_abort_method = void (*)();
  using pal_current_ticks_method = et_timestamp_t (*)();
  using pal_ticks_to_ns_multiplier_method = et_tick_ratio_t (*)();
  using pal_emit_log_message_method = void (*)(
      et_timestamp_t timestamp,
      et_pal_log_level_t level,
      const char* filename,
      const char* function,
      size_t line,
      const char* message,
      size_t length);
  using pal_allocate_method = void* (*)(size_t size);
  using pal_free_method = void (*)(void* ptr);

  pal_init_method init = nullptr;
  pal_abort_method abort = nullptr;
  pal_current_ticks_method current_ticks = nullptr;
  pal_ticks_to_ns_multiplier_method ticks_to_ns_multiplier = nullptr;
  pal_emit_log_message_method emit_log_message = nullptr;
  pal_allocate_method allocate = nullptr;
  pal_free_method free = nullptr;

  /* Where the implementation came from, for diagnostics. */
  const char* source_filename = nullptr;

  /* Only replaces the log sink. */
  static PalImpl create(
      pal_emit_log_message_method emit_log_message,
      const char* source_filename);

  static PalImpl create(
      pal_init_method init,
      pal_abort_method abort,
      pal_current_ticks_method current_ticks,
      pal_ticks_to_ns_multiplier_method ticks_to_ns_multiplier,
      pal_emit_log_message_method emit_log_message,
      pal_allocate_method allocate,
      pal_free_method free,
      const char* source_filename);
};

/*
 * Install `impl`; its non-null members take precedence over the C hooks.
 * Returns true on success. Safe to call from static initializers.
 */
ET_NODISCARD ET_API bool register_pal(PalImpl impl);

/* The currently installed implementation (never null). */
ET_API const PalImpl* get_pal_impl();

/* Dispatching wrappers: registered PalImpl member first, else et_pal_*(). */
ET_API void pal_init();
ET_API ET_NORETURN void pal_abort();
ET_API et_timestamp_t pal_current_ticks();
ET_API et_tick_ratio_t pal_ticks_to_ns_multiplier();
ET_API void pal_emit_log_message(
    et_timestamp_t timestamp,
    et_pal_log_level_t level,
    const char* filename,
    const char* function,
    size_t line,
    const char* message,
    size_t length);
ET_API void* pal_allocate(size_t size);
ET_API void pal_free(void* ptr);

}  // namespace runtime
}  // namespace executorch

#endif /* __cplusplus */
