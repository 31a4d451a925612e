/*
 * Method lifetime: load (values, delegates, chains), move, destruction.
 * The input/output API lives in detail/method_io.cpp, execution in
 * detail/execution.cpp.
 */
#include <executorch/runtime/executor/method.h>

#include <new>
#include <utility>

#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/executor/detail/delegate.h>
#include <executorch/runtime/executor/detail/flatbuffer_vectors.h>
#include <executorch/runtime/executor/detail/instruction_builder.h>
#include <executorch/runtime/executor/detail/malloc_temp_allocator.h>
#include <executorch/runtime/executor/detail/merged_data_map.h>
#include <executorch/runtime/executor/detail/prepare.h>
#include <executorch/runtime/executor/detail/program_access.h>
#include <executorch/runtime/executor/detail/method_internal.h>
#include <executorch/runtime/executor/detail/tensor_parser.h>
#include <executorch/runtime/executor/detail/value_parser.h>
#include <executorch/runtime/executor/detail/write_validation.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/log.h>

#include <executorch_schema/program_generated.h>

// The experimental/deprecated members are defined here.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace executorch {
namespace runtime {

namespace fb = ::executorch_flatbuffer;

namespace {

/// A tracer that logs every operator's output records the raw bytes of the
/// intermediate values, which are compared with the exported model's: the
/// layout pass then keeps them in the program's dim order.
bool logs_intermediate_outputs(EventTracer* tracer) {
  return tracer != nullptr &&
         tracer->event_tracer_debug_level() >=
             EventTracerDebugLogLevel::kIntermediateOutputs;
}

/**
 * The named-data view delegates get: the caller's map first, then the
 * program's own; a MergedDataMap in method memory when there are both.
 */
Error make_delegate_data_map(
    const Program& program,
    const NamedDataMap* user_map,
    MemoryAllocator* method_allocator,
    internal::MergedDataMap** merged,
    const NamedDataMap** out) {
  Result<const NamedDataMap*> pte_map = program.get_named_data_map();
  const NamedDataMap* pte = pte_map.ok() ? pte_map.get() : nullptr;
  *out = user_map;
  if (pte != nullptr && user_map != nullptr) {
    auto* slot =
        internal::allocate_array<internal::MergedDataMap>(method_allocator, 1);
    if (slot == nullptr) {
      return Error::MemoryAllocationFailed;
    }
    *merged = new (slot) internal::MergedDataMap(user_map, pte);
    *out = *merged;
  } else if (pte != nullptr) {
    *out = pte;
  }
  return Error::Ok;
}

/// The value table (default EValues) and the per-input "was set" flags.
Error allocate_values(
    const fb::ExecutionPlan* s_plan,
    MemoryAllocator* method_allocator,
    EValue** values,
    bool** input_set,
    internal::InputWrite** input_writes) {
  const size_t n_values = s_plan->values()->size();
  const size_t n_inputs = s_plan->inputs()->size();
  EValue* v = internal::allocate_array<EValue>(method_allocator, n_values);
  bool* set = internal::allocate_array<bool>(method_allocator, n_inputs);
  auto* writes = internal::allocate_array<internal::InputWrite>(
      method_allocator, n_inputs);
  if (v == nullptr || set == nullptr || writes == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  for (size_t i = 0; i < n_values; ++i) {
    new (&v[i]) EValue();
  }
  for (size_t i = 0; i < n_inputs; ++i) {
    set[i] = false;
    writes[i] = internal::InputWrite{false, nullptr};
  }
  *values = v;
  *input_set = set;
  *input_writes = writes;
  return Error::Ok;
}

/// Plan inputs and outputs are value indices (validated; asserted here).
void assert_io_indices(const fb::ExecutionPlan* s_plan, size_t n_values) {
  for (const int32_t idx : *s_plan->inputs()) {
    ET_DCHECK(runtime::detail::index_in_range(idx, n_values));
  }
  for (const int32_t idx : *s_plan->outputs()) {
    ET_DCHECK(runtime::detail::index_in_range(idx, n_values));
  }
  (void)n_values;
}

/**
 * Initializes every delegate, in index order; all must succeed. An absent
 * delegates vector means no delegates (validation's rule: it reads every
 * optional vector as empty when absent). *n_delegate counts the delegates
 * initialized so far, so release() destroys exactly those.
 */
Error init_delegates(
    const fb::ExecutionPlan& s_plan,
    const Program& program,
    BackendInitContext& base_context,
    const LoadBackendOptionsMap* backend_options,
    internal::BackendDelegate** delegates,
    size_t* n_delegate) {
  const auto* s_delegates = s_plan.delegates();
  const size_t n = runtime::detail::vsize(s_delegates);
  *delegates = internal::allocate_array<internal::BackendDelegate>(
      base_context.get_runtime_allocator(), n);
  if (*delegates == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  for (size_t i = 0; i < n; ++i) {
    const fb::BackendDelegate* d =
        s_delegates->Get(static_cast<flatbuffers::uoffset_t>(i));
    ET_DCHECK(d != nullptr && d->id() != nullptr);
    Span<const BackendOption> runtime_specs;
    if (backend_options != nullptr) {
      runtime_specs = backend_options->get_options(d->id()->c_str());
    }
    BackendInitContext init_context(
        base_context.get_runtime_allocator(),
        base_context.event_tracer(),
        base_context.get_method_name(),
        base_context.get_named_data_map(),
        runtime_specs);
    ET_CHECK_OK_OR_RETURN_ERROR(internal::BackendDelegate::Init(
        *d, i, &program, init_context, &(*delegates)[i]));
    *n_delegate = i + 1;
  }
  return Error::Ok;
}

}  // namespace

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
  delete owned_.prepared;  // frees the folded constants
  owned_.prepared = nullptr;
  init_state_ = InitializationState::Uninitialized;
}

Result<Method> Method::load(
    fb::ExecutionPlan* s_plan,
    const Program* program,
    MemoryManager* memory_manager,
    EventTracer* event_tracer,
    const NamedDataMap* named_data_map,
    const LoadBackendOptionsMap* backend_options,
    Span<const Kernel> kernel_registry,
    const MethodLoadConfig& config) {
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
  Error err = method.init(s_plan, named_data_map, backend_options, config);
  if (err != Error::Ok) {
    // ~Method releases whatever was set up.
    return err;
  }
  return method;
}

Error Method::init(
    fb::ExecutionPlan* s_plan,
    const NamedDataMap* named_data_map,
    const LoadBackendOptionsMap* backend_options,
    const MethodLoadConfig& config) {
  env_.serialization_plan = s_plan;
  init_state_ = InitializationState::InitializationFailed;
  // Program::load_method validated the plan (program_validation.cpp) before
  // calling load(): required fields exist and every index is in range.
  ET_DCHECK(
      s_plan->name() != nullptr && s_plan->values() != nullptr &&
      s_plan->inputs() != nullptr && s_plan->outputs() != nullptr);
  const char* name = s_plan->name()->c_str();
  MemoryAllocator* method_allocator = env_.memory_manager->method_allocator();

  ET_CHECK_OK_OR_RETURN_ERROR(internal::load_external_constants(
      s_plan,
      named_data_map,
      method_allocator,
      &owned_.external_constants,
      &owned_.n_external_constants));

  const NamedDataMap* delegate_data_map = nullptr;
  ET_CHECK_OK_OR_RETURN_ERROR(make_delegate_data_map(
      *env_.program,
      named_data_map,
      method_allocator,
      &owned_.merged_data_map,
      &delegate_data_map));

  ET_CHECK_OK_OR_RETURN_ERROR(allocate_values(
      s_plan,
      method_allocator,
      &owned_.values,
      &owned_.input_set,
      &owned_.input_writes));
  owned_.n_value = s_plan->values()->size();

  const internal::LoadContext ctx{
      env_.program,
      internal::ProgramAccess::flatbuffer(*env_.program),
      method_allocator,
      env_.memory_manager->planned_memory(),
      named_data_map,
      owned_.external_constants,
      owned_.n_external_constants,
      owned_.values,
      owned_.n_value};
  Error err = internal::parse_values(ctx, s_plan);
  if (err != Error::Ok) {
    ET_LOG(
        Error,
        "method '%s': parsing values failed: error 0x%x",
        name,
        static_cast<unsigned>(err));
    return err;
  }
  assert_io_indices(s_plan, owned_.n_value);

  BackendInitContext init_context(
      method_allocator, env_.event_tracer, name, delegate_data_map, {});
  ET_CHECK_OK_OR_RETURN_ERROR(init_delegates(
      *s_plan,
      *env_.program,
      init_context,
      backend_options,
      &owned_.delegates,
      &owned_.n_delegate));

  ET_CHECK_OK_OR_RETURN_ERROR(internal::build_chains(
      ctx,
      s_plan,
      owned_.n_delegate,
      env_.kernel_registry,
      /*with_op_names=*/env_.event_tracer != nullptr,
      &owned_.chains,
      &owned_.n_chains));

  // What each kernel and delegate writes is known only now.
  ET_CHECK_OK_OR_RETURN_ERROR(internal::validate_write_sets(
      internal::ProgramAccess::flatbuffer(*env_.program),
      s_plan,
      owned_.chains,
      owned_.n_chains,
      owned_.delegates,
      owned_.n_delegate,
      owned_.input_writes));

  if (config.prepare_constants) {
    owned_.prepared = new (std::nothrow) internal::PreparedState();
    if (owned_.prepared == nullptr) {
      return Error::MemoryAllocationFailed;
    }
    ET_CHECK_OK_OR_RETURN_ERROR(internal::prepare_constants(
        s_plan,
        owned_.chains,
        owned_.n_chains,
        owned_.values,
        owned_.n_value,
        owned_.temp_allocator,
        /*assign_layouts=*/!logs_intermediate_outputs(env_.event_tracer),
        owned_.prepared));
  }

  step_state_ = {0, 0};
  init_state_ = InitializationState::Initialized;
  return Error::Ok;
}

size_t Method::prepared_constant_bytes() const {
  return owned_.prepared != nullptr ? owned_.prepared->bytes : 0;
}

size_t Method::channels_last_value_count() const {
  return owned_.prepared != nullptr ? owned_.prepared->n_channels_last : 0;
}

size_t Method::prepared_instruction_count() const {
  return owned_.prepared != nullptr
             ? owned_.prepared->n_folded + owned_.prepared->n_fused +
                   owned_.prepared->n_folded_pairs
             : 0;
}

}  // namespace runtime
}  // namespace executorch
