/*
 * Module: the high-level way to run an ExecuTorch program.
 *
 * A Module owns everything needed to execute a .pte file: the data loader,
 * the Program, optional external-data maps (.ptd files), the allocators and,
 * per loaded method, the memory-planned buffers and the Method itself.
 * Loading is lazy: execute()/forward() load the program and the method on
 * first use; load()/load_method() do it eagerly and report errors early.
 *
 * Every failure is returned as an Error (or a Result holding one); nothing
 * here aborts on a bad file or bad arguments. The memory a method load
 * allocates from sizes the program declares (planned buffers, storage for
 * unplanned outputs) is capped by max_memory() (default: half of physical
 * memory, see memory_limit.h); a program asking for more fails to load with
 * Error::MemoryAllocationFailed before anything is allocated.
 *
 * A Module is neither copyable nor movable, and is not thread-safe.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <executorch/extension/module/memory_limit.h>
#include <executorch/runtime/backend/backend_options_map.h>
#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/compiler.h>

#define ET_MODULE_NAMESPACE module

namespace executorch {
namespace extension {

using ::executorch::runtime::Kernel;
using ::executorch::runtime::LoadBackendOptionsMap;
using ::executorch::runtime::Method;
using ::executorch::runtime::MethodMeta;
using ::executorch::runtime::NamedDataMap;
using ::executorch::runtime::Program;

class ExecuTorchJni;

namespace ET_MODULE_NAMESPACE {

class ET_API Module {
 public:
  /// How the program (and any .ptd) file is brought into memory.
  enum class LoadMode {
    /// Read the file into heap buffers.
    File,
    /// Map the file; pages are faulted in on demand, constants used in place.
    Mmap,
    /// Map the file and mlock() it; a failing mlock() is an error.
    MmapUseMlock,
    /// Map the file and try to mlock() it; failures are ignored.
    MmapUseMlockIgnoreErrors,
    /// Map the file with read-ahead hints (madvise).
    MmapUseMadvise,
  };

  /**
   * A Module over the program at `file_path`; nothing is read until the
   * first load. Missing allocators default to malloc-backed ones.
   *
   * @param share_memory_arenas When true, every method shares the planned
   *     buffers for memory ids 1 and 2 (sized to the largest method), which
   *     programs exported with shared mutable buffers require. Outputs of one
   *     method may then be overwritten by executing another.
   */
  explicit Module(
      const std::string& file_path,
      const LoadMode load_mode = LoadMode::Mmap,
      std::unique_ptr<runtime::EventTracer> event_tracer = nullptr,
      std::unique_ptr<runtime::MemoryAllocator> memory_allocator = nullptr,
      std::unique_ptr<runtime::MemoryAllocator> temp_allocator = nullptr,
      bool share_memory_arenas = false);

  /// As above, with external tensor data from the .ptd at `data_map_path`
  /// (ignored when empty).
  explicit Module(
      const std::string& file_path,
      const std::string& data_map_path,
      const LoadMode load_mode = LoadMode::Mmap,
      std::unique_ptr<runtime::EventTracer> event_tracer = nullptr,
      std::unique_ptr<runtime::MemoryAllocator> memory_allocator = nullptr,
      std::unique_ptr<runtime::MemoryAllocator> temp_allocator = nullptr,
      bool share_memory_arenas = false);

  /// As above, with external tensor data merged from several .ptd files.
  explicit Module(
      const std::string& file_path,
      std::vector<std::string> data_files,
      const LoadMode load_mode = LoadMode::Mmap,
      std::unique_ptr<runtime::EventTracer> event_tracer = nullptr,
      std::unique_ptr<runtime::MemoryAllocator> memory_allocator = nullptr,
      std::unique_ptr<runtime::MemoryAllocator> temp_allocator = nullptr,
      bool share_memory_arenas = false);

  /// A Module reading the program through a caller-supplied loader, with
  /// optional external data through `data_map_loader`.
  explicit Module(
      std::unique_ptr<runtime::DataLoader> data_loader,
      std::unique_ptr<runtime::MemoryAllocator> memory_allocator = nullptr,
      std::unique_ptr<runtime::MemoryAllocator> temp_allocator = nullptr,
      std::unique_ptr<runtime::EventTracer> event_tracer = nullptr,
      std::unique_ptr<runtime::DataLoader> data_map_loader = nullptr,
      bool share_memory_arenas = false);

  /// A Module over an already loaded Program, which may be shared with other
  /// Modules. The program's data loader must outlive the program.
  explicit Module(
      std::shared_ptr<Program> program,
      std::unique_ptr<runtime::MemoryAllocator> memory_allocator = nullptr,
      std::unique_ptr<runtime::MemoryAllocator> temp_allocator = nullptr,
      std::unique_ptr<runtime::EventTracer> event_tracer = nullptr,
      std::unique_ptr<runtime::DataLoader> data_map_loader = nullptr,
      bool share_memory_arenas = false);

  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  Module(Module&&) = delete;
  Module& operator=(Module&&) = delete;
  virtual ~Module() = default;

  /**
   * Loads the program (and any external data) if not loaded yet.
   *
   * @returns Error::Ok, or the loader's or Program::load()'s error.
   */
  ET_NODISCARD virtual runtime::Error load(
      const Program::Verification verification =
          Program::Verification::Minimal);

  /**
   * Loads the program, then installs a private copy of `backend_options`
   * used by every later load_method() that is not given its own options. On
   * failure the previously installed options stay.
   */
  ET_NODISCARD virtual runtime::Error load(
      const LoadBackendOptionsMap& backend_options,
      const Program::Verification verification =
          Program::Verification::Minimal);

  /// The options installed by load(backend_options, ...); empty otherwise.
  inline const LoadBackendOptionsMap& backend_options() const {
    return backend_options_map_;
  }

  virtual inline bool is_loaded() const {
    return program_ != nullptr;
  }

  /// The loaded program, or nullptr before the first successful load.
  inline std::shared_ptr<Program> program() const {
    return program_;
  }

  /// Number of methods in the program (loads it if needed).
  runtime::Result<size_t> num_methods();

  /// Names of the program's methods (loads it if needed).
  runtime::Result<std::unordered_set<std::string>> method_names();

  /**
   * Loads `method_name` if it is not loaded yet, with memory planned by the
   * Module unless `planned_memory` is given. A per-method `event_tracer`
   * takes precedence over the Module's. `kernel_registry`, when not empty,
   * is searched for the method's operators before the global registry.
   */
  ET_NODISCARD runtime::Error load_method(
      const std::string& method_name,
      runtime::HierarchicalAllocator* planned_memory = nullptr,
      torch::executor::EventTracer* event_tracer = nullptr,
      const LoadBackendOptionsMap* backend_options = nullptr,
      std::vector<Kernel> kernel_registry = {});

  ET_DEPRECATED ET_NODISCARD inline runtime::Error load_method(
      const std::string& method_name,
      torch::executor::EventTracer* event_tracer) {
    return load_method(method_name, nullptr, event_tracer, nullptr);
  }

  /// Drops a loaded method and its memory. Returns whether it was loaded.
  inline bool unload_method(const std::string& method_name) {
    return methods_.erase(method_name) > 0;
  }

  /**
   * The most bytes one load_method() may allocate from sizes the program
   * declares: the sum of its planned buffers (unless `planned_memory` is
   * given) plus the storage of its unplanned tensor outputs. Applies to
   * methods loaded afterwards.
   */
  /**
   * EXPERIMENTAL: whether methods loaded from now on evaluate their
   * constant-only instructions once at load (MethodLoadConfig; on by
   * default). Outputs are the same either way.
   */
  inline void set_prepare_constants(bool on) {
    prepare_constants_ = on;
  }
  inline bool prepare_constants() const {
    return prepare_constants_;
  }

  inline void set_max_memory(uint64_t bytes) {
    max_memory_ = bytes;
  }

  /// The limit set by set_max_memory(); by default half of physical memory.
  inline uint64_t max_memory() const {
    return max_memory_;
  }

  /// The loaded Method object (loading it if needed). The Module keeps
  /// ownership; prefer the Module calls.
  ET_DEPRECATED ET_NODISCARD runtime::Result<Method*> method(
      const std::string& method_name);

  ET_NODISCARD inline runtime::Error load_forward(
      runtime::HierarchicalAllocator* planned_memory = nullptr,
      torch::executor::EventTracer* event_tracer = nullptr,
      const LoadBackendOptionsMap* backend_options = nullptr,
      std::vector<Kernel> kernel_registry = {}) {
    return load_method(
        "forward",
        planned_memory,
        event_tracer,
        backend_options,
        std::move(kernel_registry));
  }

  ET_DEPRECATED ET_NODISCARD inline runtime::Error load_forward(
      torch::executor::EventTracer* event_tracer) {
    return load_forward(nullptr, event_tracer, nullptr);
  }

  inline bool unload_forward() {
    return unload_method("forward");
  }

  inline bool is_method_loaded(const std::string& method_name) const {
    return methods_.count(method_name) != 0;
  }

  /// Metadata of `method_name`, without loading the method.
  runtime::Result<MethodMeta> method_meta(const std::string& method_name);

  /**
   * Sets `input_values` as inputs 0..n-1 of `method_name` (loading it if
   * needed), executes it and returns all of its outputs. Output tensors
   * point into the method's memory and stay valid until the next execution
   * or until the method is unloaded.
   */
  ET_NODISCARD virtual runtime::Result<std::vector<runtime::EValue>> execute(
      const std::string& method_name,
      const std::vector<runtime::EValue>& input_values);

  ET_NODISCARD inline runtime::Result<std::vector<runtime::EValue>> execute(
      const std::string& method_name, const runtime::EValue& input_value) {
    return execute(method_name, std::vector<runtime::EValue>{input_value});
  }

  ET_NODISCARD inline runtime::Result<std::vector<runtime::EValue>> execute(
      const std::string& method_name) {
    return execute(method_name, std::vector<runtime::EValue>{});
  }

  /// Like execute(), returning only the first output.
  ET_NODISCARD inline runtime::Result<runtime::EValue> get(
      const std::string& method_name,
      const std::vector<runtime::EValue>& input_values) {
    auto outputs = execute(method_name, input_values);
    if (!outputs.ok()) {
      return outputs.error();
    }
    if (outputs->empty()) {
      return runtime::Error::InvalidArgument;
    }
    return std::move(outputs->front());
  }

  ET_NODISCARD inline runtime::Result<runtime::EValue> get(
      const std::string& method_name, const runtime::EValue& input_value) {
    return get(method_name, std::vector<runtime::EValue>{input_value});
  }

  ET_NODISCARD inline runtime::Result<runtime::EValue> get(
      const std::string& method_name) {
    return get(method_name, std::vector<runtime::EValue>{});
  }

  ET_NODISCARD inline runtime::Result<std::vector<runtime::EValue>> forward(
      const std::vector<runtime::EValue>& input_values) {
    return execute("forward", input_values);
  }

  ET_NODISCARD inline runtime::Result<std::vector<runtime::EValue>> forward(
      const runtime::EValue& input_value) {
    return forward(std::vector<runtime::EValue>{input_value});
  }

  ET_NODISCARD inline runtime::Result<std::vector<runtime::EValue>> forward() {
    return forward(std::vector<runtime::EValue>{});
  }

  /// Sets one input of `method_name` for later execution.
  ET_NODISCARD runtime::Error set_input(
      const std::string& method_name,
      const runtime::EValue& input_value,
      size_t input_index);

  ET_NODISCARD inline runtime::Error set_input(
      const runtime::EValue& input_value, size_t input_index) {
    return set_input("forward", input_value, input_index);
  }

  /// Sets all inputs of `method_name` at once.
  ET_NODISCARD runtime::Error set_inputs(
      const std::string& method_name,
      const std::vector<runtime::EValue>& input_values);

  ET_NODISCARD inline runtime::Error set_inputs(
      const std::vector<runtime::EValue>& input_values) {
    return set_inputs("forward", input_values);
  }

  /**
   * Makes output `output_index` of `method_name` write into the data of the
   * tensor in `output_value`. Only tensor outputs that are not memory
   * planned can be redirected.
   */
  ET_NODISCARD runtime::Error set_output(
      const std::string& method_name,
      runtime::EValue output_value,
      size_t output_index = 0);

  ET_NODISCARD inline runtime::Error set_output(
      runtime::EValue output_value, size_t output_index = 0) {
    return set_output("forward", std::move(output_value), output_index);
  }

  /// set_output() for every output; the count must match the method's.
  ET_NODISCARD runtime::Error set_outputs(
      const std::string& method_name,
      const std::vector<runtime::EValue>& output_values);

  ET_NODISCARD inline runtime::Error set_outputs(
      const std::vector<runtime::EValue>& output_values) {
    return set_outputs("forward", output_values);
  }

  /// The current outputs of `method_name`, without executing it.
  ET_NODISCARD runtime::Result<std::vector<runtime::EValue>> get_outputs(
      const std::string& method_name);

  ET_NODISCARD inline runtime::Result<std::vector<runtime::EValue>>
  get_outputs() {
    return get_outputs("forward");
  }

  /// One current output of `method_name`, without executing it.
  ET_NODISCARD runtime::Result<runtime::EValue> get_output(
      const std::string& method_name, size_t output_index = 0);

  ET_NODISCARD inline runtime::Result<runtime::EValue> get_output(
      size_t output_index = 0) {
    return get_output("forward", output_index);
  }

  /// The Module's event tracer, or nullptr.
  inline runtime::EventTracer* event_tracer() const {
    return event_tracer_.get();
  }

  /// Always empty: debug output goes to the event tracer's own buffer.
  ET_DEPRECATED ET_NODISCARD runtime::Span<uint8_t> debug_buffer() {
    return runtime::Span<uint8_t>(debug_buffer_.data(), debug_buffer_.size());
  }

 private:
  // Planned memory of one method: owned buffers (or views of the shared
  // arenas) and the allocator over them.
  struct PlannedMemory {
    std::vector<ZeroedBuffer> buffers;
    std::vector<runtime::Span<uint8_t>> spans;
    std::unique_ptr<runtime::HierarchicalAllocator> allocator;
  };

  struct MethodHolder {
    std::unique_ptr<PlannedMemory> planned_memory;
    std::unique_ptr<runtime::MemoryManager> memory_manager;
    std::unique_ptr<Method> method;
    std::vector<Kernel> kernel_registry;
    // Storage for outputs the program leaves unplanned, so execute() works without
    // set_output(); set_output() can still point them at the caller's memory.
    std::vector<ZeroedBuffer> output_buffers;
  };

  ET_NODISCARD runtime::Error load_program(
      const Program::Verification verification);
  runtime::Result<std::unique_ptr<PlannedMemory>> plan_memory(
      const std::string& method_name);
  runtime::Result<Method*> loaded_method(const std::string& method_name);

  std::string file_path_;
  std::vector<std::string> data_files_;
  LoadMode load_mode_{LoadMode::Mmap};
  bool prepare_constants_ = true;
  std::shared_ptr<Program> program_;
  std::unique_ptr<runtime::DataLoader> data_loader_;
  std::unique_ptr<runtime::MemoryAllocator> memory_allocator_;
  std::unique_ptr<runtime::MemoryAllocator> temp_allocator_;
  std::unique_ptr<runtime::EventTracer> event_tracer_;
  std::vector<std::unique_ptr<runtime::DataLoader>> data_map_loaders_;
  std::vector<std::unique_ptr<NamedDataMap>> named_data_maps_;
  std::unique_ptr<NamedDataMap> merged_data_map_;
  std::vector<ZeroedBuffer> shared_arenas_;
  std::vector<size_t> shared_arena_sizes_;
  std::vector<uint8_t> debug_buffer_;
  std::vector<std::vector<runtime::BackendOption>> backend_options_storage_;
  LoadBackendOptionsMap backend_options_map_;
  bool share_memory_arenas_{false};
  uint64_t max_memory_{default_max_memory()};

 protected:
  std::unordered_map<std::string, MethodHolder> methods_;

  friend class ::executorch::extension::ExecuTorchJni;
};

}  // namespace ET_MODULE_NAMESPACE

using ::executorch::extension::ET_MODULE_NAMESPACE::Module;

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::extension::ET_MODULE_NAMESPACE::Module;
}  // namespace executor
}  // namespace torch
