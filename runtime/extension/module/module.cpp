/*
 * Module: lazy program/method loading, planned-memory ownership and the
 * execute/forward conveniences.
 */
#include <executorch/extension/module/module.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <utility>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/runtime.h>

namespace executorch {
namespace extension {
namespace ET_MODULE_NAMESPACE {

using runtime::Error;
using runtime::EValue;
using runtime::FreeableBuffer;
using runtime::Result;
using runtime::TensorLayout;

namespace {

template <typename T>
std::unique_ptr<runtime::DataLoader> boxed(T&& loader) {
  return std::make_unique<std::decay_t<T>>(std::forward<T>(loader));
}

Result<std::unique_ptr<runtime::DataLoader>> open_loader(
    const std::string& path, Module::LoadMode mode) {
  using MlockConfig = MmapDataLoader::MlockConfig;
  MlockConfig mlock = MlockConfig::NoMlock;
  switch (mode) {
    case Module::LoadMode::File: {
      auto loader = FileDataLoader::from(path.c_str());
      if (!loader.ok()) {
        ET_LOG(Error, "Module: cannot open '%s'", path.c_str());
        return loader.error();
      }
      return boxed(std::move(loader.get()));
    }
    case Module::LoadMode::Mmap:
      mlock = MlockConfig::NoMlock;
      break;
    case Module::LoadMode::MmapUseMlock:
      mlock = MlockConfig::UseMlock;
      break;
    case Module::LoadMode::MmapUseMlockIgnoreErrors:
      mlock = MlockConfig::UseMlockIgnoreErrors;
      break;
    case Module::LoadMode::MmapUseMadvise:
      mlock = MlockConfig::UseMadvise;
      break;
    default:
      ET_LOG(Error, "Module: unknown load mode %d", static_cast<int>(mode));
      return Error::InvalidArgument;
  }
  auto loader = MmapDataLoader::from(path.c_str(), mlock);
  if (!loader.ok()) {
    ET_LOG(Error, "Module: cannot map '%s'", path.c_str());
    return loader.error();
  }
  return boxed(std::move(loader.get()));
}

/*
 * Several .ptd maps seen as one. Keys must be unique across the maps; each
 * lookup goes to the map holding the key.
 */
class MergedDataMap final : public NamedDataMap {
 public:
  static Result<std::unique_ptr<NamedDataMap>> create(
      std::vector<const NamedDataMap*> maps) {
    std::unordered_set<std::string> seen;
    for (const NamedDataMap* map : maps) {
      auto count = map->get_num_keys();
      if (!count.ok()) {
        return count.error();
      }
      for (uint32_t i = 0; i < count.get(); ++i) {
        auto key = map->get_key(i);
        if (!key.ok()) {
          return key.error();
        }
        if (!seen.insert(key.get()).second) {
          ET_LOG(
              Error,
              "Module: key '%s' appears in more than one data file",
              key.get());
          return Error::InvalidArgument;
        }
      }
    }
    return std::unique_ptr<NamedDataMap>(new MergedDataMap(std::move(maps)));
  }

  Result<const TensorLayout> get_tensor_layout(
      std::string_view key) const override {
    const NamedDataMap* map = owner(key);
    if (map == nullptr) {
      return Error::NotFound;
    }
    return map->get_tensor_layout(key);
  }

  Result<FreeableBuffer> get_data(std::string_view key) const override {
    const NamedDataMap* map = owner(key);
    if (map == nullptr) {
      return Error::NotFound;
    }
    return map->get_data(key);
  }

  Error load_data_into(
      std::string_view key, void* buffer, size_t size) const override {
    const NamedDataMap* map = owner(key);
    if (map == nullptr) {
      return Error::NotFound;
    }
    return map->load_data_into(key, buffer, size);
  }

  Result<uint32_t> get_num_keys() const override {
    uint64_t total = 0;
    for (const NamedDataMap* map : maps_) {
      auto count = map->get_num_keys();
      if (!count.ok()) {
        return count.error();
      }
      total += count.get();
    }
    if (total > UINT32_MAX) {
      return Error::InvalidArgument;
    }
    return static_cast<uint32_t>(total);
  }

