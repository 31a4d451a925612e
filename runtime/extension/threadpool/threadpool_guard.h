/*
 * NoThreadPoolGuard: while one is alive on a thread, parallel regions that thread starts run
 * inline on it (upstream ExecuTorch's extension/threadpool/threadpool_guard.h). Thread-local,
 * nestable.
 */
#pragma once

#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace extension {
namespace threadpool {

struct ET_API NoThreadPoolGuard {
  static bool is_enabled();
  static void set_enabled(bool enabled);

  NoThreadPoolGuard() : previous_(is_enabled()) {
    set_enabled(true);
  }
  ~NoThreadPoolGuard() {
    set_enabled(previous_);
  }
  NoThreadPoolGuard(const NoThreadPoolGuard&) = delete;
  NoThreadPoolGuard& operator=(const NoThreadPoolGuard&) = delete;

 private:
  const bool previous_;
};

}  // namespace threadpool
}  // namespace extension
}  // namespace executorch
