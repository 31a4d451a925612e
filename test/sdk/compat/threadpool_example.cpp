// Upstream-style use of the thread pool, as custom operators and runners write it: size the
// pool (executor_runner's _unsafe_reset_threadpool), split a loop with parallel_for (also
// through the older include path and namespace), and keep a region on the caller with
// NoThreadPoolGuard.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <executorch/extension/parallel/thread_parallel.h>
#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>
#include <executorch/runtime/kernel/thread_parallel_interface.h>

using executorch::extension::parallel_for;
using executorch::extension::threadpool::get_threadpool;

int main() {
  if (!get_threadpool()->_unsafe_reset_threadpool(2) || get_threadpool()->get_thread_count() != 2) {
    std::fprintf(stderr, "could not size the pool\n");
    return 1;
  }
  std::vector<float> x(100000);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i % 97);
  std::vector<float> y(x.size());
  const bool ok =
      parallel_for(0, static_cast<int64_t>(x.size()), ::executorch::extension::internal::GRAIN_SIZE,
                   [&](int64_t begin, int64_t end) {
                     for (int64_t i = begin; i < end; ++i)
                       y[i] = 2.0f * x[i] + 1.0f;
                   });
  for (size_t i = 0; i < x.size(); ++i) {
    if (!ok || y[i] != 2.0f * x[i] + 1.0f) {
      std::fprintf(stderr, "parallel_for result wrong at %zu\n", i);
      return 1;
    }
  }
  std::atomic<int64_t> sum{0};
  {
    executorch::extension::threadpool::NoThreadPoolGuard guard;
    torch::executor::parallel_for(0, 1000, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        sum += i;
    });
  }
  get_threadpool()->run([&](size_t i) { sum += static_cast<int64_t>(i); }, 10);
  if (sum != 999 * 1000 / 2 + 45) {
    std::fprintf(stderr, "sum %lld\n", static_cast<long long>(sum.load()));
    return 1;
  }
  std::printf("threads %zu, thread num %lld\n", get_threadpool()->get_thread_count(),
              static_cast<long long>(executorch::extension::get_thread_num()));
  return 0;
}
