// The process thread pool and parallel_for: sizing (affinity, ET_NUM_THREADS, set_num_threads),
// no thread at all in a 1-thread configuration, chunking, nested and concurrent regions,
// exceptions stopped at the task boundary, resizing while other threads run regions. make check
// also runs this group under ThreadSanitizer (mk/test-tsan.mk).
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/extension/parallel/thread_parallel.h>
#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>
#include <executorch/runtime/kernel/thread_parallel_interface.h>

using executorch::extension::get_thread_num;
using executorch::extension::parallel_for;
namespace tp = executorch::extension::threadpool;

namespace {

// Threads of this process, from /proc/self/task.
int count_threads() {
  DIR* d = opendir("/proc/self/task");
  if (d == nullptr)
    return -1;
  int n = 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] != '.')
      ++n;
  }
  closedir(d);
  return n;
}

// Restores the process pool's size after a test that changes it.
class ThreadPoolTest : public ::testing::Test {
 protected:
  void TearDown() override {
    EXPECT_TRUE(tp::set_num_threads(0));
  }
};

TEST_F(ThreadPoolTest, DefaultSizeIsTheAffinityMask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  EXPECT_EQ(tp::default_num_threads(), static_cast<size_t>(CPU_COUNT(&set)));
  ASSERT_TRUE(tp::set_num_threads(0));
  EXPECT_EQ(tp::get_num_threads(), tp::default_num_threads());
  EXPECT_EQ(tp::get_threadpool()->get_thread_count(), tp::default_num_threads());
}

TEST_F(ThreadPoolTest, SetNumThreadsResizesAndRejectsNonsense) {
  ASSERT_TRUE(tp::set_num_threads(3));
  EXPECT_EQ(tp::get_num_threads(), 3u);
  EXPECT_FALSE(tp::set_num_threads(tp::kMaxThreads + 1));
  EXPECT_EQ(tp::get_num_threads(), 3u);
  ASSERT_TRUE(tp::get_threadpool()->_unsafe_reset_threadpool(2));
  EXPECT_EQ(tp::get_num_threads(), 2u);
}

TEST_F(ThreadPoolTest, OneThreadCreatesNoThread) {
  ASSERT_TRUE(tp::set_num_threads(1));
  EXPECT_EQ(tp::get_threadpool()->num_started_workers(), 0u);
  const int before = count_threads();
  ASSERT_GT(before, 0);
  const std::thread::id self = std::this_thread::get_id();
  std::atomic<int> elsewhere{0};
  std::vector<int> seen(1 << 16, 0);
  for (int round = 0; round < 20; ++round) {
    ASSERT_TRUE(parallel_for(0, static_cast<int64_t>(seen.size()), 64, [&](int64_t b, int64_t e) {
      if (std::this_thread::get_id() != self)
        ++elsewhere;
      for (int64_t i = b; i < e; ++i)
        ++seen[i];
    }));
    tp::get_threadpool()->run(
        [&](size_t) {
          if (std::this_thread::get_id() != self)
            ++elsewhere;
        },
        100);
  }
  EXPECT_EQ(elsewhere.load(), 0);
  EXPECT_LE(count_threads(), before);
  EXPECT_EQ(tp::get_threadpool()->num_started_workers(), 0u);
  for (int v : seen)
    ASSERT_EQ(v, 20);
}

TEST_F(ThreadPoolTest, WorkersStartLazilyAndRunTasks) {
  ASSERT_TRUE(tp::set_num_threads(3));
  EXPECT_EQ(tp::get_threadpool()->num_started_workers(), 0u);
  std::mutex m;
  std::set<std::thread::id> ids;
  std::vector<int> hits(1000, 0);
  // Enough slow tasks that the two workers wake up and take some.
  tp::get_threadpool()->run(
      [&](size_t i) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        hits[i]++;
        std::lock_guard<std::mutex> lock(m);
        ids.insert(std::this_thread::get_id());
      },
      hits.size());
  EXPECT_EQ(tp::get_threadpool()->num_started_workers(), 2u);
  EXPECT_GE(ids.size(), 2u);
  EXPECT_LE(ids.size(), 3u);
  for (int h : hits)
    ASSERT_EQ(h, 1);
}

