/*
 * Method: one executable entry point (e.g. "forward") of a loaded Program.
 *
 * A Method is created by Program::load_method(). Loading parses the method's
 * value table (tensors over the caller's planned memory, constants from the
 * Program, external constants from a NamedDataMap), initializes its backend
 * delegates and resolves every kernel. Afterwards:
 *
 *   set_input()/set_inputs()  feed the inputs (copied into planned memory, or
 *                             shared when the input has no planned storage)
 *   execute()                 runs every instruction
 *   get_outputs()/get_output() read the results (they alias method memory and
 *                             are overwritten by the next execute())
 *
 * All memory a Method uses comes from its MemoryManager; execute() allocates
 * nothing but kernel/delegate scratch from the temp allocator.
 */
#pragma once

#ifdef __GNUC__
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <executorch/runtime/backend/backend_options_map.h>
#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/compiler.h>

// The flatbuffer types stay opaque: this public header never includes the
// generated schema.
namespace executorch_flatbuffer {
struct Chain;
struct ExecutionPlan;
struct EValue;
struct Program;
}  // namespace executorch_flatbuffer

namespace executorch {
namespace runtime {

class Program;
class KernelRuntimeContext;

namespace internal {
// Load-time and run-time machinery of a Method (runtime/executor/detail/).
class BackendDelegate;
struct Chain;
struct ExternalConstant;
class MergedDataMap;
class PreparedState;
struct InputWrite;
}  // namespace internal

/// The argument list of one instruction: pointers into the value table.
using InstructionArgs = Span<EValue*>;

/// EXPERIMENTAL: load options beyond upstream's (Program::load_method).
struct MethodLoadConfig {
  /// Evaluate at load, once, the instructions that only move or convert
  /// constant data (e.g. a weight's permute_copy), and skip them at execute.
  /// Outputs are bit-identical either way; the cost is the memory of the
  /// folded constants (Method::prepared_constant_bytes()).
  bool prepare_constants = true;
};

class ET_API Method final {
 public:
  /**
   * Takes over everything `rhs` owns; `rhs` is left uninitialized (every
   * call on it fails) and its destructor releases nothing.
   */
  Method(Method&& rhs) noexcept;

  /**
   * Sets input `input_idx`.
   *
   * Tensors: the dtype must match; the method's tensor is resized to the
   * given shape (within its static shape or dynamic bound). If the input has
   * planned storage the bytes are copied there, so `input_evalue` need not
   * outlive the call; otherwise the method keeps a pointer to the caller's
   * data, which must then stay valid while the method runs.
   * Int/Bool/Double/String/None inputs were fixed at export: the value must
   * equal the traced one (doubles within a small tolerance).
   *
   * @retval Error::InvalidState not loaded, or an execution is in progress.
   * @retval Error::InvalidArgument bad index, kind, dtype, size or value.
   * @retval Error::NotSupported the shape does not fit the tensor.
   */
  ET_NODISCARD Error set_input(const EValue& input_evalue, size_t input_idx);

  /// Sets every input; `input_evalues.size()` must equal inputs_size().
  ET_NODISCARD Error
  set_inputs(const executorch::aten::ArrayRef<EValue>& input_evalues);

  /**
   * Points output `output_idx` (a tensor without planned storage) at
   * `buffer`, which must hold at least the tensor's nbytes and outlive every
   * execute().
   *
   * @retval Error::InvalidState the output has planned or constant storage.
   * @retval Error::InvalidArgument bad index, not a tensor, buffer too small.
   */
  ET_NODISCARD Error
  set_output_data_ptr(void* buffer, size_t size, size_t output_idx);

  /**
   * Copies the outputs into `output_evalues[0, outputs_size())` and sets the
   * remaining `length - outputs_size()` entries to None. Tensors alias
   * method memory.
   *
   * @retval Error::InvalidArgument length < outputs_size() or null array.
   */
  ET_NODISCARD Error get_outputs(EValue* output_evalues, size_t length);

  /// DEPRECATED: like get_outputs(), for the inputs; marks every input set.
  ET_DEPRECATED ET_NODISCARD Error
  get_inputs(EValue* input_evalues, size_t length);

  /**
   * The tensor value whose fully qualified name is `name` (e.g. a weight or
   * a mutable buffer), aliasing method memory.
   *
   * @retval Error::NotFound no tensor value has that name.
   */
  ET_NODISCARD Result<executorch::aten::Tensor> get_attribute(
      std::string_view name);

  /**
   * Runs every instruction of the method.
   *
   * @retval Error::NotSupported the method is not loaded.
   * @retval Error::InvalidState a step()-based execution is in progress.
   * @retval Error::InvalidArgument an input has not been set.
   * @retval Error::InvalidProgram more than the instruction limit ran.
   * @returns Any error an instruction reports (the execution is reset).
   */
  ET_NODISCARD Error execute();

  /**
   * EXPERIMENTAL: runs the next instruction.
   *
   * @retval Error::EndOfMethod nothing left to run; call reset_execution().
   */
  ET_EXPERIMENTAL ET_NODISCARD Error step();

  /// DEPRECATED: use step().
  ET_DEPRECATED ET_NODISCARD Error experimental_step();

  /// EXPERIMENTAL: true while a step()-based execution is part way through.
  ET_EXPERIMENTAL ET_NODISCARD bool in_progress() const;