  Result<const char*> get_key(uint32_t index) const override {
    for (const NamedDataMap* map : maps_) {
      auto count = map->get_num_keys();
      if (!count.ok()) {
        return count.error();
      }
      if (index < count.get()) {
        return map->get_key(index);
      }
      index -= count.get();
    }
    return Error::InvalidArgument;
  }

 private:
  explicit MergedDataMap(std::vector<const NamedDataMap*> maps)
      : maps_(std::move(maps)) {}

  const NamedDataMap* owner(std::string_view key) const {
    for (const NamedDataMap* map : maps_) {
      if (map->get_tensor_layout(key).ok()) {
        return map;
      }
    }
    return nullptr;
  }

  std::vector<const NamedDataMap*> maps_;
};

std::unique_ptr<runtime::MemoryAllocator> or_malloc(
    std::unique_ptr<runtime::MemoryAllocator> allocator) {
  if (allocator) {
    return allocator;
  }
  return std::make_unique<MallocMemoryAllocator>();
}

// A zero-filled heap buffer of `size` bytes, or an error instead of an
// exception or abort when the system refuses it.
Error make_buffer(size_t size, const char* what, ZeroedBuffer* out) {
  *out = allocate_zeroed(size);
  if (*out == nullptr) {
    ET_LOG(Error, "Module: cannot allocate %zu bytes of %s", size, what);
    return Error::MemoryAllocationFailed;
  }
  return Error::Ok;
}

constexpr const char* kRaiseHint = "raise it with Module::set_max_memory()";

Result<std::vector<size_t>> planned_sizes(
    const Program& program, const char* method_name) {
  auto meta = program.method_meta(method_name);
  if (!meta.ok()) {
    return meta.error();
  }
  const size_t count = meta->num_memory_planned_buffers();
  std::vector<size_t> sizes;
  sizes.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    auto size = meta->memory_planned_buffer_size(i);
    if (!size.ok()) {
      return size.error();
    }
    if (size.get() < 0) {
      ET_LOG(
          Error,
          "Module: method '%s' declares a negative planned buffer size",
          method_name);
      return Error::InvalidProgram;
    }
    sizes.push_back(static_cast<size_t>(size.get()));
  }
  return sizes;
}

}  // namespace

Module::Module(
    const std::string& file_path,
    const LoadMode load_mode,
    std::unique_ptr<runtime::EventTracer> event_tracer,
    std::unique_ptr<runtime::MemoryAllocator> memory_allocator,
    std::unique_ptr<runtime::MemoryAllocator> temp_allocator,
    bool share_memory_arenas)
    : file_path_(file_path),
      load_mode_(load_mode),
      memory_allocator_(or_malloc(std::move(memory_allocator))),
      temp_allocator_(or_malloc(std::move(temp_allocator))),
      event_tracer_(std::move(event_tracer)),
      share_memory_arenas_(share_memory_arenas) {
  runtime::runtime_init();
}

Module::Module(
    const std::string& file_path,
    const std::string& data_map_path,
    const LoadMode load_mode,
    std::unique_ptr<runtime::EventTracer> event_tracer,
    std::unique_ptr<runtime::MemoryAllocator> memory_allocator,
    std::unique_ptr<runtime::MemoryAllocator> temp_allocator,
    bool share_memory_arenas)
    : Module(
          file_path,
          data_map_path.empty() ? std::vector<std::string>{}
                                : std::vector<std::string>{data_map_path},
          load_mode,
          std::move(event_tracer),
          std::move(memory_allocator),
          std::move(temp_allocator),
          share_memory_arenas) {}

Module::Module(
    const std::string& file_path,
    std::vector<std::string> data_files,
    const LoadMode load_mode,
    std::unique_ptr<runtime::EventTracer> event_tracer,
    std::unique_ptr<runtime::MemoryAllocator> memory_allocator,
    std::unique_ptr<runtime::MemoryAllocator> temp_allocator,
    bool share_memory_arenas)
    : file_path_(file_path),
      data_files_(std::move(data_files)),
      load_mode_(load_mode),
      memory_allocator_(or_malloc(std::move(memory_allocator))),
      temp_allocator_(or_malloc(std::move(temp_allocator))),
      event_tracer_(std::move(event_tracer)),
      share_memory_arenas_(share_memory_arenas) {
  runtime::runtime_init();
}

Module::Module(
    std::unique_ptr<runtime::DataLoader> data_loader,
    std::unique_ptr<runtime::MemoryAllocator> memory_allocator,
    std::unique_ptr<runtime::MemoryAllocator> temp_allocator,
    std::unique_ptr<runtime::EventTracer> event_tracer,
    std::unique_ptr<runtime::DataLoader> data_map_loader,
    bool share_memory_arenas)
    : data_loader_(std::move(data_loader)),
      memory_allocator_(or_malloc(std::move(memory_allocator))),
      temp_allocator_(or_malloc(std::move(temp_allocator))),
      event_tracer_(std::move(event_tracer)),
      share_memory_arenas_(share_memory_arenas) {
  if (data_map_loader) {
    data_map_loaders_.push_back(std::move(data_map_loader));
  }
  runtime::runtime_init();
}

Module::Module(
    std::shared_ptr<Program> program,
    std::unique_ptr<runtime::MemoryAllocator> memory_allocator,
    std::unique_ptr<runtime::MemoryAllocator> temp_allocator,
    std::unique_ptr<runtime::EventTracer> event_tracer,
    std::unique_ptr<runtime::DataLoader> data_map_loader,
    bool share_memory_arenas)
    : program_(std::move(program)),
      memory_allocator_(or_malloc(std::move(memory_allocator))),
      temp_allocator_(or_malloc(std::move(temp_allocator))),
      event_tracer_(std::move(event_tracer)),
      share_memory_arenas_(share_memory_arenas) {
  if (data_map_loader) {
    data_map_loaders_.push_back(std::move(data_map_loader));
  }
  runtime::runtime_init();
  if (program_ != nullptr && !data_map_loaders_.empty()) {
    // The program is already loaded; open its external data now (a failure
    // shows up later as missing external tensors when a method loads).
    const Error err = load_program(Program::Verification::Minimal);
    if (err != Error::Ok) {
      ET_LOG(
          Error,
          "Module: external data failed to load: 0x%x",
          static_cast<unsigned>(err));
    }
  }
}

Error Module::load(const Program::Verification verification) {
  return load_program(verification);
}

Error Module::load(
    const LoadBackendOptionsMap& backend_options,
    const Program::Verification verification) {
  const Error err = load_program(verification);
  if (err != Error::Ok) {
    return err;
  }
  // Deep copy: the caller's option arrays may go away after this call. The
  // outer vector is sized up front so the inner arrays never move.
  std::vector<std::vector<runtime::BackendOption>> storage(
      backend_options.size());
  LoadBackendOptionsMap map;
  for (size_t i = 0; i < backend_options.size(); ++i) {
    const auto entry = backend_options.entry_at(i);
    storage[i].assign(entry.options.begin(), entry.options.end());
    const Error set_err = map.set_options(
        entry.backend_id,
        runtime::Span<runtime::BackendOption>(
            storage[i].data(), storage[i].size()));
    if (set_err != Error::Ok) {
      return set_err;
    }
  }
  backend_options_storage_ = std::move(storage);
  backend_options_map_ = map;
  return Error::Ok;
}

Error Module::load_program(const Program::Verification verification) {
  const bool need_program = program_ == nullptr;
  const bool need_data = merged_data_map_ == nullptr &&
                         named_data_maps_.empty() &&
                         (!data_files_.empty() || !data_map_loaders_.empty());
  if (!need_program && !need_data) {
    return Error::Ok;
  }

  if (need_program && data_loader_ == nullptr) {
    auto loader = open_loader(file_path_, load_mode_);
    if (!loader.ok()) {
      return loader.error();
    }
    data_loader_ = std::move(loader.get());
  }

  // External data: build everything locally, commit only on success.
  std::vector<std::unique_ptr<runtime::DataLoader>> new_loaders;
  std::vector<std::unique_ptr<NamedDataMap>> maps;
  std::unique_ptr<NamedDataMap> merged;
  if (need_data) {
    for (const auto& path : data_files_) {
      auto loader = open_loader(path, load_mode_);
      if (!loader.ok()) {
        return loader.error();
      }
      new_loaders.push_back(std::move(loader.get()));
    }
    std::vector<runtime::DataLoader*> all_loaders;
    for (auto& l : data_map_loaders_) {
      all_loaders.push_back(l.get());
    }
    for (auto& l : new_loaders) {
      all_loaders.push_back(l.get());
    }
    for (runtime::DataLoader* loader : all_loaders) {
      auto map = FlatTensorDataMap::load(loader);
      if (!map.ok()) {
        ET_LOG(Error, "Module: external data file is not a valid .ptd");
        return map.error();
      }
      maps.push_back(std::unique_ptr<NamedDataMap>(
          std::make_unique<FlatTensorDataMap>(std::move(map.get()))));
    }
    if (maps.size() > 1) {
      std::vector<const NamedDataMap*> views;
      for (auto& m : maps) {
        views.push_back(m.get());
      }
      auto m = MergedDataMap::create(std::move(views));
      if (!m.ok()) {
        return m.error();
      }
      merged = std::move(m.get());
    }
  }

  std::shared_ptr<Program> program = program_;
  if (need_program) {
    auto loaded = Program::load(data_loader_.get(), verification);
    if (!loaded.ok()) {
      return loaded.error();
    }
    program = std::make_shared<Program>(std::move(loaded.get()));
  }

  for (auto& l : new_loaders) {
    data_map_loaders_.push_back(std::move(l));
  }
  if (maps.size() == 1) {
    merged = std::move(maps.front());
    maps.clear();
  }
  named_data_maps_ = std::move(maps);
  merged_data_map_ = std::move(merged);
  program_ = std::move(program);
  return Error::Ok;
}

Result<size_t> Module::num_methods() {
  const Error err = load();
  if (err != Error::Ok) {
    return err;
  }
  return program_->num_methods();
}

Result<std::unordered_set<std::string>> Module::method_names() {
  const Error err = load();
  if (err != Error::Ok) {
    return err;
  }
  const size_t count = program_->num_methods();
  std::unordered_set<std::string> names;
  names.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    auto name = program_->get_method_name(i);
    if (!name.ok()) {
      return name.error();
    }
    names.emplace(name.get());
  }
  return names;
}

Result<std::unique_ptr<Module::PlannedMemory>> Module::plan_memory(
    const std::string& method_name) {
  auto sizes = planned_sizes(*program_, method_name.c_str());
  if (!sizes.ok()) {
    return sizes.error();
  }

  if (share_memory_arenas_ && shared_arenas_.empty()) {
    // Arenas for memory ids 1 and 2, as large as any method needs.
    std::vector<size_t> max_sizes;
    auto names = method_names();
    if (!names.ok()) {
      return names.error();
    }
    for (const auto& name : names.get()) {
      auto s = planned_sizes(*program_, name.c_str());
      if (!s.ok()) {
        return s.error();
      }
      for (size_t i = 0; i < s->size() && i < 2; ++i) {
        if (max_sizes.size() <= i) {
          max_sizes.resize(i + 1, 0);
        }
        max_sizes[i] = std::max(max_sizes[i], (*s)[i]);
      }
    }
    MemoryBudget budget(max_memory_, kRaiseHint);
    std::vector<ZeroedBuffer> arenas(max_sizes.size());
    for (size_t i = 0; i < max_sizes.size(); ++i) {
      Error err = budget.reserve(max_sizes[i], "Module: shared memory arenas");
      if (err == Error::Ok) {
        err = make_buffer(max_sizes[i], "shared memory arena", &arenas[i]);
      }
      if (err != Error::Ok) {
        return err;
      }
    }
    shared_arenas_ = std::move(arenas);
    shared_arena_sizes_ = std::move(max_sizes);
  }

  auto planned = std::make_unique<PlannedMemory>();
  const size_t count = sizes->size();
  planned->buffers.resize(count);
  planned->spans.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const size_t size = (*sizes)[i];
    if (share_memory_arenas_ && i < shared_arenas_.size() &&
        size <= shared_arena_sizes_[i]) {
      planned->spans.emplace_back(
          shared_arenas_[i].get(), shared_arena_sizes_[i]);
      continue;
    }
    const Error err = make_buffer(size, "planned memory", &planned->buffers[i]);
    if (err != Error::Ok) {
      return err;
    }
    planned->spans.emplace_back(planned->buffers[i].get(), size);
  }
  planned->allocator = std::make_unique<runtime::HierarchicalAllocator>(
      runtime::Span<runtime::Span<uint8_t>>(
          planned->spans.data(), planned->spans.size()));
  return planned;
}

