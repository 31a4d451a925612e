// A bundled-program runner in the style of upstream's
// examples/devtools/example_runner (plain argv instead of gflags):
//   bundled_runner model.bpte [testset_idx]
// Finds the program inside the .bpte, runs its first method on the bundled
// inputs of one test case and verifies the outputs against the bundled ones.
#include <executorch/devtools/bundled_program/bundled_program.h>
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/runtime.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

static uint8_t method_allocator_pool[4 * 1024U * 1024U];  // 4 MB

using executorch::extension::BufferDataLoader;
using executorch::runtime::Error;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;

static std::vector<uint8_t> load_file_or_die(const char* path) {
  std::ifstream f(path, std::ios::binary);
  ET_CHECK_MSG(f.good(), "cannot open %s", path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

int main(int argc, char** argv) {
  executorch::runtime::runtime_init();
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s model.bpte [testset_idx]\n", argv[0]);
    return 2;
  }
  const size_t testset_idx = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 0;
  std::vector<uint8_t> file_data = load_file_or_die(argv[1]);
  ET_CHECK_MSG(executorch::bundled_program::is_bundled_program(
                   reinterpret_cast<void*>(file_data.data()), file_data.size()),
               "%s is not a bundled program", argv[1]);

  const void* program_data;
  size_t program_data_len;
  Error status = executorch::bundled_program::get_program_data(
      reinterpret_cast<void*>(file_data.data()), file_data.size(), &program_data,
      &program_data_len);
  ET_CHECK_MSG(status == Error::Ok, "get_program_data() failed: 0x%x", (unsigned int)status);

  auto buffer_data_loader = BufferDataLoader(program_data, program_data_len);
  Result<Program> program = Program::load(&buffer_data_loader);
  if (!program.ok()) {
    ET_LOG(Error, "Failed to parse model file %s", argv[1]);
    return 1;
  }
  const char* method_name = nullptr;
  {
    const auto method_name_result = program->get_method_name(0);
    ET_CHECK_MSG(method_name_result.ok(), "Program has no methods");
    method_name = *method_name_result;
  }
  Result<MethodMeta> method_meta = program->method_meta(method_name);
  ET_CHECK_MSG(method_meta.ok(), "Failed to get method_meta for %s", method_name);

  MemoryAllocator method_allocator{
      MemoryAllocator(sizeof(method_allocator_pool), method_allocator_pool)};
  std::vector<std::unique_ptr<uint8_t[]>> planned_buffers;
  std::vector<Span<uint8_t>> planned_spans;
  for (size_t id = 0; id < method_meta->num_memory_planned_buffers(); ++id) {
    size_t buffer_size = static_cast<size_t>(method_meta->memory_planned_buffer_size(id).get());
    planned_buffers.push_back(std::make_unique<uint8_t[]>(buffer_size));
    planned_spans.push_back({planned_buffers.back().get(), buffer_size});
  }
  HierarchicalAllocator planned_memory({planned_spans.data(), planned_spans.size()});
  MemoryManager memory_manager(&method_allocator, &planned_memory);
  Result<Method> method = program->load_method(method_name, &memory_manager);
  ET_CHECK_MSG(method.ok(), "Loading of method %s failed with status 0x%" PRIx32, method_name,
               static_cast<uint32_t>(method.error()));

  status = executorch::bundled_program::load_bundled_input(*method, file_data.data(), testset_idx);
  ET_CHECK_MSG(status == Error::Ok, "LoadBundledInput failed with status 0x%" PRIx32,
               static_cast<uint32_t>(status));
  status = method->execute();
  ET_CHECK_MSG(status == Error::Ok, "Execution of method %s failed with status 0x%" PRIx32,
               method_name, static_cast<uint32_t>(status));

  const executorch::bundled_program::ErrorStats stats =
      executorch::bundled_program::compute_method_output_error_stats(*method, file_data.data(),
                                                                     testset_idx);
  status = executorch::bundled_program::verify_method_outputs(*method, file_data.data(),
                                                              testset_idx, 1e-3, 1e-5);
  std::printf("test case %zu: %s (max abs error %g)\n", testset_idx,
              status == Error::Ok ? "verified" : "mismatch", stats.max_abs_error);
  // The deprecated torch::executor aliases upstream still ships.
  status = torch::executor::bundled_program::VerifyResultWithBundledExpectedOutput(
      *method, file_data.data(), testset_idx, 1e-3, 1e-5);
  return status == Error::Ok ? 0 : 1;
}
