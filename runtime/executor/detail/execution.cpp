/*
 * Method execution: the instruction loop, step-wise execution and the
 * semantics of each instruction kind (docs/format.md §4.1).
 */
#include <executorch/runtime/executor/method.h>

#include <executorch/runtime/backend/backend_execution_context.h>
#include <executorch/runtime/core/event_tracer_hooks.h>
#include <executorch/runtime/executor/detail/delegate.h>
#include <executorch/runtime/executor/detail/method_internal.h>
#include <executorch/runtime/executor/detail/prepare.h>
#include <executorch/runtime/executor/detail/program_validation.h>
#include <executorch/runtime/executor/detail/tensor_parser.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/platform/log.h>

#include <executorch_schema/program_generated.h>

/// Upper bound on the instructions one execute() may run (guards against
/// JumpFalse loops in a malformed program).
#ifndef ET_MAX_INSTRUCTIONS
#define ET_MAX_INSTRUCTIONS 10000000
#endif

// The experimental/deprecated members are defined here.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace executorch {
namespace runtime {

using internal::Instruction;

namespace {

const char* plan_name(const executorch_flatbuffer::ExecutionPlan* plan) {
  return plan && plan->name() ? plan->name()->c_str() : "?";
}

/// JumpFalse condition: Bool value, or Bool tensor (false if any element is
/// false; an empty tensor is true).
Error read_condition(const EValue& cond, size_t value_index, bool* out) {
  if (cond.isBool()) {
    *out = cond.toBool();
    return Error::Ok;
  }
  if (cond.isTensor()) {
    const executorch::aten::Tensor& t = cond.toTensor();
    if (t.scalar_type() != executorch::aten::ScalarType::Bool) {
      ET_LOG(
          Error,
          "JumpFalseCall: condition value %zu is a tensor of dtype %d, not "
          "Bool",
          value_index,
          static_cast<int>(t.scalar_type()));
      return Error::InvalidProgram;
    }
    const ssize_t n = t.numel();
    // Read as bytes: any non-zero byte is true, and a byte other than 0 or 1
    // (which a bool object may not hold) is never loaded as a bool.
    const uint8_t* data = static_cast<const uint8_t*>(t.const_data_ptr());
    if (n > 0 && data == nullptr) {
      ET_LOG(
          Error,
          "JumpFalseCall: condition tensor (value %zu) has no data",
          value_index);
      return Error::InvalidState;
    }
    bool all = true;
    for (ssize_t i = 0; i < n; ++i) {
      all = all && data[i] != 0;
    }
    *out = all;
    return Error::Ok;
  }
  ET_LOG(
      Error,
      "JumpFalseCall: condition value %zu has kind %u (needs Bool or a Bool "
      "tensor)",
      value_index,
      static_cast<unsigned>(cond.tag));
  return Error::InvalidProgram;
}

/// Plan inputs and outputs without storage of their own get it from the
/// caller (set_input, set_output_data_ptr). A kernel must never see such a
/// tensor with a null data pointer, so execution refuses to start until
/// each one is bound (an input only if it holds data; an output if it can).
/// Looking for an et_view that binds an output happens only for an unbound
/// one, so a bound method pays one pointer test per input and output. An
/// input the method writes in place must still be the buffer set_input
/// checked.
Error check_caller_bindings(
    const executorch_flatbuffer::ExecutionPlan* plan,
    const EValue* values,
    const internal::InputWrite* input_writes) {
  const auto* vals = plan->values();
  for (flatbuffers::uoffset_t i = 0; i < plan->inputs()->size(); ++i) {
    // set_input checked the size of the buffer it bound; a tensor rebound
    // another way (mutable_input) may be smaller than what the method writes.
    const size_t vi = static_cast<size_t>(plan->inputs()->Get(i));
    if (input_writes[i].written &&
        values[vi].toTensor().const_data_ptr() != input_writes[i].bound_data) {
      ET_LOG(
          Error,
          "execute: input %u (value %zu) of method '%s' is written in place "
          "and was not bound with set_input",
          static_cast<unsigned>(i),
          vi,
          plan_name(plan));
      return Error::InvalidState;
    }
  }
  for (int pass = 0; pass < 2; ++pass) {
    const bool inputs = pass == 0;
    const auto* indices = inputs ? plan->inputs() : plan->outputs();
    for (flatbuffers::uoffset_t i = 0; i < indices->size(); ++i) {
      const size_t vi = static_cast<size_t>(indices->Get(i));
      const auto* t =
          vals->Get(static_cast<flatbuffers::uoffset_t>(vi))->val_as_Tensor();
      if (t == nullptr || internal::tensor_is_planned(t) ||
          internal::tensor_is_external_constant(t) || !values[vi].isTensor() ||
          values[vi].toTensor().const_data_ptr() != nullptr) {
        continue;
      }
      if (!inputs && detail::is_view_result(plan, vi)) {
        continue;  // an et_view binds it
      }
      size_t need = values[vi].toTensor().nbytes();
      if (!inputs && !detail::tensor_capacity_bytes(t, &need)) {
        need = 1;  // unknown capacity: a buffer is needed all the same
      }
      if (need > 0) {
        ET_LOG(
            Error,
            "execute: %s %u (value %zu) of method '%s' has no data; bind it "
            "with %s",
            inputs ? "input" : "output",
            static_cast<unsigned>(i),
            vi,
            plan_name(plan),
            inputs ? "set_input" : "set_output_data_ptr");
        return Error::InvalidState;
      }
    }
  }
  return Error::Ok;
}

}  // namespace

Error Method::execute_instruction() {
  const internal::Chain& chain = owned_.chains[step_state_.chain_idx];
  const Instruction& ins = chain.instructions[step_state_.instr_idx];
  size_t next = step_state_.instr_idx + 1;
  Error err = Error::Ok;
  // Events the kernel or delegate reports are attributed to this instruction:
  // chain index and, as upstream does, the instruction index as debug handle.
  internal::EventTracerProfileInstructionScope instruction_scope(
      env_.event_tracer,
      static_cast<ChainID>(step_state_.chain_idx),
      static_cast<DebugHandle>(step_state_.instr_idx));
  switch (ins.kind) {
    case Instruction::Kind::Kernel: {
      KernelRuntimeContext context(env_.event_tracer, owned_.temp_allocator);
      context.internal_set_read_only_args(ins.read_only_args);
      context.internal_set_prepared_constants(owned_.prepared);
      {
        // ins.op_name is set at load whenever the method has a tracer.
        internal::EventTracerProfileOpScope scope(
            env_.event_tracer, ins.op_name);
        ins.kernel(context, ins.args);
      }
      err = context.failure_state();
      if (err == Error::Ok && ins.args.size() > 0) {
        // The output of an out-variant kernel is its last argument (the
        // convention of every kernel in the zoo; further outputs of
        // multi-output kernels are not logged).
        internal::event_tracer_log_evalue(
            env_.event_tracer, *ins.args[ins.args.size() - 1]);
      }
      if (err != Error::Ok) {
        ET_LOG(
            Error,
            "method '%s': kernel at chain %zu instruction %zu failed: error "
            "0x%x",
            plan_name(env_.serialization_plan),
            step_state_.chain_idx,
            step_state_.instr_idx,
            static_cast<unsigned>(err));
      }
      break;
    }
    case Instruction::Kind::Delegate: {
      BackendExecutionContext context(
          env_.event_tracer,
          owned_.temp_allocator,
          plan_name(env_.serialization_plan));
      {
        // Named after the delegate's backend id.
        internal::EventTracerProfileOpScope scope(
            env_.event_tracer, owned_.delegates[ins.a].id());
        err = owned_.delegates[ins.a].Execute(context, ins.args);
      }
      if (err == Error::Ok) {
        // Which delegate arguments are outputs is not known here, so all of
        // them are logged (as upstream does).
        for (size_t i = 0; i < ins.args.size(); ++i) {
          internal::event_tracer_log_evalue(env_.event_tracer, *ins.args[i]);
        }
      }
      if (err != Error::Ok) {
        ET_LOG(
            Error,
            "method '%s': delegate %zu ('%s') failed: error 0x%x",
            plan_name(env_.serialization_plan),
            ins.a,
            owned_.delegates[ins.a].id(),
            static_cast<unsigned>(err));
      }
      break;
    }
    case Instruction::Kind::Move:
      owned_.values[ins.b] = owned_.values[ins.a];
      break;
    case Instruction::Kind::JumpFalse: {
      bool cond = true;
      err = read_condition(owned_.values[ins.a], ins.a, &cond);
      if (err == Error::Ok && !cond) {
        next = ins.b;
      }
      break;
    }
    case Instruction::Kind::Prepared:
      // Its output was computed at load and is a constant now.
      break;
    case Instruction::Kind::Free:
      // Validation allows FreeCall only on planned intermediates. Planned
      // memory belongs to the MemoryManager and outlives every instruction,
      // so there is nothing to release; dropping the data pointer would only
      // hand a null pointer to a later reader (or to the next execute()).
      break;
  }
  // Kernel and delegate scratch never outlives the instruction.
  owned_.temp_allocator->reset();
  if (err == Error::Ok) {
    step_state_.instr_idx = next;
  }
  return err;
}

Error Method::execute() {
  if (!initialized()) {
    ET_LOG(Error, "execute: the method is not loaded");
    return Error::NotSupported;
  }
  if ((step_state_.chain_idx != 0 || step_state_.instr_idx != 0) &&
      step_state_.chain_idx < owned_.n_chains) {
    ET_LOG(Error, "execute: a step()-based execution is in progress");
    return Error::InvalidState;
  }
  const size_t n_inputs = inputs_size();
  for (size_t i = 0; i < n_inputs; ++i) {
    if (!owned_.input_set[i]) {
      ET_LOG(
          Error,
          "execute: input %zu of method '%s' has not been set",
          i,
          plan_name(env_.serialization_plan));
      return Error::InvalidArgument;
    }
  }
  Error bound = check_caller_bindings(
      env_.serialization_plan, owned_.values, owned_.input_writes);
  if (bound != Error::Ok) {
    return bound;
  }
  // One event block (an ETDump RunData) per execute, holding a
  // "Method::execute" event around all of its instructions.
  internal::event_tracer_create_event_block(env_.event_tracer, "Execute");
  EventTracerEntry execute_event = internal::event_tracer_begin_profiling_event(
      env_.event_tracer, "Method::execute");
  owned_.temp_allocator->reset();
  size_t executed = 0;
  for (size_t c = 0; c < owned_.n_chains; ++c) {
    step_state_ = {c, 0};
    const size_t n = owned_.chains[c].n_instructions;
    while (step_state_.instr_idx < n) {
      if (++executed > static_cast<size_t>(ET_MAX_INSTRUCTIONS)) {
        ET_LOG(
            Error,
            "execute: method '%s' ran more than %zu instructions; stopped",
            plan_name(env_.serialization_plan),
            static_cast<size_t>(ET_MAX_INSTRUCTIONS));
        step_state_ = {0, 0};
        return Error::InvalidProgram;
      }
      Error err = execute_instruction();
      if (err != Error::Ok) {
        step_state_ = {0, 0};
        return err;
      }
    }
  }
  internal::event_tracer_end_profiling_event(env_.event_tracer, execute_event);
  log_outputs_to_event_tracer();
  step_state_ = {0, 0};
  return Error::Ok;
}

void Method::log_outputs_to_event_tracer() {
  if (env_.event_tracer == nullptr) {
    return;
  }
  const size_t n = outputs_size();
  for (size_t i = 0; i < n; ++i) {
    internal::event_tracer_log_evalue_output(env_.event_tracer, get_output(i));
  }
}

Error Method::step() {
  if (!initialized()) {
    ET_LOG(Error, "step: the method is not loaded");
    return Error::InvalidState;
  }
  if (step_state_.chain_idx >= owned_.n_chains) {
    return Error::EndOfMethod;
  }
  if (step_state_.chain_idx == 0 && step_state_.instr_idx == 0) {
    Error bound = check_caller_bindings(
        env_.serialization_plan, owned_.values, owned_.input_writes);
    if (bound != Error::Ok) {
      return bound;
    }
  }
  if (step_state_.instr_idx <
      owned_.chains[step_state_.chain_idx].n_instructions) {
    Error err = execute_instruction();
    if (err != Error::Ok) {
      return err;
    }
  }
  if (step_state_.instr_idx >=
      owned_.chains[step_state_.chain_idx].n_instructions) {
    step_state_ = {step_state_.chain_idx + 1, 0};
    if (step_state_.chain_idx == owned_.n_chains) {
      log_outputs_to_event_tracer();
    }
  }
  return Error::Ok;
}

Error Method::experimental_step() {
  return step();
}

bool Method::in_progress() const {
  return initialized() &&
         (step_state_.chain_idx != 0 || step_state_.instr_idx != 0);
}

Error Method::reset_execution() {
  if (!initialized()) {
    ET_LOG(Error, "reset_execution: the method is not loaded");
    return Error::InvalidState;
  }
  if (step_state_.chain_idx != owned_.n_chains) {
    ET_LOG(
        Error,
        "reset_execution: the execution has not reached the end of the "
        "method");
    return Error::InvalidState;
  }
  step_state_ = {0, 0};
  return Error::Ok;
}

Error Method::experimental_reset_execution() {
  return reset_execution();
}

}  // namespace runtime
}  // namespace executorch
