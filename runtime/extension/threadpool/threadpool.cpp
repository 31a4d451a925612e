// The thread pool (see threadpool.h for the contract).
//
// A region is a Job: a task function, a task count and an atomic "next task" counter. The
// caller publishes the job under the pool mutex and wakes the workers; every participant (the
// caller included) claims task indices until none are left. The caller then waits, under the
// same mutex, until no worker still holds the job, and unpublishes it: that wait is what makes
// the job (on the caller's stack) safe to destroy and the tasks' writes visible to the caller.
//
// Waking a sleeping thread takes the scheduler tens of microseconds on an idle machine and
// often milliseconds on a busy one, longer than most of a CNN's layers take: the woken worker
// then finds every task already claimed by the caller and the second core is never used. So
// both sides poll for a short while (kSpinMicros) before they sleep on a condition variable:
// a worker after its last job, watching for the next one; the caller after its share, watching
// for the workers to finish. During an inference, whose regions follow each other within
// microseconds, the workers rarely sleep; an idle pool sleeps after kSpinMicros and burns
// nothing. Polling is only ever a shortcut: whoever stops polling re-checks under the mutex.
// A pool with more threads than CPUs never polls (a poller would hold the CPU its peer needs).
#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>

#include <sched.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {
namespace threadpool {
namespace {

// Set on workers for their whole life and on a caller while it runs its share of a region.
thread_local bool tl_in_region = false;
thread_local bool tl_no_threadpool = false;

// After fork() the child has none of the parent's workers (only the forking thread survives),
// and the pool's mutexes may have been held by threads that no longer exist: the child runs
// every region inline.
std::atomic<bool> g_forked_child{false};
void mark_forked_child() {
  g_forked_child.store(true, std::memory_order_relaxed);
}

// How long a worker polls for the next region, and a caller for its workers, before sleeping.
// Longer than the gap between consecutive regions of a CNN's inference (the few small serial
// operators between two convolutions take tens of microseconds), short enough that polling
// costs little CPU time on a busy machine, where it competes with other processes.
constexpr std::chrono::microseconds kSpinMicros{100};

// Polls done() with a pause between reads until it holds (true) or kSpinMicros pass (false).
// Every few microseconds it also yields the CPU: when the machine is busy, the thread it waits
// for (or another process) may be waiting for this very CPU; on a free CPU the yield returns
// at once.
template <class Done>
bool spin_until(const Done& done) {
  const auto deadline = std::chrono::steady_clock::now() + kSpinMicros;
  while (true) {
    for (int i = 0; i < 64; ++i) {
      if (done())
        return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#elif defined(__aarch64__)
      asm volatile("yield");
#endif
    }
    if (std::chrono::steady_clock::now() >= deadline)
      return done();
    sched_yield();
  }
}

struct Job {
  runtime::FunctionRef<void(size_t)> fn;
  size_t range = 0;
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
};

// Claims and runs tasks of `job` until none are left. An exception must not leave a worker
// (it would terminate the process) nor the caller's region half-done: it is logged, recorded,
// and the remaining tasks still run.
void drain(Job& job) {
  for (size_t i = job.next.fetch_add(1, std::memory_order_relaxed);
       i < job.range;
       i = job.next.fetch_add(1, std::memory_order_relaxed)) {
    try {
      job.fn(i);
    } catch (const std::exception& e) {
      ET_LOG(Error, "thread pool: task %zu threw: %s", i, e.what());
      job.failed.store(true, std::memory_order_relaxed);
    } catch (...) {
      ET_LOG(Error, "thread pool: task %zu threw a non-std exception", i);
      job.failed.store(true, std::memory_order_relaxed);
    }
  }
}

// Runs every task on the calling thread, marked as inside a region so nested regions stay
// inline too.
bool run_inline(runtime::FunctionRef<void(size_t)> fn, size_t range) {
  Job job;
  job.fn = fn;
  job.range = range;
  const bool was_in_region = tl_in_region;
  tl_in_region = true;
  drain(job);
  tl_in_region = was_in_region;
  return !job.failed.load(std::memory_order_relaxed);
}

size_t affinity_cpu_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0)
      return static_cast<size_t>(n);
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? hw : 1;
}