TEST_F(ThreadPoolTest, ChunksCoverTheRangeOnceWithAtLeastTheGrain) {
  ASSERT_TRUE(tp::set_num_threads(3));
  for (int64_t n : {0, 1, 7, 99, 100, 199, 200, 201, 1000, 12345}) {
    std::mutex m;
    std::vector<std::pair<int64_t, int64_t>> chunks;
    ASSERT_TRUE(parallel_for(5, 5 + n, 100, [&](int64_t b, int64_t e) {
      std::lock_guard<std::mutex> lock(m);
      chunks.emplace_back(b, e);
    }));
    std::sort(chunks.begin(), chunks.end());
    int64_t next = 5;
    for (auto& c : chunks) {
      EXPECT_EQ(c.first, next) << "n=" << n;
      EXPECT_LT(c.first, c.second);
      next = c.second;
    }
    EXPECT_EQ(next, 5 + n);
    EXPECT_LE(chunks.size(), 3u);
    if (n < 200)  // fewer than two grains: one inline call
      EXPECT_EQ(chunks.size(), n == 0 ? 0u : 1u) << "n=" << n;
    else
      EXPECT_GE(chunks.size(), 2u) << "n=" << n;
    if (chunks.size() > 1) {
      for (size_t i = 0; i + 1 < chunks.size(); ++i)
        EXPECT_GE(chunks[i].second - chunks[i].first, 100) << "n=" << n;
    }
  }
}

TEST_F(ThreadPoolTest, MalformedRangesAreRefused) {
  bool called = false;
  auto f = [&](int64_t, int64_t) { called = true; };
  EXPECT_FALSE(parallel_for(10, 5, 1, f));
  EXPECT_FALSE(parallel_for(-1, 5, 1, f));
  EXPECT_FALSE(parallel_for(0, 5, 0, f));
  EXPECT_FALSE(called);
}

TEST_F(ThreadPoolTest, NestedRegionsRunInline) {
  ASSERT_TRUE(tp::set_num_threads(2));
  std::vector<int64_t> sums(64, 0);
  std::atomic<int> inner_off_thread{0};
  ASSERT_TRUE(parallel_for(0, 64, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      EXPECT_TRUE(tp::in_parallel_region());
      const std::thread::id outer = std::this_thread::get_id();
      EXPECT_TRUE(parallel_for(0, 1000, 1, [&](int64_t ib, int64_t ie) {
        if (std::this_thread::get_id() != outer)
          ++inner_off_thread;
        for (int64_t j = ib; j < ie; ++j)
          sums[i] += j;
      }));
      // A resize from inside a task would wait for its own region: refused instead.
      EXPECT_FALSE(tp::set_num_threads(1));
    }
  }));
  EXPECT_EQ(inner_off_thread.load(), 0);
  for (int64_t s : sums)
    EXPECT_EQ(s, 999 * 1000 / 2);
  EXPECT_FALSE(tp::in_parallel_region());
}

TEST_F(ThreadPoolTest, NoThreadPoolGuardKeepsRegionsOnTheCaller) {
  ASSERT_TRUE(tp::set_num_threads(2));
  const std::thread::id self = std::this_thread::get_id();
  std::atomic<int> elsewhere{0};
  {
    tp::NoThreadPoolGuard guard;
    EXPECT_TRUE(tp::NoThreadPoolGuard::is_enabled());
    tp::get_threadpool()->run(
        [&](size_t) {
          std::this_thread::sleep_for(std::chrono::microseconds(100));
          if (std::this_thread::get_id() != self)
            ++elsewhere;
        },
        200);
  }
  EXPECT_FALSE(tp::NoThreadPoolGuard::is_enabled());
  EXPECT_EQ(elsewhere.load(), 0);
}

TEST_F(ThreadPoolTest, ExceptionsStayInsideTheRegion) {
  ASSERT_TRUE(tp::set_num_threads(2));
  std::atomic<int> ran{0};
  EXPECT_FALSE(tp::get_threadpool()->run_tasks(
      [&](size_t i) {
        ++ran;
        if (i % 7 == 3)
          throw std::runtime_error("task failed");
      },
      100));
  EXPECT_EQ(ran.load(), 100);  // the other tasks still ran
  EXPECT_FALSE(parallel_for(0, 10000, 10, [](int64_t, int64_t) { throw 42; }));
  EXPECT_FALSE(parallel_for(0, 5, 10, [](int64_t, int64_t) { throw 42; }));  // inline path
  // The pool still works.
  std::atomic<int64_t> total{0};
  EXPECT_TRUE(parallel_for(0, 10000, 10, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      total += i;
  }));
  EXPECT_EQ(total.load(), 9999LL * 10000 / 2);
}

