// Several Methods at once, each on its own thread: Modules loading zoo fixtures and running
// forward in parallel (separate Programs, and one Program shared by several Modules), and
// programs loading while another thread registers kernels and backends. Results must equal a
// single-threaded run bit for bit, with the kernels splitting their loops on the shared thread
// pool. make check also runs this group under ThreadSanitizer (mk/test-tsan.mk), which is what
// finds a data race here.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/kernel/operator_registry.h>

#include "../common/zoo_fixture.h"

using executorch::extension::FileDataLoader;
using executorch::extension::Module;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Program;

namespace {

// Small non-delegated fixtures whose forward needs only the kernel library: enough distinct
// kernels (linear, conv, recurrent, elementwise, unplanned outputs) to share the registry and
// the kernel code across threads, small enough for a ThreadSanitizer run.
const char* const kPrograms[] = {"mlp", "cnn", "gru", "multi_method", "unplanned_io"};
constexpr int kThreads = 4;
constexpr int kRounds = 3;

// The recorded first call of a program's forward.
struct Call {
  std::string file;
  std::vector<std::unique_ptr<test::ZooValue>> inputs;
  std::vector<EValue> values;
};

Call first_call(const std::string& name) {
  Call call;
  for (const auto& p : test::zoo_manifest()["programs"].arr) {
    if (p["name"].str != name) {
      continue;
    }
    call.file = test::zoo_dir() + "/" + p["file"].str;
    for (const auto& m : p["methods"].arr) {
      if (m["name"].str != "forward") {
        continue;
      }
      for (const auto& in : m["calls"].arr.at(0)["inputs"].arr) {
        auto v = std::make_unique<test::ZooValue>();
        std::string err;
        EXPECT_TRUE(test::make_zoo_value(in, v.get(), &err)) << name << ": " << err;
        call.values.push_back(v->value);
        call.inputs.push_back(std::move(v));
      }
    }
  }
  EXPECT_FALSE(call.file.empty()) << name << " is not in the zoo manifest";
  return call;
}

// Every output as bytes (tensors: their data; scalars: their value), for exact comparison.
using Outputs = std::vector<std::string>;

Outputs snapshot(const std::vector<EValue>& outs) {
  Outputs s;
  for (const EValue& v : outs) {
    if (v.isTensor()) {
      const auto& t = v.toTensor();
      s.emplace_back(static_cast<const char*>(t.const_data_ptr()), t.nbytes());
    } else if (v.isInt()) {
      s.push_back("int " + std::to_string(v.toInt()));
    } else if (v.isDouble()) {
      s.push_back("double " + std::to_string(v.toDouble()));
    } else {
      s.push_back("tag " + std::to_string(static_cast<int>(v.tag)));
    }
  }
  return s;
}

// Runs forward once on `module`; an empty result (and a failure) if anything fails.
Outputs run_forward(Module& module, const Call& call, const std::string& where) {
  auto outs = module.forward(call.values);
  if (!outs.ok()) {
    ADD_FAILURE() << where << ": forward failed with error " << static_cast<int>(outs.error());
    return {};
  }
  return snapshot(outs.get());
}

// The kernels' thread pool is shared by every Method: with three pool threads and every loop
// that can split splitting (chunk minimum one item, read once by the kernel library), the
// Methods below submit parallel regions concurrently; one caller gets the workers, the others
// run their regions inline. Results must not change.
class SharedPoolEverywhere : public ::testing::Environment {
 public:
  void SetUp() override {
    setenv("ET_KERNELS_MIN_PARALLEL_WORK", "1", /*overwrite=*/0);
    ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(3));
  }
};
::testing::Environment* const kSharedPoolEverywhere =
    ::testing::AddGlobalTestEnvironment(new SharedPoolEverywhere);

class ConcurrentMethods : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : kPrograms) {
      calls_.push_back(first_call(name));
      Module module(calls_.back().file);
      expected_.push_back(run_forward(module, calls_.back(), name));
      ASSERT_FALSE(expected_.back().empty()) << name;
    }
  }
  std::vector<Call> calls_;
  std::vector<Outputs> expected_;
};

TEST_F(ConcurrentMethods, SeparateModulesRunForwardInParallel) {
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Each thread owns a Module per program (a Module is not thread-safe) and starts at a
      // different program, so different kernels run at the same time.
      std::vector<std::unique_ptr<Module>> modules;
      for (const Call& call : calls_) {
        modules.push_back(std::make_unique<Module>(call.file));
      }
      for (int r = 0; r < kRounds; ++r) {
        for (size_t i = 0; i < calls_.size(); ++i) {
          const size_t p = (i + static_cast<size_t>(t)) % calls_.size();
          const std::string where = std::string(kPrograms[p]) + " on thread " + std::to_string(t) +
                                    ", round " + std::to_string(r);
          if (run_forward(*modules[p], calls_[p], where) != expected_[p]) {
            ADD_FAILURE() << where << ": outputs differ from the single-threaded run";
            mismatches.fetch_add(1);
          }
        }
      }
    });
  }
  for (auto& th : threads) {
    th.join();
  }
  EXPECT_EQ(mismatches.load(), 0);
}

