// An executor-runner-style program (after upstream's
// examples/portable/executor_runner, with plain argv instead of gflags):
//   executor_runner model.pte [data.ptd] [iterations]
// Loads the program, feeds every input with ones, runs the first method and
// prints the outputs.
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/evalue_util/print_evalue.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/extension/runner_util/inputs.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/platform.h>
#include <executorch/runtime/platform/runtime.h>

#include <cinttypes>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::extension::BufferCleanup;
using executorch::extension::BufferDataLoader;
using executorch::extension::FileDataLoader;
using executorch::extension::FlatTensorDataMap;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::EventTracer;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;

static uint8_t method_allocator_pool[4 * 1024U * 1024U];
static uint8_t temp_allocator_pool[1024U * 1024U];

int main(int argc, char** argv) {
  executorch::runtime::runtime_init();
  if (argc < 2) {
    ET_LOG(Error, "usage: %s model.pte [data.ptd] [iterations]", argv[0]);
    return 2;
  }
  const char* model_path = argv[1];
  const char* data_path = argc > 2 && argv[2][0] != '\0' ? argv[2] : nullptr;
  const int iterations = argc > 3 ? std::atoi(argv[3]) : 1;

  Result<FileDataLoader> loader = FileDataLoader::from(model_path);
  ET_CHECK_MSG(loader.ok(), "FileDataLoader::from() failed: 0x%" PRIx32,
               static_cast<uint32_t>(loader.error()));

  std::optional<FileDataLoader> data_loader;
  std::optional<FlatTensorDataMap> data_map;
  if (data_path != nullptr) {
    Result<FileDataLoader> dl = FileDataLoader::from(data_path);
    ET_CHECK_MSG(dl.ok(), "cannot open %s", data_path);
    data_loader.emplace(std::move(dl.get()));
    Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&*data_loader);
    ET_CHECK_MSG(map.ok(), "FlatTensorDataMap::load() failed: 0x%" PRIx32,
                 static_cast<uint32_t>(map.error()));
    ET_LOG(Info, "external data: %" PRIu32 " key(s)", map->get_num_keys().get());
    data_map.emplace(std::move(map.get()));
  }

  Result<Program> program = Program::load(&loader.get());
  if (!program.ok()) {
    ET_LOG(Error, "Failed to parse model file %s", model_path);
    return 1;
  }
  ET_LOG(Info, "Model file %s is loaded.", model_path);

  const char* method_name = nullptr;
  {
    const auto name = program->get_method_name(0);
    ET_CHECK_MSG(name.ok(), "Program has no methods");
    method_name = *name;
  }
  ET_LOG(Info, "Using method %s", method_name);

  Result<MethodMeta> method_meta = program->method_meta(method_name);
  ET_CHECK_MSG(method_meta.ok(), "Failed to get method_meta for %s: 0x%" PRIx32, method_name,
               static_cast<uint32_t>(method_meta.error()));

  MemoryAllocator method_allocator{
      MemoryAllocator(sizeof(method_allocator_pool), method_allocator_pool)};
  MemoryAllocator temp_allocator{MemoryAllocator(sizeof(temp_allocator_pool), temp_allocator_pool)};

  std::vector<std::unique_ptr<uint8_t[]>> planned_buffers;
  std::vector<Span<uint8_t>> planned_spans;
  const size_t num_planned = method_meta->num_memory_planned_buffers();
  for (size_t id = 0; id < num_planned; ++id) {
    const size_t buffer_size =
        static_cast<size_t>(method_meta->memory_planned_buffer_size(id).get());
    ET_LOG(Info, "Setting up planned buffer %zu, size %zu.", id, buffer_size);
    planned_buffers.push_back(std::make_unique<uint8_t[]>(buffer_size));
    planned_spans.push_back({planned_buffers.back().get(), buffer_size});
  }
  HierarchicalAllocator planned_memory({planned_spans.data(), planned_spans.size()});
  MemoryManager memory_manager(&method_allocator, &planned_memory, &temp_allocator);

  EventTracer* event_tracer = nullptr;
  Result<Method> method = program->load_method(method_name, &memory_manager, event_tracer,
                                               data_map ? &*data_map : nullptr);
  ET_CHECK_MSG(method.ok(), "Loading of method %s failed with status 0x%" PRIx32, method_name,
               static_cast<uint32_t>(method.error()));
  ET_LOG(Info, "Method loaded.");

  auto inputs = executorch::extension::prepare_input_tensors(*method);
  ET_CHECK_MSG(inputs.ok(), "Could not prepare inputs: 0x%" PRIx32,
               static_cast<uint32_t>(inputs.error()));

  const et_timestamp_t before = executorch::runtime::pal_current_ticks();
  Error status = Error::Ok;
  for (int i = 0; i < iterations && status == Error::Ok; ++i) {
    status = method->execute();
  }
  const et_timestamp_t after = executorch::runtime::pal_current_ticks();
  const et_tick_ratio_t ratio = et_pal_ticks_to_ns_multiplier();
  const double elapsed_ms = static_cast<double>(after - before) *
                            static_cast<double>(ratio.numerator) /
                            static_cast<double>(ratio.denominator) / 1e6;
  ET_CHECK_MSG(status == Error::Ok, "Execution of method %s failed: 0x%" PRIx32, method_name,
               static_cast<uint32_t>(status));
  ET_LOG(Info, "%d iteration(s) in %f ms", iterations, elapsed_ms);

  std::vector<EValue> outputs(method->outputs_size());
  status = method->get_outputs(outputs.data(), outputs.size());
  ET_CHECK(status == Error::Ok);
  std::cout << executorch::extension::evalue_edge_items(100);
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::cout << "Output " << i << ": " << outputs[i] << std::endl;
    if (outputs[i].isTensor()) {
      const Tensor& t = outputs[i].toTensor();
      if (t.scalar_type() == ScalarType::Float && t.numel() > 0) {
        std::cout << "  first value " << t.const_data_ptr<float>()[0] << ", " << t.nbytes()
                  << " bytes\n";
      }
    }
  }

  // A BufferDataLoader over bytes in memory works the same way.
  static const uint8_t not_a_program[16] = {};
  BufferDataLoader buffer_loader(not_a_program, sizeof(not_a_program));
  Result<Program> bad = Program::load(&buffer_loader);
  ET_CHECK_MSG(!bad.ok(), "a zero buffer must not load as a program");

  std::cout << "executor_runner: ok" << std::endl;
  return 0;
}