Error Module::load_method(
    const std::string& method_name,
    runtime::HierarchicalAllocator* planned_memory,
    torch::executor::EventTracer* event_tracer,
    const LoadBackendOptionsMap* backend_options,
    std::vector<Kernel> kernel_registry) {
  if (is_method_loaded(method_name)) {
    return Error::Ok;
  }
  const Error err = load();
  if (err != Error::Ok) {
    return err;
  }

  // Checked before anything is allocated: the sizes come from the file.
  const std::string what = "Module: method '" + method_name + "'";
  MemoryBudget budget(max_memory_, kRaiseHint);
  MethodHolder holder;
  if (planned_memory == nullptr) {
    auto meta = program_->method_meta(method_name.c_str());
    if (!meta.ok()) {
      return meta.error();
    }
    const Error budget_err = budget.reserve_planned(
        meta.get(), (what + ": planned buffers").c_str());
    if (budget_err != Error::Ok) {
      return budget_err;
    }
    auto planned = plan_memory(method_name);
    if (!planned.ok()) {
      return planned.error();
    }
    holder.planned_memory = std::move(planned.get());
    planned_memory = holder.planned_memory->allocator.get();
  }
  holder.memory_manager = std::make_unique<runtime::MemoryManager>(
      memory_allocator_.get(), planned_memory, temp_allocator_.get());
  holder.kernel_registry = std::move(kernel_registry);

  const LoadBackendOptionsMap* options = backend_options;
  if (options == nullptr && backend_options_map_.size() > 0) {
    options = &backend_options_map_;
  }
  runtime::MethodLoadConfig config;
  config.prepare_constants = prepare_constants_;
  auto method = program_->load_method(
      method_name.c_str(),
      holder.memory_manager.get(),
      config,
      event_tracer != nullptr ? event_tracer : event_tracer_.get(),
      merged_data_map_.get(),
      options,
      runtime::Span<const Kernel>(
          holder.kernel_registry.data(), holder.kernel_registry.size()));
  if (!method.ok()) {
    return method.error();
  }
  holder.method = std::make_unique<Method>(std::move(method.get()));
  const runtime::MethodMeta meta = holder.method->method_meta();
  for (size_t i = 0; i < meta.num_outputs(); ++i) {
    auto info = meta.output_tensor_meta(i);
    if (!info.ok() || info->is_memory_planned() || info->nbytes() == 0) {
      continue;  // not a tensor, or the program provides its memory
    }
    const size_t nbytes = info->nbytes();
    const std::string output = what + ": output " + std::to_string(i);
    ZeroedBuffer buffer;
    Error out_err = budget.reserve(nbytes, output.c_str());
    if (out_err == Error::Ok) {
      out_err = make_buffer(nbytes, "output storage", &buffer);
    }
    if (out_err != Error::Ok) {
      return out_err;
    }
    if (holder.method->set_output_data_ptr(buffer.get(), nbytes, i) ==
        Error::Ok) {
      holder.output_buffers.push_back(std::move(buffer));
    }  // else e.g. a view of another value: not ours to back
  }
  methods_.emplace(method_name, std::move(holder));
  return Error::Ok;
}

