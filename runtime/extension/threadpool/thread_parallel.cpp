// parallel_for on the process thread pool (contract in thread_parallel_interface.h).
#include <executorch/runtime/kernel/thread_parallel_interface.h>

#include <cinttypes>
#include <exception>

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {
namespace {

thread_local int64_t tl_thread_num = 0;

// Sets the chunk index for the life of one chunk, restored even if the chunk throws.
class ThreadNumScope {
 public:
  explicit ThreadNumScope(int64_t n) : previous_(tl_thread_num) {
    tl_thread_num = n;
  }
  ~ThreadNumScope() {
    tl_thread_num = previous_;
  }
  ThreadNumScope(const ThreadNumScope&) = delete;
  ThreadNumScope& operator=(const ThreadNumScope&) = delete;

 private:
  const int64_t previous_;
};

// f(begin, end) on the calling thread, exceptions caught like the pool's tasks.
bool call_inline(
    int64_t begin,
    int64_t end,
    runtime::FunctionRef<void(int64_t, int64_t)> f) {
  try {
    f(begin, end);
    return true;
  } catch (const std::exception& e) {
    ET_LOG(Error, "parallel_for: the loop body threw: %s", e.what());
  } catch (...) {
    ET_LOG(Error, "parallel_for: the loop body threw a non-std exception");
  }
  return false;
}

}  // namespace

bool parallel_for(
    int64_t begin,
    int64_t end,
    int64_t grain_size,
    runtime::FunctionRef<void(int64_t, int64_t)> f) {
  ET_CHECK_OR_RETURN_FALSE(
      begin >= 0 && end >= begin,
      "begin = %" PRId64 ", end = %" PRId64,
      begin,
      end);
  ET_CHECK_OR_RETURN_FALSE(grain_size > 0, "grain_size = %" PRId64, grain_size);
  const int64_t items = end - begin;
  if (items == 0)
    return true;
  if (items < 2 * grain_size || threadpool::in_parallel_region())
    return call_inline(begin, end, f);
  threadpool::ThreadPool* pool = threadpool::get_threadpool();
  int64_t chunks = static_cast<int64_t>(pool->get_thread_count());
  if (chunks > items / grain_size)
    chunks = items / grain_size;
  if (chunks <= 1)
    return call_inline(begin, end, f);
  const int64_t chunk = (items + chunks - 1) / chunks;
  return pool->run_tasks(
      [&](size_t task) {
        const int64_t b = begin + static_cast<int64_t>(task) * chunk;
        const int64_t e = end - b < chunk ? end : b + chunk;
        ThreadNumScope scope(static_cast<int64_t>(task));
        if (b < e)
          f(b, e);
      },
      static_cast<size_t>(chunks));
}

int64_t get_thread_num() {
  return tl_thread_num;
}

void set_thread_num(int64_t thread_num) {
  tl_thread_num = thread_num;
}

}  // namespace extension
}  // namespace executorch