TEST_F(ThreadPoolTest, ConcurrentCallersAndResizesDoNotInterfere) {
  ASSERT_TRUE(tp::set_num_threads(3));
  constexpr int kCallers = 4;
  constexpr int kRounds = 200;
  std::atomic<bool> failed{false};
  std::atomic<bool> done{false};
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      std::vector<int64_t> data(4096);
      for (int r = 0; r < kRounds; ++r) {
        if (!parallel_for(0, static_cast<int64_t>(data.size()), 256, [&](int64_t b, int64_t e) {
              for (int64_t i = b; i < e; ++i)
                data[i] = i * (c + 1) + r;
            })) {
          failed = true;
        }
        for (int64_t i = 0; i < static_cast<int64_t>(data.size()); ++i) {
          if (data[i] != i * (c + 1) + r)
            failed = true;
        }
      }
    });
  }
  std::thread resizer([&] {
    for (size_t n = 1; !done; n = n % 3 + 1) {
      if (!tp::set_num_threads(n))
        failed = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  for (auto& t : callers)
    t.join();
  done = true;
  resizer.join();
  EXPECT_FALSE(failed.load());
}

TEST_F(ThreadPoolTest, ThreadNumIsTheChunkIndex) {
  ASSERT_TRUE(tp::set_num_threads(2));
  std::vector<int64_t> owner(1000, -1);
  ASSERT_TRUE(parallel_for(0, 1000, 100, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      owner[i] = get_thread_num();
  }));
  EXPECT_EQ(owner.front(), 0);
  EXPECT_EQ(owner.back(), 1);
  EXPECT_EQ(get_thread_num(), 0);
}

TEST_F(ThreadPoolTest, ForkedChildRunsRegionsInline) {
  ASSERT_TRUE(tp::set_num_threads(3));
  std::vector<int64_t> data(100000, 1);
  ASSERT_TRUE(parallel_for(0, 100000, 1000, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      data[i] = i;
  }));
  ASSERT_EQ(tp::get_threadpool()->num_started_workers(), 2u);
  const pid_t pid = fork();
  if (pid == 0) {
    // The parent's workers do not exist here: a region must still complete, on this thread.
    std::vector<int64_t> twice(data.size());
    const std::thread::id self = std::this_thread::get_id();
    bool all_here = true;
    const bool ok = parallel_for(0, 100000, 1000, [&](int64_t b, int64_t e) {
      all_here = all_here && std::this_thread::get_id() == self;
      for (int64_t i = b; i < e; ++i)
        twice[i] = 2 * data[i];
    });
    const bool correct = twice[99999] == 2 * 99999 && twice[500] == 1000;
    _exit(ok && all_here && correct && !tp::set_num_threads(1) ? 0 : 1);
  }
  // A child stuck on a lock some parent thread held at fork() must fail the test, not hang it.
  int status = 0;
  pid_t done = 0;
  for (int waited_ms = 0; done == 0 && waited_ms < 60000; waited_ms += 10) {
    done = waitpid(pid, &status, WNOHANG);
    if (done == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (done == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    FAIL() << "the forked child hung";
  }
  ASSERT_EQ(done, pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

// ET_NUM_THREADS is read when the pool is first used, so this runs the check in a fresh copy
// of this binary with the variable set (and once with a value that must be ignored).
int run_self_with(const char* value, size_t expect) {
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("ET_NUM_THREADS", value, 1);
    setenv("ET_TP_EXPECT", std::to_string(expect).c_str(), 1);
    // Under emulation (a cross build's tests, test/tools/qemu-run.sh) /proc/self/exe is the
    // emulator: ET_TEST_EXEC runs the program (ET_QEMU_SELF) under it again.
    const char* exec = std::getenv("ET_TEST_EXEC");
    const char* self = std::getenv("ET_QEMU_SELF");
    if (exec != nullptr && self != nullptr) {
      const std::string cmd = std::string(exec) + " '" + self + "' --gtest_filter=ThreadPoolEnv.*";
      execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
    } else {
      execl("/proc/self/exe", "test_threadpool", "--gtest_filter=ThreadPoolEnv.*", nullptr);
    }
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(ThreadPoolEnv, EtNumThreadsSetsTheSize) {
  if (const char* expect = std::getenv("ET_TP_EXPECT")) {  // the child
    EXPECT_EQ(tp::get_num_threads(), static_cast<size_t>(std::atoll(expect)));
    return;
  }
  EXPECT_EQ(run_self_with("3", 3), 0);
  EXPECT_EQ(run_self_with("1", 1), 0);
  EXPECT_EQ(run_self_with("banana", tp::default_num_threads()), 0);
  EXPECT_EQ(run_self_with("0", tp::default_num_threads()), 0);
}

}  // namespace
