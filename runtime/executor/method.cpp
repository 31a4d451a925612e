/*
 * Method lifetime: load (values, delegates, chains), move, destruction.
 * The input/output API lives in detail/method_io.cpp, execution in
 * detail/execution.cpp.
 */
#include <executorch/runtime/executor/method.h>

#include <new>

#include <executorch/runtime/executor/detail/delegate.h>
#include <executorch/runtime/executor/detail/instruction_builder.h>
#include <executorch/runtime/executor/detail/malloc_temp_allocator.h>
#include <executorch/runtime/executor/detail/merged_data_map.h>
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
      program_(program),
      memory_manager_(memory_manager),
      temp_allocator_(temp_allocator),
      serialization_plan_(nullptr),
      event_tracer_(event_tracer),
      n_value_(0),
      values_(nullptr),
      input_set_(nullptr),
      n_delegate_(0),
      delegates_(nullptr),
      n_chains_(0),
      chains_(nullptr),
      merged_data_map_(nullptr),
      external_constants_(nullptr),
      n_external_constants_(0),
      kernel_registry_(kernel_registry),
      init_state_(InitializationState::Uninitialized) {}

Method::Method(Method&& rhs) noexcept
    : step_state_(rhs.step_state_),
      program_(rhs.program_),
      memory_manager_(rhs.memory_manager_),
      temp_allocator_(rhs.temp_allocator_),
      serialization_plan_(rhs.serialization_plan_),
      event_tracer_(rhs.event_tracer_),
      n_value_(rhs.n_value_),
      values_(rhs.values_),
      input_set_(rhs.input_set_),
      n_delegate_(rhs.n_delegate_),
      delegates_(rhs.delegates_),
      n_chains_(rhs.n_chains_),
      chains_(rhs.chains_),
      merged_data_map_(rhs.merged_data_map_),
      external_constants_(rhs.external_constants_),
      n_external_constants_(rhs.n_external_constants_),
      kernel_registry_(rhs.kernel_registry_),
      init_state_(rhs.init_state_) {
  rhs.step_state_ = {0, 0};
  rhs.program_ = nullptr;
  rhs.memory_manager_ = nullptr;
  rhs.temp_allocator_ = nullptr;
  rhs.serialization_plan_ = nullptr;
  rhs.event_tracer_ = nullptr;
  rhs.n_value_ = 0;
  rhs.values_ = nullptr;
  rhs.input_set_ = nullptr;
  rhs.n_delegate_ = 0;
  rhs.delegates_ = nullptr;
  rhs.n_chains_ = 0;
  rhs.chains_ = nullptr;
  rhs.merged_data_map_ = nullptr;
  rhs.external_constants_ = nullptr;
  rhs.n_external_constants_ = 0;
  rhs.kernel_registry_ = {};
  rhs.init_state_ = InitializationState::Uninitialized;
}

Method::~Method() {
  release();
}

