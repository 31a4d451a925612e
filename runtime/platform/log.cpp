/*
 * Formatting half of ET_LOG; the output half is the PAL sink.
 */
#include <executorch/runtime/platform/log.h>

#include <cstdio>

#include <executorch/runtime/platform/platform.h>

namespace executorch {
namespace runtime {
namespace internal {
namespace {

// Long enough for any message the runtime writes; longer text is cut.
constexpr size_t kMaxLogMessageLength = 512;

et_pal_log_level_t to_pal_level(LogLevel level) {
  switch (level) {
    case LogLevel::Debug:
      return kDebug;
    case LogLevel::Info:
      return kInfo;
    case LogLevel::Error:
      return kError;
    case LogLevel::Fatal:
      return kFatal;
    case LogLevel::NumLevels:
      break;
  }
  return kUnknown;
}

}  // namespace

et_timestamp_t get_log_timestamp() {
  return pal_current_ticks();
}

void vlogf(
    LogLevel level,
    et_timestamp_t timestamp,
    const char* filename,
    const char* function,
    size_t line,
    const char* format,
    va_list args) {
#if ET_LOG_ENABLED
  char buf[kMaxLogMessageLength];
  int written =
      vsnprintf(buf, sizeof(buf), format != nullptr ? format : "", args);
  size_t length = 0;
  if (written < 0) {
    buf[0] = '\0';  // Encoding error: emit an empty message rather than junk.
  } else {
    length = static_cast<size_t>(written);
    if (length >= sizeof(buf)) {
      length = sizeof(buf) - 1;  // vsnprintf truncated and terminated.
    }
  }
  pal_emit_log_message(
      timestamp, to_pal_level(level), filename, function, line, buf, length);
#else
  (void)level;
  (void)timestamp;
  (void)filename;
  (void)function;
  (void)line;
  (void)format;
  (void)args;
#endif
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
