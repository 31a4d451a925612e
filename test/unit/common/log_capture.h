// The runtime's log lines, captured by a PAL log sink registered at start-up, so that tests can
// check that an error names what is wrong. Every line is also printed to stderr.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>

#include <executorch/runtime/platform/platform.h>

namespace test {
namespace log_capture_detail {

struct Sink {
  std::mutex mu;
  std::string text;
};

inline Sink& sink() {
  static Sink s;
  return s;
}

inline void capture(et_timestamp_t, et_pal_log_level_t level, const char* file, const char*,
                    size_t line, const char* message, size_t length) {
  std::lock_guard<std::mutex> lock(sink().mu);
  sink().text.append(message, length);
  sink().text.push_back('\n');
  std::fprintf(stderr, "%c %s:%zu] %.*s\n", static_cast<char>(level), file, line,
               static_cast<int>(length), message);
}

inline const bool registered =
    executorch::runtime::register_pal(executorch::runtime::PalImpl::create(capture, __FILE__));

}  // namespace log_capture_detail

/// Everything logged since the last clear_captured_logs().
inline std::string captured_logs() {
  std::lock_guard<std::mutex> lock(log_capture_detail::sink().mu);
  return log_capture_detail::sink().text;
}

inline void clear_captured_logs() {
  std::lock_guard<std::mutex> lock(log_capture_detail::sink().mu);
  log_capture_detail::sink().text.clear();
}

}  // namespace test