void Method::release() {
  // Delegates first, in index order, each right before its payload is
  // released.
  for (size_t i = 0; i < n_delegate_; ++i) {
    delegates_[i].~BackendDelegate();
  }
  n_delegate_ = 0;
  delegates_ = nullptr;
  for (size_t i = 0; i < n_external_constants_; ++i) {
    external_constants_[i].~ExternalConstant();
  }
  n_external_constants_ = 0;
  external_constants_ = nullptr;
  for (size_t i = 0; i < n_value_; ++i) {
    values_[i].~EValue();
  }
  n_value_ = 0;
  values_ = nullptr;
  if (merged_data_map_ != nullptr) {
    merged_data_map_->~MergedDataMap();
    merged_data_map_ = nullptr;
  }
  // A temp allocator that is not the MemoryManager's was made by load().
  if (temp_allocator_ != nullptr && memory_manager_ != nullptr &&
      temp_allocator_ != memory_manager_->temp_allocator()) {
    static_cast<internal::MallocTempAllocator*>(temp_allocator_)
        ->~MallocTempAllocator();
  }
  temp_allocator_ = nullptr;
  n_chains_ = 0;
  chains_ = nullptr;
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
  serialization_plan_ = s_plan;
  init_state_ = InitializationState::InitializationFailed;
  MemoryAllocator* method_allocator = memory_manager_->method_allocator();
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
      &external_constants_,
      &n_external_constants_);
  if (err != Error::Ok) {
    return err;
  }

  // The named-data view delegates get: user map first, then the program's.
  const NamedDataMap* delegate_data_map = named_data_map;
  {
    Result<const NamedDataMap*> pte_map = program_->get_named_data_map();
    const NamedDataMap* pte =
        pte_map.ok() ? pte_map.get() : static_cast<const NamedDataMap*>(nullptr);
    if (pte != nullptr && named_data_map != nullptr) {
      auto* merged = internal::allocate_array<internal::MergedDataMap>(
          method_allocator, 1);
      if (merged == nullptr) {
        return Error::MemoryAllocationFailed;
      }
      merged_data_map_ = new (merged) internal::MergedDataMap(named_data_map, pte);
      delegate_data_map = merged_data_map_;
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
  values_ = values;
  n_value_ = n_values;
  input_set_ = input_set;

  internal::LoadContext ctx{
      program_,
      program_flatbuffer(program_),
      method_allocator,
      memory_manager_->planned_memory(),
      named_data_map,
      external_constants_,
      n_external_constants_,
      values_,
      n_value_};
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
    if (idx < 0 || static_cast<size_t>(idx) >= n_value_) {
      ET_LOG(
          Error,
          "method '%s': inputs[%zu] = %d is not a value index (%zu values)",
          name,
          i,
          idx,
          n_value_);
      return Error::InvalidProgram;
    }
  }
  for (size_t i = 0; i < s_plan->outputs()->size(); ++i) {
    const int32_t idx =
        s_plan->outputs()->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (idx < 0 || static_cast<size_t>(idx) >= n_value_) {
      ET_LOG(
          Error,
          "method '%s': outputs[%zu] = %d is not a value index (%zu values)",
          name,
          i,
          idx,
          n_value_);
      return Error::InvalidProgram;
    }
  }

  // Delegates, in index order; all must initialize.
  const auto* s_delegates = s_plan->delegates();
  const size_t n_delegates = s_delegates->size();
  delegates_ = internal::allocate_array<internal::BackendDelegate>(
      method_allocator, n_delegates);
  if (delegates_ == nullptr) {
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
        method_allocator, event_tracer_, name, delegate_data_map, runtime_specs);
    err = internal::BackendDelegate::Init(
        *d, i, program_, init_context, &delegates_[i]);
    if (err != Error::Ok) {
      return err;
    }
    n_delegate_ = i + 1;
  }

  // Instructions and kernels.
  err = internal::build_chains(
      ctx,
      s_plan,
      n_delegate_,
      kernel_registry_,
      /*with_op_names=*/event_tracer_ != nullptr,
      &chains_,
      &n_chains_);
  if (err != Error::Ok) {
    return err;
  }

  step_state_ = {0, 0};
  init_state_ = InitializationState::Initialized;
  return Error::Ok;
}

const fb::Program* Method::program_flatbuffer(const Program* program) {
  return program->get_internal_program();
}

Result<FreeableBuffer> Method::program_load_segment(
    const Program* program,
    const DataLoader::SegmentInfo& segment_info) {
  return program->LoadSegment(segment_info);
}

Error Method::program_load_mutable_subsegment_into(
    const Program* program,
    size_t mutable_data_segments_index,
    size_t offset_index,
    size_t size,
    void* buffer) {
  return program->load_mutable_subsegment_into(
      mutable_data_segments_index, offset_index, size, buffer);
}

Error Method::program_backend_delegate_data(
    const Program* program,
    size_t index,
    const void** out_data,
    size_t* out_size) {
  return program->get_backend_delegate_data(index, out_data, out_size);
}

} // namespace runtime
} // namespace executorch
