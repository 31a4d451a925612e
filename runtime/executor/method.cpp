/*
 * Method lifetime: load (values, delegates, chains), move, destruction.
 * The input/output API lives in detail/method_io.cpp, execution in
 * detail/execution.cpp.
 */
#include <executorch/runtime/executor/method.h>

#include <new>
#include <utility>

#include <executorch/runtime/executor/detail/delegate.h>
#include <executorch/runtime/executor/detail/instruction_builder.h>
#include <executorch/runtime/executor/detail/malloc_temp_allocator.h>
#include <executorch/runtime/executor/detail/merged_data_map.h>
#include <executorch/runtime/executor/detail/program_access.h>
#include <executorch/runtime/executor/detail/method_internal.h>
#include <executorch/runtime/executor/detail/tensor_parser.h>
#include <executorch/runtime/executor/detail/value_parser.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/log.h>

#include <executorch_schema/program_generated.h>

// The experimental/deprecated members are defined here.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace executorch {
namespace runtime {

namespace fb = ::executorch_flatbuffer;

Method::Method(
    const Program* program,
    MemoryManager* memory_manager,
    EventTracer* event_tracer,
    MemoryAllocator* temp_allocator,
    Span<const Kernel> kernel_registry)
    : step_state_{0, 0},
      env_{program, memory_manager, nullptr, event_tracer, kernel_registry},
      init_state_(InitializationState::Uninitialized) {
  owned_.temp_allocator = temp_allocator;
}

// The moved-from Method keeps nothing: its destructor then releases nothing.
Method::Method(Method&& rhs) noexcept
    : step_state_(std::exchange(rhs.step_state_, StepState{0, 0})),
      env_(std::exchange(rhs.env_, LoadEnvironment{})),
      owned_(std::exchange(rhs.owned_, OwnedState{})),
      init_state_(
          std::exchange(rhs.init_state_, InitializationState::Uninitialized)) {}

Method::~Method() {
  release();
}

void Method::release() {
  // Delegates first, in index order, each right before its payload is
  // released.
  for (size_t i = 0; i < owned_.n_delegate; ++i) {
    owned_.delegates[i].~BackendDelegate();
  }
  owned_.n_delegate = 0;
  owned_.delegates = nullptr;
  for (size_t i = 0; i < owned_.n_external_constants; ++i) {
    owned_.external_constants[i].~ExternalConstant();
  }
  owned_.n_external_constants = 0;
  owned_.external_constants = nullptr;
  for (size_t i = 0; i < owned_.n_value; ++i) {
    owned_.values[i].~EValue();
  }
  owned_.n_value = 0;
  owned_.values = nullptr;
  if (owned_.merged_data_map != nullptr) {
    owned_.merged_data_map->~MergedDataMap();
    owned_.merged_data_map = nullptr;
  }
  // A temp allocator that is not the MemoryManager's was made by load().
  if (owned_.temp_allocator != nullptr && env_.memory_manager != nullptr &&
      owned_.temp_allocator != env_.memory_manager->temp_allocator()) {
    static_cast<internal::MallocTempAllocator*>(owned_.temp_allocator)
        ->~MallocTempAllocator();
  }
  owned_.temp_allocator = nullptr;
  owned_.n_chains = 0;
  owned_.chains = nullptr;
  init_state_ = InitializationState::Uninitialized;
}

Result<Method> Method::load(
    fb::ExecutionPlan* s_plan,
    const Program* program,
    MemoryManager* memory_manager,
    EventTracer* event_tracer,
    const NamedDataMap* named_data_map,
    const LoadBackendOptionsMap* backend_options,
    Span<const Kernel> kernel_registry) {
  if (s_plan == nullptr || program == nullptr || memory_manager == nullptr ||
      memory_manager->method_allocator() == nullptr) {
    ET_LOG(Error, "Method::load: null plan, program or method allocator");
    return Error::InvalidArgument;
  }
  MemoryAllocator* temp = memory_manager->temp_allocator();
  if (temp == nullptr) {
    auto* owned = internal::allocate_array<internal::MallocTempAllocator>(
        memory_manager->method_allocator(), 1);
    if (owned == nullptr) {
      return Error::MemoryAllocationFailed;
    }
    temp = new (owned) internal::MallocTempAllocator();
  }
  Method method(program, memory_manager, event_tracer, temp, kernel_registry);
  Error err = method.init(s_plan, named_data_map, backend_options);
  if (err != Error::Ok) {
    // ~Method releases whatever was set up.
    return err;
  }
  return method;
}

Error Method::init(
    fb::ExecutionPlan* s_plan,
    const NamedDataMap* named_data_map,
    const LoadBackendOptionsMap* backend_options) {
  env_.serialization_plan = s_plan;
  init_state_ = InitializationState::InitializationFailed;
  MemoryAllocator* method_allocator = env_.memory_manager->method_allocator();
  const char* name = s_plan->name() ? s_plan->name()->c_str() : nullptr;
  if (name == nullptr || s_plan->values() == nullptr ||
      s_plan->inputs() == nullptr || s_plan->outputs() == nullptr ||
      s_plan->delegates() == nullptr) {
    ET_LOG(
        Error,
        "method '%s': a required field (name, values, inputs, outputs, "
        "delegates) is missing",
        name ? name : "?");
    return Error::InvalidProgram;
  }

  // External constants (.ptd), fetched once per distinct name.
  Error err = internal::load_external_constants(
      s_plan,
      named_data_map,
      method_allocator,
      &owned_.external_constants,
      &owned_.n_external_constants);
  if (err != Error::Ok) {
    return err;
  }

  // The named-data view delegates get: user map first, then the program's.
  const NamedDataMap* delegate_data_map = named_data_map;
  {
    Result<const NamedDataMap*> pte_map = env_.program->get_named_data_map();
    const NamedDataMap* pte =
        pte_map.ok() ? pte_map.get() : static_cast<const NamedDataMap*>(nullptr);
    if (pte != nullptr && named_data_map != nullptr) {
      auto* merged = internal::allocate_array<internal::MergedDataMap>(
          method_allocator, 1);
      if (merged == nullptr) {
        return Error::MemoryAllocationFailed;
      }
      owned_.merged_data_map = new (merged) internal::MergedDataMap(named_data_map, pte);
      delegate_data_map = owned_.merged_data_map;
    } else if (pte != nullptr) {
      delegate_data_map = pte;
    }
  }

  // Values.
  const size_t n_values = s_plan->values()->size();
  EValue* values = internal::allocate_array<EValue>(method_allocator, n_values);
  const size_t n_inputs = s_plan->inputs()->size();
  bool* input_set = internal::allocate_array<bool>(method_allocator, n_inputs);
  if (values == nullptr || input_set == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  for (size_t i = 0; i < n_values; ++i) {
    new (&values[i]) EValue();
  }
  for (size_t i = 0; i < n_inputs; ++i) {
    input_set[i] = false;
  }
  owned_.values = values;
  owned_.n_value = n_values;
  owned_.input_set = input_set;

  internal::LoadContext ctx{
      env_.program,
      internal::ProgramAccess::flatbuffer(*env_.program),
      method_allocator,
      env_.memory_manager->planned_memory(),
      named_data_map,
      owned_.external_constants,
      owned_.n_external_constants,
      owned_.values,
      owned_.n_value};
  err = internal::parse_values(ctx, s_plan);
  if (err != Error::Ok) {
    ET_LOG(
        Error,
        "method '%s': parsing values failed: error 0x%x",
        name,
        static_cast<unsigned>(err));
    return err;
  }

  // Input and output indices.
  for (size_t i = 0; i < n_inputs; ++i) {
    const int32_t idx = s_plan->inputs()->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (idx < 0 || static_cast<size_t>(idx) >= owned_.n_value) {
      ET_LOG(
          Error,
          "method '%s': inputs[%zu] = %d is not a value index (%zu values)",
          name,
          i,
          idx,
          owned_.n_value);
      return Error::InvalidProgram;
    }
  }
  for (size_t i = 0; i < s_plan->outputs()->size(); ++i) {
    const int32_t idx =
        s_plan->outputs()->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (idx < 0 || static_cast<size_t>(idx) >= owned_.n_value) {
      ET_LOG(
          Error,
          "method '%s': outputs[%zu] = %d is not a value index (%zu values)",
          name,
          i,
          idx,
          owned_.n_value);
      return Error::InvalidProgram;
    }
  }

  // Delegates, in index order; all must initialize.
  const auto* s_delegates = s_plan->delegates();
  const size_t n_delegates = s_delegates->size();
  owned_.delegates = internal::allocate_array<internal::BackendDelegate>(
      method_allocator, n_delegates);
  if (owned_.delegates == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  for (size_t i = 0; i < n_delegates; ++i) {
    const fb::BackendDelegate* d =
        s_delegates->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (d == nullptr) {
      ET_LOG(Error, "method '%s': delegates[%zu] is missing", name, i);
      return Error::InvalidProgram;
    }
    Span<const BackendOption> runtime_specs;
    if (backend_options != nullptr && d->id() != nullptr) {
      runtime_specs = backend_options->get_options(d->id()->c_str());
    }
    BackendInitContext init_context(
        method_allocator, env_.event_tracer, name, delegate_data_map, runtime_specs);
    err = internal::BackendDelegate::Init(
        *d, i, env_.program, init_context, &owned_.delegates[i]);
    if (err != Error::Ok) {
      return err;
    }
    owned_.n_delegate = i + 1;
  }

  // Instructions and kernels.
  err = internal::build_chains(
      ctx,
      s_plan,
      owned_.n_delegate,
      env_.kernel_registry,
      /*with_op_names=*/env_.event_tracer != nullptr,
      &owned_.chains,
      &owned_.n_chains);
  if (err != Error::Ok) {
    return err;
  }

  step_state_ = {0, 0};
  init_state_ = InitializationState::Initialized;
  return Error::Ok;
}

} // namespace runtime
} // namespace executorch
