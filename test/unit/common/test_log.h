// Captures everything the runtime logs (through the PAL log hook), for tests that check an
// error's log line names the problem. Header-only: including it in a test binary installs the
// hook once; the sink also prints to stderr.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>

#include <executorch/runtime/platform/platform.h>

namespace test_log {

struct State {
  std::mutex mu;
  std::string text;
};

inline State& state() {
  static State s;
  return s;
}

inline void capture(et_timestamp_t, et_pal_log_level_t level, const char* file, const char*,
                    size_t line, const char* message, size_t length) {
  std::lock_guard<std::mutex> lock(state().mu);
  state().text.append(message, length);
  state().text.push_back('\n');
  std::fprintf(stderr, "%c %s:%zu] %.*s\n", static_cast<char>(level), file, line,
               static_cast<int>(length), message);
}

inline const bool installed =
    executorch::runtime::register_pal(executorch::runtime::PalImpl::create(capture, __FILE__));

// Everything logged since the last clear().
inline std::string logs() {
  std::lock_guard<std::mutex> lock(state().mu);
  return state().text;
}

inline void clear() {
  std::lock_guard<std::mutex> lock(state().mu);
  state().text.clear();
}

}  // namespace test_log
