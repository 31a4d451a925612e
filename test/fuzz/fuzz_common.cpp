// Shared pieces of the fuzz targets (see fuzz_common.h).
#include "fuzz_common.h"

#include <cstdlib>
#include <cstring>

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/platform/platform.h>

namespace fuzz {

using executorch::aten::ScalarType;
using executorch::aten::TensorImpl;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;
using executorch::runtime::Tag;

namespace {

void drop_log(et_timestamp_t, et_pal_log_level_t, const char*, const char*, size_t, const char*,
              size_t) {}

// A pool allocated once per process and reused by every input (a fresh 16 MiB per run would
// dominate the time of small programs under ASan).
uint8_t* pool(size_t index, size_t bytes) {
  static std::vector<std::unique_ptr<uint8_t[]>> pools;
  while (pools.size() <= index) {
    pools.emplace_back();
  }
  if (!pools[index]) {
    pools[index].reset(new uint8_t[bytes]);
  }
  return pools[index].get();
}

template <typename T>
void fill_as(void* data, size_t numel, bool integral) {
  T* out = static_cast<T*>(data);
  for (size_t i = 0; i < numel; ++i) {
    const int k = static_cast<int>(i % 7);
    out[i] = integral ? static_cast<T>(k % 3) : static_cast<T>(static_cast<float>(k - 3) * 0.625f);
  }
}

// Small deterministic values: integers in [0, 3) (valid as indices into most tensors),
// floats in [-2, 2).
void fill(ScalarType dtype, void* data, size_t numel) {
  switch (dtype) {
    case ScalarType::Float:
      fill_as<float>(data, numel, false);
      break;
    case ScalarType::Double:
      fill_as<double>(data, numel, false);
      break;
    case ScalarType::Half:
      fill_as<executorch::aten::Half>(data, numel, false);
      break;
    case ScalarType::BFloat16:
      fill_as<executorch::aten::BFloat16>(data, numel, false);
      break;
    case ScalarType::Byte:
      fill_as<uint8_t>(data, numel, true);
      break;
    case ScalarType::Char:
      fill_as<int8_t>(data, numel, true);
      break;
    case ScalarType::Short:
      fill_as<int16_t>(data, numel, true);
      break;
    case ScalarType::Int:
      fill_as<int32_t>(data, numel, true);
      break;
    case ScalarType::Long:
      fill_as<int64_t>(data, numel, true);
      break;
    case ScalarType::UInt16:
      fill_as<uint16_t>(data, numel, true);
      break;
    case ScalarType::UInt32:
      fill_as<uint32_t>(data, numel, true);
      break;
    case ScalarType::UInt64:
      fill_as<uint64_t>(data, numel, true);
      break;
    case ScalarType::Bool: {
      bool* out = static_cast<bool*>(data);
      for (size_t i = 0; i < numel; ++i)
        out[i] = (i % 3) == 1;
      break;
    }
    default:
      break;  // zero bytes (already cleared)
  }
}

}  // namespace

void quiet_logs() {
  static const bool once = [] {
    const char* verbose = std::getenv("FUZZ_VERBOSE");
    if (verbose != nullptr && std::strcmp(verbose, "0") != 0) {
      return true;
    }
    return executorch::runtime::register_pal(
        executorch::runtime::PalImpl::create(drop_log, __FILE__));
  }();
  (void)once;
}

bool tracing() {
  static const bool on = [] {
    const char* v = std::getenv("ET_FUZZ_TRACE");
    return v != nullptr && std::strcmp(v, "0") != 0;
  }();
  return on;
}

AlignedInput::AlignedInput(const uint8_t* data, size_t size)
    : storage_(size / sizeof(std::max_align_t) + 1), size_(size) {
  if (size > 0) {
    std::memcpy(storage_.data(), data, size);
  }
}

std::unique_ptr<LoadedMethod> load_method(const Program& program, const char* name,
                                          const executorch::runtime::NamedDataMap* data_map) {
  auto l = std::make_unique<LoadedMethod>();
  Result<MethodMeta> meta = program.method_meta(name);
  if (!meta.ok()) {
    return l;
  }
  size_t total = 0;
  for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
    Result<int64_t> size = meta->memory_planned_buffer_size(i);
    if (!size.ok() || size.get() < 0 ||
        static_cast<uint64_t>(size.get()) > kMaxPlannedBytes - total) {
      return l;
    }
    total += static_cast<size_t>(size.get());
    l->planned.emplace_back(static_cast<size_t>(size.get()));
  }
  for (auto& b : l->planned) {
    l->planned_spans.emplace_back(b.data(), b.size());
  }
  l->method_allocator = std::make_unique<MemoryAllocator>(static_cast<uint32_t>(kMethodPoolBytes),
                                                          pool(0, kMethodPoolBytes));
  l->temp_allocator = std::make_unique<MemoryAllocator>(static_cast<uint32_t>(kTempPoolBytes),
                                                        pool(1, kTempPoolBytes));
  l->planned_memory = std::make_unique<HierarchicalAllocator>(
      Span<Span<uint8_t>>(l->planned_spans.data(), l->planned_spans.size()));
  l->memory_manager = std::make_unique<MemoryManager>(
      l->method_allocator.get(), l->planned_memory.get(), l->temp_allocator.get());
  Result<Method> m = program.load_method(name, l->memory_manager.get(), nullptr, data_map);
  if (m.ok()) {
    l->method = std::make_unique<Method>(std::move(m.get()));
  }
  return l;
}