Result<Method*> Module::loaded_method(const std::string& method_name) {
  const Error err = load_method(method_name);
  if (err != Error::Ok) {
    return err;
  }
  return methods_.at(method_name).method.get();
}

Result<Method*> Module::method(const std::string& method_name) {
  return loaded_method(method_name);
}

Result<MethodMeta> Module::method_meta(const std::string& method_name) {
  const Error err = load();
  if (err != Error::Ok) {
    return err;
  }
  return program_->method_meta(method_name.c_str());
}

Result<std::vector<EValue>> Module::execute(
    const std::string& method_name, const std::vector<EValue>& input_values) {
  auto method = loaded_method(method_name);
  if (!method.ok()) {
    return method.error();
  }
  Method* m = method.get();
  for (size_t i = 0; i < input_values.size(); ++i) {
    const Error err = m->set_input(input_values[i], i);
    if (err != Error::Ok) {
      return err;
    }
  }
  const Error err = m->execute();
  if (err != Error::Ok) {
    return err;
  }
  std::vector<EValue> outputs(m->outputs_size());
  const Error out_err = m->get_outputs(outputs.data(), outputs.size());
  if (out_err != Error::Ok) {
    return out_err;
  }
  return outputs;
}

Error Module::set_input(
    const std::string& method_name,
    const EValue& input_value,
    size_t input_index) {
  auto method = loaded_method(method_name);
  if (!method.ok()) {
    return method.error();
  }
  return method.get()->set_input(input_value, input_index);
}

