// Backend registration and lookup, the global set_option/get_option, the
// option containers and the backend contexts.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/runtime/backend/backend_options_map.h>
#include <executorch/runtime/backend/interface.h>

using executorch::runtime::ArrayRef;
using executorch::runtime::Backend;
using executorch::runtime::BackendExecutionContext;
using executorch::runtime::BackendInitContext;
using executorch::runtime::BackendInterface;
using executorch::runtime::BackendOption;
using executorch::runtime::BackendOptionContext;
using executorch::runtime::BackendOptions;
using executorch::runtime::CompileSpec;
using executorch::runtime::DelegateHandle;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::get_backend_class;
using executorch::runtime::get_backend_name;
using executorch::runtime::get_num_registered_backends;
using executorch::runtime::LoadBackendOptionsMap;
using executorch::runtime::register_backend;
using executorch::runtime::Result;
using executorch::runtime::Span;

namespace {

class TestBackend : public BackendInterface {
 public:
  explicit TestBackend(bool available = true) : available_(available) {}
  bool is_available() const override {
    return available_;
  }
  Result<DelegateHandle*> init(BackendInitContext&, FreeableBuffer*,
                               ArrayRef<CompileSpec>) const override {
    return const_cast<TestBackend*>(this);
  }
  Error execute(BackendExecutionContext&, DelegateHandle*, Span<EValue*>) const override {
    return Error::Ok;
  }

 private:
  bool available_;
};

// Remembers the last "threads" option; reports it back through get_option.
class OptionBackend final : public TestBackend {
 public:
  Error set_option(BackendOptionContext&, const Span<BackendOption>& opts) override {
    for (const BackendOption& o : opts) {
      if (std::strcmp(o.key, "threads") != 0) {
        return Error::InvalidArgument;
      }
      const int* v = std::get_if<int>(&o.value);
      if (v == nullptr) {
        return Error::InvalidArgument;
      }
      threads_ = *v;
    }
    return Error::Ok;
  }
  Error get_option(BackendOptionContext&, Span<BackendOption>& opts) override {
    for (BackendOption& o : opts) {
      if (std::strcmp(o.key, "threads") == 0) {
        o.value = threads_;
      }
    }
    return Error::Ok;
  }

 private:
  int threads_ = 1;
};

// Index of a backend name in the registry, or -1.
long index_of(const char* name) {
  for (size_t i = 0; i < get_num_registered_backends(); ++i) {
    Result<const char*> n = get_backend_name(i);
    if (n.ok() && std::strcmp(*n, name) == 0) {
      return static_cast<long>(i);
    }
  }
  return -1;
}

}  // namespace

TEST(BackendRegistryTest, RegisterAndLookUp) {
  static TestBackend impl;
  const size_t before = get_num_registered_backends();
  ASSERT_EQ(register_backend(Backend{"RegistryTestBackendA", &impl}), Error::Ok);
  EXPECT_EQ(get_num_registered_backends(), before + 1);
  EXPECT_EQ(get_backend_class("RegistryTestBackendA"), &impl);
  EXPECT_TRUE(get_backend_class("RegistryTestBackendA")->is_available());
  const long idx = index_of("RegistryTestBackendA");
  ASSERT_GE(idx, 0);
  EXPECT_STREQ(*get_backend_name(static_cast<size_t>(idx)), "RegistryTestBackendA");
}

TEST(BackendRegistryTest, LookupIsExactAndCaseSensitive) {
  static TestBackend impl;
  ASSERT_EQ(register_backend(Backend{"RegistryTestBackendCase", &impl}), Error::Ok);
  EXPECT_EQ(get_backend_class("registrytestbackendcase"), nullptr);
  EXPECT_EQ(get_backend_class("RegistryTestBackendCas"), nullptr);
  EXPECT_EQ(get_backend_class("RegistryTestBackendCase "), nullptr);
  EXPECT_EQ(get_backend_class(""), nullptr);
  EXPECT_EQ(get_backend_class(nullptr), nullptr);
}