void walk_method_meta(const MethodMeta& meta) {
  volatile size_t sink = 0;
  auto walk_info = [&](const Result<executorch::runtime::TensorInfo>& info) {
    if (!info.ok())
      return;
    sink = sink + info->sizes().size() + info->dim_order().size() + info->nbytes() +
           info->name().size() + static_cast<size_t>(info->scalar_type()) +
           info->is_memory_planned();
  };
  for (size_t i = 0; i <= meta.num_inputs(); ++i) {
    (void)meta.input_tag(i);
    walk_info(meta.input_tensor_meta(i));
  }
  for (size_t i = 0; i <= meta.num_outputs(); ++i) {
    (void)meta.output_tag(i);
    walk_info(meta.output_tensor_meta(i));
  }
  for (size_t i = 0; i <= meta.num_attributes(); ++i) {
    walk_info(meta.attribute_tensor_meta(i));
  }
  for (size_t i = 0; i <= meta.num_memory_planned_buffers(); ++i) {
    (void)meta.memory_planned_buffer_size(i);
    (void)meta.memory_planned_buffer_device(i);
  }
  for (size_t i = 0; i <= meta.num_backends(); ++i) {
    Result<const char*> backend = meta.get_backend_name(i);
    if (backend.ok()) {
      sink = sink + meta.uses_backend(backend.get());
    }
  }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // experimental, still read
  sink = sink + meta.num_instructions();
#pragma GCC diagnostic pop
}

bool SynthesizedInputs::set(Method& method) {
  const MethodMeta meta = method.method_meta();
  const size_t n = method.inputs_size();
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    Result<Tag> tag = meta.input_tag(i);
    if (!tag.ok()) {
      return false;
    }
    if (tag.get() != Tag::Tensor) {
      // Non-tensor inputs were fixed at export: give back the value the program holds
      // (get_input is deprecated but is the one way to read it; execute needs every input set).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
      EValue current = method.get_input(i);
#pragma GCC diagnostic pop
      if (method.set_input(current, i) != Error::Ok) {
        return false;
      }
      continue;
    }
    Result<executorch::runtime::TensorInfo> info = meta.input_tensor_meta(i);
    if (!info.ok() || info->nbytes() > kMaxInputBytes - total) {
      return false;
    }
    total += info->nbytes();
    sizes_.emplace_back(info->sizes().begin(), info->sizes().end());
    dim_orders_.emplace_back(info->dim_order().begin(), info->dim_order().end());
    buffers_.emplace_back(info->nbytes() / sizeof(std::max_align_t) + 1);
    void* data = buffers_.back().data();
    const size_t element = executorch::runtime::isValid(info->scalar_type())
                               ? executorch::runtime::elementSize(info->scalar_type())
                               : 0;
    if (element != 0) {
      fill(info->scalar_type(), data, info->nbytes() / element);
    }
    std::vector<int32_t>& sizes = sizes_.back();
    std::vector<uint8_t>& order = dim_orders_.back();
    impls_.push_back(std::make_unique<TensorImpl>(
        info->scalar_type(), static_cast<ssize_t>(sizes.size()), sizes.data(), data,
        order.size() == sizes.size() ? order.data() : nullptr));
    if (method.set_input(EValue(executorch::aten::Tensor(impls_.back().get())), i) != Error::Ok) {
      return false;
    }
  }
  return true;
}

bool SynthesizedInputs::set_unplanned_outputs(Method& method) {
  const MethodMeta meta = method.method_meta();
  size_t total = 0;
  for (size_t i = 0; i < method.outputs_size(); ++i) {
    Result<Tag> tag = meta.output_tag(i);
    if (!tag.ok() || tag.get() != Tag::Tensor) {
      continue;
    }
    Result<executorch::runtime::TensorInfo> info = meta.output_tensor_meta(i);
    if (!info.ok() || info->is_memory_planned()) {
      continue;
    }
    if (info->nbytes() > kMaxInputBytes - total) {
      return false;
    }
    total += info->nbytes();
    buffers_.emplace_back(info->nbytes() / sizeof(std::max_align_t) + 1);
    if (method.set_output_data_ptr(buffers_.back().data(), info->nbytes(), i) != Error::Ok) {
      return false;
    }
  }
  return true;
}

}  // namespace fuzz
