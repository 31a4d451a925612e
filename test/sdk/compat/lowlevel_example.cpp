// Consumer program following the upstream low-level walkthrough
// (running-a-model-cpp-tutorial.md): Program, MethodMeta, planned memory,
// MemoryManager, Method. Run as: lowlevel_example path/to/identity.pte
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/runtime.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::extension::FileDataLoader;
using executorch::extension::MallocMemoryAllocator;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s model.pte\n", argv[0]);
    return 2;
  }
  executorch::runtime::runtime_init();

  Result<FileDataLoader> loader = FileDataLoader::from(argv[1]);
  if (!loader.ok()) {
    ET_LOG(Error, "cannot open %s", argv[1]);
    return 1;
  }
  Result<Program> program = Program::load(&loader.get());
  if (!program.ok()) {
    ET_LOG(Error, "cannot load program: 0x%" PRIx32, static_cast<uint32_t>(program.error()));
    return 1;
  }
  std::printf("%zu method(s)\n", program->num_methods());

  const char* method_name = "forward";
  Result<MethodMeta> method_meta = program->method_meta(method_name);
  if (!method_meta.ok()) {
    return 1;
  }

  MallocMemoryAllocator method_allocator;
  std::vector<std::unique_ptr<uint8_t[]>> planned_buffers;
  std::vector<Span<uint8_t>> planned_spans;
  for (size_t id = 0; id < method_meta->num_memory_planned_buffers(); ++id) {
    const size_t size = static_cast<size_t>(method_meta->memory_planned_buffer_size(id).get());
    planned_buffers.push_back(std::make_unique<uint8_t[]>(size));
    planned_spans.push_back({planned_buffers.back().get(), size});
  }
  HierarchicalAllocator planned_memory({planned_spans.data(), planned_spans.size()});
  MemoryManager memory_manager(&method_allocator, &planned_memory);

  Result<Method> method = program->load_method(method_name, &memory_manager);
  if (!method.ok()) {
    ET_LOG(Error, "cannot load %s: 0x%" PRIx32, method_name, static_cast<uint32_t>(method.error()));
    return 1;
  }

  // Inputs built with TensorImpl directly.
  float x_data[6] = {1, 2, 3, 4, 5, 6};
  TensorImpl::SizesType x_sizes[2] = {2, 3};
  TensorImpl::DimOrderType x_dim_order[2] = {0, 1};
  TensorImpl x_impl(executorch::aten::ScalarType::Float, 2, x_sizes, x_data, x_dim_order);
  float y_data[4] = {9, 8, 7, 6};
  TensorImpl::SizesType y_sizes[1] = {4};
  TensorImpl y_impl(executorch::aten::ScalarType::Float, 1, y_sizes, y_data);

  if (method->inputs_size() != 2 || method->set_input(EValue(Tensor(&x_impl)), 0) != Error::Ok ||
      method->set_input(EValue(Tensor(&y_impl)), 1) != Error::Ok) {
    ET_LOG(Error, "cannot set inputs");
    return 1;
  }
  if (method->execute() != Error::Ok) {
    ET_LOG(Error, "execute failed");
    return 1;
  }
  const EValue& out = method->get_output(0);
  if (!out.isTensor() || out.toTensor().const_data_ptr<float>()[5] != 6.0f) {
    ET_LOG(Error, "unexpected output");
    return 1;
  }

  // Redirecting an output is refused when the output is not user-settable;
  // the call itself is part of the documented API.
  float sink[6];
  const Error redirect = method->set_output_data_ptr(sink, sizeof(sink), 0);
  std::printf("set_output_data_ptr -> 0x%x\n", static_cast<unsigned>(redirect));

  std::printf("lowlevel_example: ok\n");
  return 0;
}
