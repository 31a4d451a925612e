// Registration from several threads at once, racing with lookups.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/kernel/operator_registry.h>

using executorch::runtime::ArrayRef;
using executorch::runtime::Backend;
using executorch::runtime::BackendExecutionContext;
using executorch::runtime::BackendInitContext;
using executorch::runtime::BackendInterface;
using executorch::runtime::CompileSpec;
using executorch::runtime::DelegateHandle;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::get_op_function_from_registry;
using executorch::runtime::get_registered_kernels;
using executorch::runtime::Kernel;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::register_kernel;
using executorch::runtime::register_kernels;
using executorch::runtime::registry_has_op_function;
using executorch::runtime::Result;
using executorch::runtime::Span;

namespace {

constexpr int kThreads = 8;
constexpr int kPerThread = 200;

// Names live in static storage: the registry keeps only pointers.
char kernel_names[kThreads][kPerThread][48];
char backend_names[kThreads][4][48];

void thread_fn(KernelRuntimeContext&, Span<EValue*>) {}
void other_fn(KernelRuntimeContext&, Span<EValue*>) {}

class NopBackend final : public BackendInterface {
 public:
  bool is_available() const override {
    return true;
  }
  Result<DelegateHandle*> init(BackendInitContext&, FreeableBuffer*,
                               ArrayRef<CompileSpec>) const override {
    return Error::NotSupported;
  }
  Error execute(BackendExecutionContext&, DelegateHandle*, Span<EValue*>) const override {
    return Error::NotSupported;
  }
};

}  // namespace

TEST(RegistryConcurrencyTest, ManyThreadsRegisterDistinctKernels) {
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      std::snprintf(kernel_names[t][i], sizeof(kernel_names[t][i]), "registry_mt::t%d_k%d.out", t,
                    i);
    }
  }
  const size_t before = get_registered_kernels().size();
  std::atomic<int> failures{0};
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures, &ready] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) {
      }
      for (int i = 0; i < kPerThread; ++i) {
        // One call per kernel, alternating single and keyed registration.
        const Kernel k = (i % 2 == 0) ? Kernel(kernel_names[t][i], thread_fn)
                                      : Kernel(kernel_names[t][i], "v1/6;0", thread_fn);
        if (register_kernel(k) != Error::Ok) {
          failures.fetch_add(1);
        }
        // Lookups race with the other threads' registrations.
        if (i % 2 == 0 && !registry_has_op_function(kernel_names[t][i])) {
          failures.fetch_add(1);
        }
        (void)get_registered_kernels().size();
        (void)registry_has_op_function("registry_mt::never.out");
      }
    });
  }
  for (auto& th : threads) {
    th.join();
  }
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(get_registered_kernels().size(), before + kThreads * kPerThread);
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; i += 2) {
      Result<executorch::runtime::OpFunction> fn =
          get_op_function_from_registry(kernel_names[t][i]);
      ASSERT_TRUE(fn.ok()) << kernel_names[t][i];
      EXPECT_EQ(*fn, thread_fn);
    }
  }
  // Each name appears exactly once in the table.
  size_t seen = 0;
  for (const Kernel& k : get_registered_kernels()) {
    if (std::strncmp(k.name_, "registry_mt::t", 14) == 0) {
      ++seen;
    }
  }
  EXPECT_EQ(seen, static_cast<size_t>(kThreads * kPerThread));
}

TEST(RegistryConcurrencyTest, SameKernelFromManyThreadsRegistersOnce) {
  static const Kernel batch[] = {
      Kernel("registry_mt::contended.out", thread_fn),
      Kernel("registry_mt::contended_2.out", other_fn),
  };
  const size_t before = get_registered_kernels().size();
  std::atomic<int> ok{0};
  std::atomic<int> dup{0};
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) {
      }
      Error e = register_kernels(batch);
      if (e == Error::Ok) {
        ok.fetch_add(1);
      } else if (e == Error::RegistrationAlreadyRegistered) {
        dup.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) {
    th.join();
  }
  EXPECT_EQ(ok.load(), 1);
  EXPECT_EQ(dup.load(), kThreads - 1);
  EXPECT_EQ(get_registered_kernels().size(), before + 2);
}

TEST(RegistryConcurrencyTest, ManyThreadsRegisterBackends) {
  static NopBackend impl;
  const size_t before = executorch::runtime::get_num_registered_backends();
  std::atomic<int> failures{0};
  std::atomic<int> dup_ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < 4; ++i) {
      std::snprintf(backend_names[t][i], sizeof(backend_names[t][i]), "RegistryMtBackend_%d_%d", t,
                    i);
    }
  }
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures, &dup_ok] {
      for (int i = 0; i < 4; ++i) {
        if (executorch::runtime::register_backend(Backend{backend_names[t][i], &impl}) !=
            Error::Ok) {
          failures.fetch_add(1);
        }
        if (executorch::runtime::get_backend_class(backend_names[t][i]) != &impl) {
          failures.fetch_add(1);
        }
      }
      // Every thread also races for one shared name.
      if (executorch::runtime::register_backend(Backend{"RegistryMtSharedBackend", &impl}) ==
          Error::Ok) {
        dup_ok.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) {
    th.join();
  }
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(dup_ok.load(), 1);
  EXPECT_EQ(executorch::runtime::get_num_registered_backends(), before + kThreads * 4 + 1);
}