TEST(BackendRegistryTest, NameOutOfRangeIsInvalidArgument) {
  EXPECT_EQ(get_backend_name(get_num_registered_backends()).error(), Error::InvalidArgument);
  EXPECT_EQ(get_backend_name(static_cast<size_t>(-1)).error(), Error::InvalidArgument);
}

TEST(BackendRegistryTest, DuplicateNameIsAnErrorNotAnAbort) {
  static TestBackend first;
  static TestBackend second;
  ASSERT_EQ(register_backend(Backend{"RegistryTestBackendDup", &first}), Error::Ok);
  const size_t before = get_num_registered_backends();
  // Same name from a different string object.
  const std::string same_name = "RegistryTestBackendDup";
  EXPECT_EQ(register_backend(Backend{same_name.c_str(), &second}), Error::InvalidArgument);
  EXPECT_EQ(register_backend(Backend{"RegistryTestBackendDup", &first}), Error::InvalidArgument);
  EXPECT_EQ(get_num_registered_backends(), before);
  EXPECT_EQ(get_backend_class("RegistryTestBackendDup"), &first);
}

TEST(BackendRegistryTest, NullNameOrBackendIsInvalidArgument) {
  static TestBackend impl;
  const size_t before = get_num_registered_backends();
  EXPECT_EQ(register_backend(Backend{nullptr, &impl}), Error::InvalidArgument);
  EXPECT_EQ(register_backend(Backend{"RegistryTestBackendNull", nullptr}), Error::InvalidArgument);
  EXPECT_EQ(get_num_registered_backends(), before);
}

TEST(BackendRegistryTest, GlobalOptionsReachTheBackend) {
  static OptionBackend impl;
  ASSERT_EQ(register_backend(Backend{"RegistryTestOptionBackend", &impl}), Error::Ok);

  BackendOptions<2> set;
  ASSERT_EQ(set.set_option("threads", 4), Error::Ok);
  EXPECT_EQ(executorch::runtime::set_option("RegistryTestOptionBackend", set.view()), Error::Ok);

  BackendOptions<1> bad;
  ASSERT_EQ(bad.set_option("threads", true), Error::Ok);
  EXPECT_EQ(executorch::runtime::set_option("RegistryTestOptionBackend", bad.view()),
            Error::InvalidArgument);

  BackendOptions<1> get;
  ASSERT_EQ(get.set_option("threads", 0), Error::Ok);
  EXPECT_EQ(executorch::runtime::get_option("RegistryTestOptionBackend", get.view()), Error::Ok);
  int threads = 0;
  EXPECT_EQ(get.get_option("threads", threads), Error::Ok);
  EXPECT_EQ(threads, 4);

  EXPECT_EQ(executorch::runtime::set_option("NoSuchBackend", set.view()), Error::NotFound);
  EXPECT_EQ(executorch::runtime::get_option("NoSuchBackend", get.view()), Error::NotFound);
}

TEST(BackendRegistryTest, DefaultOptionHooksAcceptEverything) {
  static TestBackend impl;
  ASSERT_EQ(register_backend(Backend{"RegistryTestDefaultOptions", &impl}), Error::Ok);
  BackendOptions<1> opts;
  ASSERT_EQ(opts.set_option("anything", "text"), Error::Ok);
  EXPECT_EQ(executorch::runtime::set_option("RegistryTestDefaultOptions", opts.view()), Error::Ok);
  EXPECT_EQ(executorch::runtime::get_option("RegistryTestDefaultOptions", opts.view()), Error::Ok);
}