Error Module::set_inputs(
    const std::string& method_name, const std::vector<EValue>& input_values) {
  auto method = loaded_method(method_name);
  if (!method.ok()) {
    return method.error();
  }
  return method.get()->set_inputs(executorch::aten::ArrayRef<EValue>(
      input_values.data(), input_values.size()));
}

Error Module::set_output(
    const std::string& method_name, EValue output_value, size_t output_index) {
  auto method = loaded_method(method_name);
  if (!method.ok()) {
    return method.error();
  }
  if (!output_value.isTensor()) {
    ET_LOG(
        Error,
        "Module::set_output: output %zu must be given as a tensor",
        output_index);
    return Error::InvalidArgument;
  }
  const auto& tensor = output_value.toTensor();
  return method.get()->set_output_data_ptr(
      tensor.mutable_data_ptr(), tensor.nbytes(), output_index);
}

Error Module::set_outputs(
    const std::string& method_name, const std::vector<EValue>& output_values) {
  auto method = loaded_method(method_name);
  if (!method.ok()) {
    return method.error();
  }
  const size_t count = method.get()->outputs_size();
  if (output_values.size() != count) {
    ET_LOG(
        Error,
        "Module::set_outputs: %zu values given, method has %zu outputs",
        output_values.size(),
        count);
    return Error::InvalidArgument;
  }
  for (size_t i = 0; i < count; ++i) {
    const Error err = set_output(method_name, output_values[i], i);
    if (err != Error::Ok) {
      return err;
    }
  }
  return Error::Ok;
}

Result<std::vector<EValue>> Module::get_outputs(
    const std::string& method_name) {
  auto method = loaded_method(method_name);
  if (!method.ok()) {
    return method.error();
  }
  std::vector<EValue> outputs(method.get()->outputs_size());
  const Error err = method.get()->get_outputs(outputs.data(), outputs.size());
  if (err != Error::Ok) {
    return err;
  }
  return outputs;
}

Result<EValue> Module::get_output(
    const std::string& method_name, size_t output_index) {
  auto method = loaded_method(method_name);
  if (!method.ok()) {
    return method.error();
  }
  if (output_index >= method.get()->outputs_size()) {
    ET_LOG(
        Error,
        "Module::get_output: index %zu out of range (%zu outputs)",
        output_index,
        method.get()->outputs_size());
    return Error::InvalidArgument;
  }
  return method.get()->get_output(output_index);
}

}  // namespace ET_MODULE_NAMESPACE
}  // namespace extension
}  // namespace executorch