TEST_F(ConcurrentMethods, ModulesSharingOneProgramRunInParallel) {
  for (size_t p = 0; p < calls_.size(); ++p) {
    auto loader = FileDataLoader::from(calls_[p].file.c_str());
    ASSERT_TRUE(loader.ok());
    auto program = Program::load(&loader.get());
    ASSERT_TRUE(program.ok());
    auto shared = std::make_shared<Program>(std::move(program.get()));
    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      // Methods load from the one Program concurrently, then execute concurrently.
      threads.emplace_back([&, t] {
        Module module(shared);
        for (int r = 0; r < kRounds; ++r) {
          const std::string where =
              std::string(kPrograms[p]) + " (shared) on thread " + std::to_string(t);
          if (run_forward(module, calls_[p], where) != expected_[p]) {
            ADD_FAILURE() << where << ": outputs differ from the single-threaded run";
            mismatches.fetch_add(1);
          }
        }
      });
    }
    for (auto& th : threads) {
      th.join();
    }
    EXPECT_EQ(mismatches.load(), 0) << kPrograms[p];
  }
}

// Registered while the programs load: kernels and a backend no program uses.
void unused_kernel(executorch::runtime::KernelRuntimeContext&, executorch::runtime::Span<EValue*>) {
}

class UnusedBackend final : public executorch::runtime::BackendInterface {
 public:
  bool is_available() const override {
    return true;
  }
  executorch::runtime::Result<executorch::runtime::DelegateHandle*> init(
      executorch::runtime::BackendInitContext&, executorch::runtime::FreeableBuffer*,
      executorch::runtime::ArrayRef<executorch::runtime::CompileSpec>) const override {
    return Error::NotSupported;
  }
  Error execute(executorch::runtime::BackendExecutionContext&, executorch::runtime::DelegateHandle*,
                executorch::runtime::Span<EValue*>) const override {
    return Error::NotSupported;
  }
};

constexpr int kRegistrations = 64;
// Names live in static storage: the registry keeps only pointers.
char kernel_names[kRegistrations][48];
char backend_names[kRegistrations / 8][48];

TEST_F(ConcurrentMethods, ProgramsLoadWhileAnotherThreadRegisters) {
  static UnusedBackend backend;
  std::atomic<bool> registering{true};
  std::atomic<int> registration_failures{0};
  std::thread registrar([&] {
    for (int i = 0; i < kRegistrations; ++i) {
      std::snprintf(kernel_names[i], sizeof(kernel_names[i]), "concurrency_test::k%d.out", i);
      if (executorch::runtime::register_kernel(
              executorch::runtime::Kernel(kernel_names[i], unused_kernel)) != Error::Ok) {
        registration_failures.fetch_add(1);
      }
      if (i % 8 == 0) {
        char* name = backend_names[i / 8];
        std::snprintf(name, sizeof(backend_names[0]), "ConcurrencyTestBackend%d", i / 8);
        if (executorch::runtime::register_backend({name, &backend}) != Error::Ok) {
          registration_failures.fetch_add(1);
        }
      }
      std::this_thread::yield();
    }
    registering.store(false);
  });
  std::atomic<int> mismatches{0};
  std::vector<std::thread> loaders;
  for (int t = 0; t < kThreads - 1; ++t) {
    loaders.emplace_back([&, t] {
      // Load (resolving every operator in the registry) at least once per program, and keep
      // loading until the registrar is done.
      size_t i = static_cast<size_t>(t);
      for (size_t n = 0; n < calls_.size() || registering.load(); ++n, ++i) {
        const size_t p = i % calls_.size();
        Module module(calls_[p].file);
        const std::string where = std::string(kPrograms[p]) + " on loader " + std::to_string(t);
        if (run_forward(module, calls_[p], where) != expected_[p]) {
          mismatches.fetch_add(1);
        }
      }
    });
  }
  registrar.join();
  for (auto& th : loaders) {
    th.join();
  }
  EXPECT_EQ(registration_failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
  for (int i = 0; i < kRegistrations; ++i) {
    EXPECT_TRUE(executorch::runtime::registry_has_op_function(kernel_names[i])) << i;
  }
}

}  // namespace
