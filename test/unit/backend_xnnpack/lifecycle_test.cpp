// Loading and unloading a delegated method many times gives back everything it took (the
// sanitizer tree, `make check-sanitize`, runs this group with LeakSanitizer on), and every
// load computes the same answer.
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>

#include "../common/zoo_fixture.h"

using executorch::extension::FileDataLoader;
using executorch::extension::MallocMemoryAllocator;
using executorch::runtime::Error;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Program;
using executorch::runtime::Span;

namespace {

TEST(XnnpackLifecycle, LoadExecuteUnloadManyTimes) {
  auto loader = FileDataLoader::from((test::zoo_dir() + "/mlp_xnnpack.pte").c_str());
  ASSERT_TRUE(loader.ok());
  auto program = Program::load(&loader.get());
  ASSERT_TRUE(program.ok());
  auto meta = program->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  test::ZooValue input;
  std::string err;
  test::Json in_desc;
  ASSERT_TRUE(test::parse_json(
      R"({"kind": "tensor", "file": "data/mlp_xnnpack/forward.call0.in0.npy"})", &in_desc));
  ASSERT_TRUE(test::make_zoo_value(in_desc, &input, &err)) << err;
  test::Npy golden;
  ASSERT_TRUE(
      test::read_npy(test::zoo_dir() + "/data/mlp_xnnpack/forward.call0.out0.npy", &golden, &err));

  std::vector<float> first;
  for (int round = 0; round < 1000; ++round) {
    std::vector<std::vector<uint8_t>> buffers;
    std::vector<Span<uint8_t>> spans;
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      buffers.emplace_back(static_cast<size_t>(meta->memory_planned_buffer_size(i).get()));
    }
    for (auto& b : buffers)
      spans.emplace_back(b.data(), b.size());
    HierarchicalAllocator planned({spans.data(), spans.size()});
    MallocMemoryAllocator method_alloc, temp_alloc;
    MemoryManager mm(&method_alloc, &planned, &temp_alloc);
    auto method = program->load_method("forward", &mm);
    ASSERT_TRUE(method.ok()) << "round " << round;
    ASSERT_EQ(method->set_input(input.value, 0), Error::Ok);
    ASSERT_EQ(method->execute(), Error::Ok) << "round " << round;
    const auto& out = method->get_output(0).toTensor();
    const float* y = out.const_data_ptr<float>();
    std::vector<float> got(y, y + out.numel());
    if (round == 0) {
      first = got;
      ASSERT_EQ(golden.data.size(), got.size() * sizeof(float));
      const float* want = reinterpret_cast<const float*>(golden.data.data());
      for (size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-5f) << i;
    } else {
      ASSERT_EQ(got, first) << "round " << round;
    }
  }
}

}  // namespace
