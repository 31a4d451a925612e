/*
 * ET_LOG: printf-style logging routed to the PAL log sink.
 *
 * Filtering happens at compile time in the including translation unit:
 * messages below ET_MIN_LOG_LEVEL (a LogLevel enumerator name, default Info)
 * are compiled out, and ET_LOG_ENABLED=0 removes logging altogether.
 */
#pragma once

#include <cinttypes>  // PRIu32 and friends, which clients use in ET_LOG formats.
#include <cstdarg>
#include <cstddef>
#include <cstdint>

#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/types.h>

#ifndef ET_LOG_ENABLED
#define ET_LOG_ENABLED 1
#endif

#ifndef ET_MIN_LOG_LEVEL
#define ET_MIN_LOG_LEVEL Info
#endif

namespace executorch {
namespace runtime {

enum class LogLevel : uint8_t {
  Debug,  // Detail useful while developing; off by default.
  Info,   // Normal progress messages.
  Error,  // Something failed; execution may continue.
  Fatal,  // Something failed; the runtime is about to abort.
  NumLevels,
};

namespace internal {

/* Timestamp in PAL ticks, used to stamp each message. */
ET_API et_timestamp_t get_log_timestamp();

/*
 * Formats one message and hands it to the PAL sink. Messages longer than the
 * internal buffer are truncated rather than allocated for.
 */
ET_API void vlogf(
    LogLevel level,
    et_timestamp_t timestamp,
    const char* filename,
    const char* function,
    size_t line,
    const char* format,
    va_list args);

/* Variadic convenience form of vlogf. */
ET_PRINTFLIKE(6, 7)
inline void logf(
    LogLevel level,
    et_timestamp_t timestamp,
    const char* filename,
    const char* function,
    size_t line,
    const char* format,
    ...) {
#if ET_LOG_ENABLED
  va_list args;
  va_start(args, format);
  vlogf(level, timestamp, filename, function, line, format, args);
  va_end(args);
#else
  (void)level;
  (void)timestamp;
  (void)filename;
  (void)function;
  (void)line;
  (void)format;
#endif
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::LogLevel;
}  // namespace executor
}  // namespace torch

#if ET_LOG_ENABLED

#define ET_LOG(_level, _format, ...)                                    \
  do {                                                                  \
    const auto _et_log_level = ::executorch::runtime::LogLevel::_level; \
    if (static_cast<uint32_t>(_et_log_level) >=                         \
        static_cast<uint32_t>(                                          \
            ::executorch::runtime::LogLevel::ET_MIN_LOG_LEVEL)) {       \
      const auto _et_log_ts =                                           \
          ::executorch::runtime::internal::get_log_timestamp();         \
      ::executorch::runtime::internal::logf(                            \
          _et_log_level,                                                \
          _et_log_ts,                                                   \
          ET_SHORT_FILENAME,                                            \
          ET_FUNCTION,                                                  \
          ET_LINE,                                                      \
          _format,                                                      \
          ##__VA_ARGS__);                                               \
    }                                                                   \
  } while (0)

#else  // ET_LOG_ENABLED

// Still "uses" the level name so a typo is caught in every configuration.
#define ET_LOG(_level, _format, ...)               \
  do {                                             \
    (void)::executorch::runtime::LogLevel::_level; \
  } while (0)

#endif  // ET_LOG_ENABLED

/* Logs at Error level when `_condition` is false; does not return. */
#define ET_CHECK_OR_LOG_ERROR(_condition, _format, ...)                      \
  do {                                                                       \
    if (!(_condition)) {                                                     \
      ET_LOG(                                                                \
          Error, "Check failed (%s): " _format, #_condition, ##__VA_ARGS__); \
    }                                                                        \
  } while (0)