// ET_NUM_THREADS, if set to an integer in [1, kMaxThreads]; 0 (use the default) otherwise,
// with a log line saying why a set value is ignored.
size_t env_num_threads() {
  const char* s = std::getenv("ET_NUM_THREADS");
  if (s == nullptr || *s == '\0')
    return 0;
  char* end = nullptr;
  const long long v = std::strtoll(s, &end, 10);
  if (*end != '\0' || v < 1 ||
      static_cast<unsigned long long>(v) > kMaxThreads) {
    ET_LOG(
        Error,
        "ET_NUM_THREADS='%s' is not a thread count in [1, %zu]; using %zu",
        s,
        kMaxThreads,
        default_num_threads());
    return 0;
  }
  return static_cast<size_t>(v);
}

}  // namespace

struct ThreadPool::Impl {
  // Held for a whole region; callers that cannot get it run inline instead of waiting.
  std::mutex region_mutex;

  mutable std::mutex mutex;  // guards everything below
  std::condition_variable work_ready;
  std::condition_variable workers_idle;
  std::vector<std::thread> workers;
  // Written under `mutex` (and region_mutex); read without a lock, so asking the size never
  // waits (and never blocks in a forked child on a mutex some vanished thread held).
  std::atomic<size_t> thread_count{1};
  // Whether the threads poll (spin_until) before sleeping: only when each can have a CPU of
  // its own. With more threads than CPUs a polling thread would take the CPU from the very
  // thread it waits for. Set with thread_count.
  std::atomic<bool> poll{false};
  // The three below are atomics only so that the polling (spin_until) can read them without
  // the mutex; they change under it.
  std::atomic<bool> stopping{false};
  // Bumped per published job, so a worker joins each job at most once.
  std::atomic<uint64_t> generation{0};
  std::atomic<size_t> busy{0};  // workers currently holding `job`
  Job* job = nullptr;

  void worker_main() {
    tl_in_region = true;
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      auto woken = [&] {
        return stopping.load(std::memory_order_relaxed) ||
               generation.load(std::memory_order_relaxed) != seen;
      };
      if (!woken() && poll.load(std::memory_order_relaxed)) {
        lock.unlock();
        spin_until(woken);
        lock.lock();
      }
      work_ready.wait(lock, woken);
      if (stopping.load(std::memory_order_relaxed))
        return;
      seen = generation.load(std::memory_order_relaxed);
      Job* current = job;
      if (current == nullptr)
        continue;  // that region already finished
      ++busy;
      lock.unlock();
      drain(*current);
      lock.lock();
      if (busy.fetch_sub(1, std::memory_order_release) == 1)
        workers_idle.notify_all();
    }
  }

  // With `mutex` held: makes the worker count match thread_count - 1. Returns false if a
  // thread could not be created (the region then runs on fewer threads, or inline).
  bool start_workers_locked() {
    const size_t want = thread_count.load(std::memory_order_relaxed) - 1;
    while (workers.size() < want) {
      try {
        workers.emplace_back([this] { worker_main(); });
      } catch (const std::exception& e) {
        ET_LOG(
            Error,
            "thread pool: could not start a worker thread (%s); running with "
            "%zu",
            e.what(),
            workers.size() + 1);
        return !workers.empty();
      }
    }
    return true;
  }

  // With `mutex` held (or before the pool is shared).
  void set_thread_count(size_t n) {
    thread_count.store(n, std::memory_order_relaxed);
    poll.store(n <= affinity_cpu_count(), std::memory_order_relaxed);
  }

  // Stops and joins every worker. Caller holds region_mutex (so no region is in flight) and
  // not `mutex`.
  void stop_workers() {
    std::vector<std::thread> stopped;
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping.store(true, std::memory_order_relaxed);
      stopped.swap(workers);
    }
    work_ready.notify_all();
    for (std::thread& t : stopped)
      t.join();
    std::lock_guard<std::mutex> lock(mutex);
    stopping.store(false, std::memory_order_relaxed);
  }
};

ThreadPool::ThreadPool(size_t thread_count) : impl_(new Impl) {
  size_t n = thread_count == 0 ? default_num_threads() : thread_count;
  impl_->set_thread_count(n > kMaxThreads ? kMaxThreads : n);
}