  /**
   * EXPERIMENTAL: rewinds a finished step()-based execution.
   *
   * @retval Error::InvalidState the execution has not reached the end.
   */
  ET_EXPERIMENTAL ET_NODISCARD Error reset_execution();

  /// DEPRECATED: use reset_execution().
  ET_DEPRECATED ET_NODISCARD Error experimental_reset_execution();

  /// The metadata of this method (same as Program::method_meta()).
  MethodMeta method_meta() const;

  /// Number of inputs the method takes.
  size_t inputs_size() const;

  /// Number of outputs the method produces.
  size_t outputs_size() const;

  /// Output `i` (aborts if `i` is out of range).
  const EValue& get_output(size_t i) const;

  /// The event tracer given at load, or null.
  EventTracer* get_event_tracer();

  /**
   * Not part of upstream's API: whether the method writes input
   * `input_idx` in place, in the buffer the caller binds (an input that is
   * not memory-planned and that a kernel or delegate of the method writes).
   * Such an input must be bound to writable memory that holds its whole
   * capacity (set_input checks the size). False for an index out of range
   * or before the method is loaded.
   */
  bool input_is_written(size_t input_idx) const;

  /// EXPERIMENTAL: bytes the Method allocated at load for constants it
  /// prepared (MethodLoadConfig::prepare_constants); 0 when off.
  size_t prepared_constant_bytes() const;

  /// EXPERIMENTAL: instructions execute() skips: evaluated once at load, or
  /// fused or folded into the instruction before them (e.g. a relu after a
  /// convolution, an inference batch norm folded into its weights).
  size_t prepared_instruction_count() const;

  /// EXPERIMENTAL: intermediate values the Method switched at load to the
  /// channels-last dim order, so that convolutions run in NHWC
  /// (MethodLoadConfig::prepare_constants; docs/ on preparation); 0 when off.
  size_t channels_last_value_count() const;

  /// DEPRECATED: use MethodMeta and set_input().
  ET_DEPRECATED const EValue& get_input(size_t i) const;
  /// DEPRECATED: use set_input(). Marks the input set.
  ET_DEPRECATED EValue& mutable_input(size_t i);
  /// DEPRECATED: use get_output().
  ET_DEPRECATED EValue& mutable_output(size_t i);

  ~Method();

 private:
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;
  Method& operator=(Method&&) = delete;

  friend class Program;

  enum class InitializationState : uint8_t {
    Uninitialized,
    Initialized,
    InitializationFailed,
  };

  /// Position of the next instruction to run.
  struct StepState {
    size_t chain_idx;
    size_t instr_idx;
  };

  Method(
      const Program* program,
      MemoryManager* memory_manager,
      EventTracer* event_tracer,
      MemoryAllocator* temp_allocator,
      Span<const Kernel> kernel_registry = {});

  /// Factory used by Program::load_method().
  ET_NODISCARD static Result<Method> load(
      executorch_flatbuffer::ExecutionPlan* s_plan,
      const Program* program,
      MemoryManager* memory_manager,
      EventTracer* event_tracer,
      const NamedDataMap* named_data_map,
      const LoadBackendOptionsMap* backend_options = nullptr,
      Span<const Kernel> kernel_registry = {},
      const MethodLoadConfig& config = {});

  ET_NODISCARD Error init(
      executorch_flatbuffer::ExecutionPlan* s_plan,
      const NamedDataMap* named_data_map,
      const LoadBackendOptionsMap* backend_options,
      const MethodLoadConfig& config);

  bool initialized() const {
    return init_state_ == InitializationState::Initialized;
  }

  /// Releases delegates, external buffers and values (destructor and failed
  /// loads).
  void release();

  const EValue& get_value(size_t i) const;
  EValue& mutable_value(size_t i);
  size_t get_input_index(size_t i) const;
  size_t get_output_index(size_t i) const;

  /// Runs the instruction at step_state_ and advances it.
  ET_NODISCARD Error execute_instruction();
  /// Reports the method outputs to the EventTracer (at its kProgramOutputs
  /// debug level and above) once an execution has run to the end.
  void log_outputs_to_event_tracer();

  /// What the Method was loaded from and with; borrowed, never freed.
  struct LoadEnvironment {
    const Program* program = nullptr;
    MemoryManager* memory_manager = nullptr;
    executorch_flatbuffer::ExecutionPlan* serialization_plan = nullptr;
    EventTracer* event_tracer = nullptr;
    Span<const Kernel> kernel_registry;
  };

  /// What load() and init() build (in method memory, or the temp allocator
  /// load() makes when the MemoryManager has none); release() destroys it.
  struct OwnedState {
    MemoryAllocator* temp_allocator = nullptr;
    size_t n_value = 0;
    EValue* values = nullptr;
    bool* input_set = nullptr;
    /// Per input: whether the method writes the caller's bound buffer.
    internal::InputWrite* input_writes = nullptr;
    size_t n_delegate = 0;
    internal::BackendDelegate* delegates = nullptr;
    size_t n_chains = 0;
    internal::Chain* chains = nullptr;
    internal::MergedDataMap* merged_data_map = nullptr;
    internal::ExternalConstant* external_constants = nullptr;
    size_t n_external_constants = 0;
    internal::PreparedState* prepared = nullptr;  // heap; null when off
  };

  StepState step_state_;
  LoadEnvironment env_;
  OwnedState owned_;
  InitializationState init_state_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Method;
}  // namespace executor
}  // namespace torch

#ifdef __GNUC__
#pragma GCC diagnostic pop
#endif