TEST(BackendOptionsTest, SetGetReplaceAndCapacity) {
  BackendOptions<3> opts;
  EXPECT_EQ(opts.set_option("flag", true), Error::Ok);
  EXPECT_EQ(opts.set_option("count", 7), Error::Ok);
  EXPECT_EQ(opts.set_option("mode", "fast"), Error::Ok);
  EXPECT_EQ(opts.set_option("extra", 1), Error::InvalidArgument);
  EXPECT_EQ(opts.set_option("count", 9), Error::Ok);  // replaces, no new slot
  EXPECT_EQ(opts.view().size(), 3u);

  bool flag = false;
  int count = 0;
  const char* mode = nullptr;
  EXPECT_EQ(opts.get_option("flag", flag), Error::Ok);
  EXPECT_EQ(opts.get_option("count", count), Error::Ok);
  EXPECT_EQ(opts.get_option("mode", mode), Error::Ok);
  EXPECT_TRUE(flag);
  EXPECT_EQ(count, 9);
  EXPECT_STREQ(mode, "fast");
  EXPECT_EQ(opts.get_option("flag", count), Error::InvalidArgument);
  EXPECT_EQ(opts.get_option("count", mode), Error::InvalidArgument);
  EXPECT_EQ(opts.get_option("missing", count), Error::NotFound);

  BackendOptions<3> copy = opts;
  EXPECT_EQ(copy.get_option("count", count), Error::Ok);
  EXPECT_EQ(count, 9);
}

TEST(BackendOptionsTest, LongValuesAndKeysAreTruncated) {
  std::string long_value(1000, 'x');
  BackendOptions<1> opts;
  EXPECT_EQ(opts.set_option("v", long_value.c_str()), Error::Ok);
  const char* v = nullptr;
  ASSERT_EQ(opts.get_option("v", v), Error::Ok);
  EXPECT_EQ(std::strlen(v), executorch::runtime::kMaxOptionValueLength - 1);

  std::string long_key(200, 'k');
  BackendOption o(long_key.c_str(), 3);
  EXPECT_EQ(std::strlen(o.key), executorch::runtime::kMaxOptionKeyLength - 1);
}

TEST(LoadBackendOptionsMapTest, SetGetReplaceAndLimits) {
  BackendOptions<2> a;
  ASSERT_EQ(a.set_option("threads", 2), Error::Ok);
  BackendOptions<2> b;
  ASSERT_EQ(b.set_option("mode", "x"), Error::Ok);
  ASSERT_EQ(b.set_option("flag", false), Error::Ok);

  LoadBackendOptionsMap map;
  EXPECT_EQ(map.size(), 0u);
  EXPECT_FALSE(map.has_options("A"));
  EXPECT_EQ(map.get_options("A").size(), 0u);
  EXPECT_EQ(map.set_options("A", a.view()), Error::Ok);
  EXPECT_EQ(map.set_options("B", a.view()), Error::Ok);
  EXPECT_EQ(map.set_options("B", b.view()), Error::Ok);  // replaces
  EXPECT_EQ(map.size(), 2u);
  EXPECT_EQ(map.get_options("B").size(), 2u);
  EXPECT_TRUE(map.has_options("A"));
  EXPECT_FALSE(map.has_options(nullptr));
  EXPECT_STREQ(map.entry_at(1).backend_id, "B");
  EXPECT_EQ(map.entry_at(1).options.size(), 2u);

  EXPECT_EQ(map.set_options(nullptr, a.view()), Error::InvalidArgument);
  EXPECT_EQ(map.set_options("", a.view()), Error::InvalidArgument);
  std::string long_id(64, 'i');
  EXPECT_EQ(map.set_options(long_id.c_str(), a.view()), Error::InvalidArgument);
  long_id.pop_back();
  EXPECT_EQ(map.set_options(long_id.c_str(), a.view()), Error::Ok);

  std::vector<std::string> ids;
  for (int i = 0; i < 10; ++i) {
    ids.push_back("id" + std::to_string(i));
  }
  size_t ok = 0;
  for (const auto& id : ids) {
    if (map.set_options(id.c_str(), a.view()) == Error::Ok) {
      ++ok;
    }
  }
  EXPECT_EQ(map.size(), 8u);  // at most 8 backends
  EXPECT_EQ(ok, 5u);
}