ThreadPool::~ThreadPool() {
  std::lock_guard<std::mutex> region(impl_->region_mutex);
  impl_->stop_workers();
}

size_t ThreadPool::get_thread_count() const {
  return impl_->thread_count.load(std::memory_order_relaxed);
}

size_t ThreadPool::num_started_workers() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->workers.size();
}

bool ThreadPool::_unsafe_reset_threadpool(uint32_t num_threads) {
  if (tl_in_region) {
    ET_LOG(Error, "thread pool: cannot resize from inside a parallel region");
    return false;
  }
  if (g_forked_child.load(std::memory_order_relaxed)) {
    // The parent's workers do not exist here and its locks may be held by vanished threads.
    ET_LOG(Error, "thread pool: cannot resize in a child process after fork()");
    return false;
  }
  if (num_threads > kMaxThreads) {
    ET_LOG(
        Error,
        "thread pool: %u threads requested, at most %zu allowed",
        num_threads,
        kMaxThreads);
    return false;
  }
  std::lock_guard<std::mutex> region(impl_->region_mutex);
  impl_->stop_workers();
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->set_thread_count(
      num_threads == 0 ? default_num_threads() : num_threads);
  return true;
}

void ThreadPool::run(runtime::FunctionRef<void(size_t)> fn, size_t range) {
  (void)run_tasks(fn, range);
}

bool ThreadPool::run_tasks(
    runtime::FunctionRef<void(size_t)> fn, size_t range) {
  if (range == 0)
    return true;
  if (range == 1 || tl_in_region || tl_no_threadpool ||
      g_forked_child.load(std::memory_order_relaxed)) {
    return run_inline(fn, range);
  }
  std::unique_lock<std::mutex> region(impl_->region_mutex, std::try_to_lock);
  if (!region.owns_lock())
    return run_inline(fn, range);  // another caller's region is on the workers

  Job job;
  job.fn = fn;
  job.range = range;
  bool published = false;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (impl_->thread_count.load(std::memory_order_relaxed) > 1 &&
        impl_->start_workers_locked()) {
      impl_->job = &job;
      impl_->generation.fetch_add(1, std::memory_order_relaxed);
      published = true;
    }
  }
  if (published)
    impl_->work_ready.notify_all();

  tl_in_region = true;
  drain(job);
  tl_in_region = false;
  if (!published)
    return !job.failed.load(std::memory_order_relaxed);

  // The workers' chunks are usually about done when the caller's is: poll before sleeping. A
  // worker that joins after the poll saw none busy is waited for under the mutex.
  auto idle = [&] { return impl_->busy.load(std::memory_order_acquire) == 0; };
  if (impl_->poll.load(std::memory_order_relaxed))
    spin_until(idle);
  std::unique_lock<std::mutex> lock(impl_->mutex);
  impl_->workers_idle.wait(lock, idle);
  impl_->job = nullptr;
  return !job.failed.load(std::memory_order_relaxed);
}

ThreadPool* get_threadpool() {
  // Never destroyed: a worker blocked at exit is harmless, while destroying the pool during
  // static destruction could race with another library's destructor still running kernels.
  static ThreadPool* const pool = [] {
    pthread_atfork(nullptr, nullptr, mark_forked_child);
    return new ThreadPool(env_num_threads());
  }();
  return pool;
}

size_t default_num_threads() {
  const size_t n = affinity_cpu_count();
  return n > kMaxThreads ? kMaxThreads : n;
}

size_t get_num_threads() {
  return get_threadpool()->get_thread_count();
}

bool set_num_threads(size_t n) {
  if (n > kMaxThreads) {
    ET_LOG(
        Error,
        "set_num_threads(%zu): at most %zu threads allowed",
        n,
        kMaxThreads);
    return false;
  }
  return get_threadpool()->_unsafe_reset_threadpool(static_cast<uint32_t>(n));
}

bool in_parallel_region() {
  return tl_in_region;
}

bool NoThreadPoolGuard::is_enabled() {
  return tl_no_threadpool;
}

void NoThreadPoolGuard::set_enabled(bool enabled) {
  tl_no_threadpool = enabled;
}

}  // namespace threadpool
}  // namespace extension
}  // namespace executorch
