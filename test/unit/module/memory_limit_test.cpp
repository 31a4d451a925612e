// Module's cap on memory sized from the program: crafted programs declaring 2^62-byte
// planned buffers or unplanned outputs are refused with a typed error naming the size and the
// limit before anything is allocated; the limit can be raised; an allocation the system
// refuses below the limit is an error too, never an abort.
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/module/memory_limit.h>
#include <executorch/extension/module/module.h>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../method/program_builder.h"
#include "../method/test_support.h"

// Under ASan a request above its maximum allocation size is a fatal report unless the
// allocator may return null; the runtime handles null, which is what these tests check.
extern "C" __attribute__((visibility("default"))) const char* __asan_default_options() {
  return "allocator_may_return_null=1";
}

namespace {

using executorch::extension::BufferDataLoader;
using executorch::extension::Module;
using executorch::runtime::Error;

constexpr int64_t kHuge = int64_t{1} << 62;

// A crafted program and a Module reading it (the bytes outlive the Module).
struct CraftedModule {
  explicit CraftedModule(const test::ProgramBuilder& builder) {
    const std::vector<uint8_t> bytes = builder.finish();
    storage.resize(bytes.size() / sizeof(std::max_align_t) + 1);
    std::memcpy(storage.data(), bytes.data(), bytes.size());
    module =
        std::make_unique<Module>(std::make_unique<BufferDataLoader>(storage.data(), bytes.size()));
  }
  std::vector<std::max_align_t> storage;
  std::unique_ptr<Module> module;
};

// A method with nothing but planned buffers of `sizes`.
test::ProgramBuilder planned_only(std::vector<int64_t> sizes) {
  test::ProgramBuilder b;
  b.buffer_sizes = {0};
  b.buffer_sizes.insert(b.buffer_sizes.end(), sizes.begin(), sizes.end());
  return b;
}

// A method returning one unplanned float tensor of 2^30 x 2^30 elements (2^62 bytes).
test::ProgramBuilder huge_unplanned_output() {
  test::ProgramBuilder b;
  test::TensorSpec t;
  t.sizes = {1 << 30, 1 << 30};
  b.outputs = {b.tensor(t)};
  return b;
}

TEST(ModuleMemoryLimit, DefaultIsHalfOfPhysicalMemory) {
  CraftedModule m(planned_only({16}));
  const uint64_t physical = static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) *
                            static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  EXPECT_EQ(m.module->max_memory(), physical / 2);
  EXPECT_EQ(m.module->load_method("forward"), Error::Ok);
}

TEST(ModuleMemoryLimit, HugePlannedBuffersAreRefusedNamingSizeAndLimit) {
  CraftedModule m(planned_only({kHuge, kHuge}));
  test::clear_logs();
  EXPECT_EQ(m.module->load_method("forward"), Error::MemoryAllocationFailed);
  EXPECT_FALSE(m.module->is_method_loaded("forward"));
  const std::string log = test::logs();
  // The sum of both buffers, the limit, and no allocation attempted.
  EXPECT_NE(log.find("9223372036854775808 bytes"), std::string::npos) << log;
  EXPECT_NE(log.find("memory limit of " + std::to_string(m.module->max_memory()) + " bytes"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("cannot allocate"), std::string::npos) << log;
  // Also refused through execute(), which loads lazily.
  EXPECT_EQ(m.module->forward().error(), Error::MemoryAllocationFailed);
}

TEST(ModuleMemoryLimit, OverflowingSumOfPlannedBuffersIsRefused) {
  CraftedModule m(planned_only({INT64_MAX, INT64_MAX, 2}));
  m.module->set_max_memory(UINT64_MAX);
  test::clear_logs();
  EXPECT_EQ(m.module->load_method("forward"), Error::MemoryAllocationFailed);
  const std::string log = test::logs();
  EXPECT_NE(log.find("more than 2^64 bytes"), std::string::npos) << log;
  EXPECT_EQ(log.find("cannot allocate"), std::string::npos) << log;
}

TEST(ModuleMemoryLimit, SetMaxMemoryMovesTheLimit) {
  CraftedModule m(planned_only({1 << 20, 1 << 10}));
  m.module->set_max_memory((1 << 20) + (1 << 10) - 1);
  EXPECT_EQ(m.module->load_method("forward"), Error::MemoryAllocationFailed);
  m.module->set_max_memory((1 << 20) + (1 << 10));
  EXPECT_EQ(m.module->max_memory(), uint64_t{(1 << 20) + (1 << 10)});
  EXPECT_EQ(m.module->load_method("forward"), Error::Ok);
  EXPECT_TRUE(m.module->is_method_loaded("forward"));
}

TEST(ModuleMemoryLimit, SharedArenasCountAgainstTheLimit) {
  const std::vector<uint8_t> bytes = planned_only({kHuge}).finish();
  std::vector<std::max_align_t> storage(bytes.size() / sizeof(std::max_align_t) + 1);
  std::memcpy(storage.data(), bytes.data(), bytes.size());
  Module module(std::make_unique<BufferDataLoader>(storage.data(), bytes.size()), nullptr, nullptr,
                nullptr, nullptr,
                /*share_memory_arenas=*/true);
  test::clear_logs();
  EXPECT_EQ(module.load_method("forward"), Error::MemoryAllocationFailed);
  EXPECT_EQ(test::logs().find("cannot allocate"), std::string::npos) << test::logs();
}

TEST(ModuleMemoryLimit, HugeUnplannedOutputIsRefusedNamingSizeAndLimit) {
  CraftedModule m(huge_unplanned_output());
  m.module->set_max_memory(1 << 20);
  test::clear_logs();
  EXPECT_EQ(m.module->load_method("forward"), Error::MemoryAllocationFailed);
  const std::string log = test::logs();
  EXPECT_NE(log.find("output 0: 4611686018427387904 bytes"), std::string::npos) << log;
  EXPECT_NE(log.find("memory limit of 1048576 bytes"), std::string::npos) << log;
  EXPECT_FALSE(m.module->is_method_loaded("forward"));
}

TEST(ModuleMemoryLimit, AllocationFailureBelowTheLimitIsAnError) {
  // No machine has 2^62 bytes: with the limit out of the way the allocation itself fails,
  // which must come back as an error, not as an exception or an abort.
  CraftedModule planned(planned_only({kHuge}));
  planned.module->set_max_memory(UINT64_MAX);
  EXPECT_EQ(planned.module->load_method("forward"), Error::MemoryAllocationFailed);

  CraftedModule output(huge_unplanned_output());
  output.module->set_max_memory(UINT64_MAX);
  EXPECT_EQ(output.module->load_method("forward"), Error::MemoryAllocationFailed);
  EXPECT_FALSE(output.module->is_method_loaded("forward"));
}

}  // namespace
