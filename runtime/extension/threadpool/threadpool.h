/*
 * The process's one thread pool (it lives in libexecutorch.so.1, so every library and the
 * Python extension share it). The compute-heavy CPU kernels split their loops across it with
 * parallel_for (executorch/runtime/kernel/thread_parallel_interface.h).
 *
 * Size: the number of CPUs this process may run on (sched_getaffinity), unless the environment
 * variable ET_NUM_THREADS (read once, when the pool is first used) or set_num_threads() says
 * otherwise. The size counts the calling thread, which always takes part: a pool of N runs
 * N - 1 worker threads, so a 1-thread pool never creates a thread. Workers start lazily, on
 * the first parallel region that can use them. After a region the workers watch for the next
 * one for about a hundred microseconds before they sleep (unless the pool has more threads than
 * CPUs), so the regions of one inference start without a scheduler wake-up.
 *
 * Concurrency: one parallel region runs on the workers at a time. A caller that finds the pool
 * busy (another Method executing on another thread) runs its whole region itself instead of
 * waiting, and a region entered from inside a running task (a nested parallel_for) runs inline
 * on that thread; neither can deadlock. Tasks must not throw: an exception is caught at the
 * task boundary, logged, and reported as a failed run. In a child process after fork() (which
 * has none of the parent's workers) every region runs inline and the pool cannot be resized.
 *
 * The names and shape follow upstream ExecuTorch (extension/threadpool/threadpool.h), so code
 * written against upstream compiles; there is no pthreadpool underneath.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include <executorch/runtime/core/function_ref.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace extension {
namespace threadpool {

class ET_API ThreadPool final {
 public:
  // thread_count 0 means the default size (see above).
  explicit ThreadPool(size_t thread_count = 0);
  ~ThreadPool();

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ThreadPool(ThreadPool&&) = delete;
  ThreadPool& operator=(ThreadPool&&) = delete;

  // Threads a parallel region can use, the caller included (>= 1).
  size_t get_thread_count() const;

  // Resizes the pool to num_threads (0: the default size). Unlike upstream's, this one is safe
  // to call at any time from outside a task: it waits for the region in flight to finish, stops
  // the workers, and lets the next region start the new number lazily. Returns false (changing
  // nothing) when called from inside a task, where waiting would deadlock, or in a child
  // process after fork().
  bool _unsafe_reset_threadpool(uint32_t num_threads);

  // Runs fn(i) for every i in [0, range) and returns when all have finished, on the workers
  // and the calling thread. Tasks are claimed dynamically, so fn must not depend on which
  // thread runs which i.
  void run(runtime::FunctionRef<void(size_t)> fn, size_t range);

  // As run(); false if a task threw (the exception is logged and dropped).
  bool run_tasks(runtime::FunctionRef<void(size_t)> fn, size_t range);

  // Worker threads running right now (0 until the first parallel region; tests use this).
  size_t num_started_workers() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The process's pool, created (without threads) on first call.
ET_API ThreadPool* get_threadpool();

// The default size: CPUs in this process's affinity mask (at least 1).
ET_API size_t default_num_threads();

// Shorthands for the process pool: its size, and a resize (see _unsafe_reset_threadpool;
// n == 0 restores the default, n above kMaxThreads is refused). Return false on refusal.
ET_API size_t get_num_threads();
ET_API bool set_num_threads(size_t n);

// Upper bound accepted from set_num_threads and ET_NUM_THREADS.
constexpr size_t kMaxThreads = 256;

// True while the calling thread runs a task of a parallel region (nested regions run inline).
ET_API bool in_parallel_region();

}  // namespace threadpool
}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executorch {
namespace threadpool {
// Upstream's older spelling of the namespace.
using ::executorch::extension::threadpool::get_threadpool;
using ::executorch::extension::threadpool::ThreadPool;
}  // namespace threadpool
}  // namespace executorch
}  // namespace torch