TEST(BackendContextTest, InitContextRuntimeSpecs) {
  BackendOptions<3> opts;
  ASSERT_EQ(opts.set_option("flag", true), Error::Ok);
  ASSERT_EQ(opts.set_option("n", 5), Error::Ok);
  ASSERT_EQ(opts.set_option("s", "str"), Error::Ok);
  Span<BackendOption> view = opts.view();
  BackendInitContext ctx(nullptr, nullptr, "forward", nullptr,
                         Span<const BackendOption>(view.data(), view.size()));
  EXPECT_STREQ(ctx.get_method_name(), "forward");
  EXPECT_EQ(ctx.get_runtime_allocator(), nullptr);
  EXPECT_EQ(ctx.event_tracer(), nullptr);
  EXPECT_EQ(ctx.get_named_data_map(), nullptr);
  EXPECT_EQ(ctx.runtime_specs().size(), 3u);
  EXPECT_EQ(*ctx.get_runtime_spec<bool>("flag"), true);
  EXPECT_EQ(*ctx.get_runtime_spec<int>("n"), 5);
  EXPECT_STREQ(*ctx.get_runtime_spec<const char*>("s"), "str");
  EXPECT_EQ(ctx.get_runtime_spec<int>("flag").error(), Error::InvalidArgument);
  EXPECT_EQ(ctx.get_runtime_spec<bool>("missing").error(), Error::NotFound);
}

TEST(BackendContextTest, ExecutionContextWithoutAllocator) {
  BackendExecutionContext ctx(nullptr, nullptr, "forward");
  EXPECT_EQ(ctx.allocate(16), nullptr);
  EXPECT_EQ(ctx.get_temp_allocator(), nullptr);
  EXPECT_STREQ(ctx.get_method_name(), "forward");
}

TEST(BackendRegistryTest, TorchExecutorAliases) {
  static TestBackend impl;
  torch::executor::Backend backend{"RegistryTestTorchAlias", &impl};
  ASSERT_EQ(torch::executor::register_backend(backend), Error::Ok);
  torch::executor::PyTorchBackendInterface* found =
      torch::executor::get_backend_class("RegistryTestTorchAlias");
  EXPECT_EQ(found, &impl);
  torch::executor::CompileSpec spec{"key", torch::executor::SizedBuffer{nullptr, 0}};
  EXPECT_STREQ(spec.key, "key");
}

// Filling the table changes it for the rest of the process: child process.
namespace {

int backend_capacity_child() {
  static TestBackend impl;
  // The registry keeps pointers into the names until the child exits: a static holds them, so
  // they stay reachable for LeakSanitizer's exit-time scan whatever the optimization level.
  static std::vector<std::string>* const names = new std::vector<std::string>();
  names->reserve(1000);
  Error last = Error::Ok;
  for (int i = 0; last == Error::Ok && i < 1000; ++i) {
    names->push_back("RegistryFillBackend" + std::to_string(i));
    last = register_backend(Backend{names->back().c_str(), &impl});
  }
  const size_t n = get_num_registered_backends();
  std::fprintf(stderr, "backend capacity=%zu\n", n);
  if (last != Error::Internal)
    return 2;
  if (n < 64)
    return 3;
  if (get_backend_class(names->back().c_str()) != nullptr)
    return 4;
  if (get_backend_class("RegistryFillBackend0") != &impl)
    return 5;
  // A duplicate is still a duplicate when full.
  if (register_backend(Backend{"RegistryFillBackend0", &impl}) != Error::InvalidArgument) {
    return 6;
  }
  return 0;
}

}  // namespace

TEST(BackendRegistryDeathTest, CapacityLimitIsAnError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(backend_capacity_child()), ::testing::ExitedWithCode(0),
              "backend capacity=");
}
