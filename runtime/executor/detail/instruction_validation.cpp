/*
 * Program validation of plan.delegates and plan.chains: delegate payload
 * references and compile specs; instruction kinds, operator / delegate /
 * value indices and jump destinations.
 */
#include <cinttypes>

#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/executor/detail/plan_validation.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {
namespace detail {

namespace fb = executorch_flatbuffer;

namespace {

Error validate_delegate(const PlanContext& c, size_t i) {
  const auto path = [&]() { return c.path().item("delegates", i); };
  const auto* d =
      c.plan->delegates()->Get(static_cast<flatbuffers::uoffset_t>(i));
  ET_CHECK_OR_RETURN_ERROR(
      d != nullptr && d->id() != nullptr,
      InvalidProgram,
      "%s is missing",
      path().field("id").c_str());
  ET_CHECK_OR_RETURN_ERROR(
      d->processed() != nullptr,
      InvalidProgram,
      "%s is missing",
      path().field("processed").c_str());
  const auto loc = d->processed()->location();
  const uint32_t idx = d->processed()->index();
  const size_t n_inline = vsize(c.program->backend_delegate_data());
  const size_t n_segments = vsize(c.program->segments());
  switch (loc) {
    case fb::DataLocation::INLINE:
      ET_CHECK_OR_RETURN_ERROR(
          idx < n_inline,
          InvalidProgram,
          "%s %" PRIu32 " out of range (%zu backend_delegate_data entries)",
          path().field("processed").field("index").c_str(),
          idx,
          n_inline);
      break;
    case fb::DataLocation::SEGMENT:
      ET_CHECK_OR_RETURN_ERROR(
          idx < n_segments,
          InvalidProgram,
          "%s %" PRIu32 " out of range (%zu segments)",
          path().field("processed").field("index").c_str(),
          idx,
          n_segments);
      break;
    default:
      ET_CHECK_OR_RETURN_ERROR(
          false,
          InvalidProgram,
          "%s %d is not a valid DataLocation",
          path().field("processed").field("location").c_str(),
          static_cast<int>(loc));
  }
  const auto* specs = d->compile_specs();
  for (flatbuffers::uoffset_t s = 0; s < vsize(specs); ++s) {
    ET_CHECK_OR_RETURN_ERROR(
        specs->Get(s) != nullptr && specs->Get(s)->key() != nullptr,
        InvalidProgram,
        "%s is missing",
        path().item("compile_specs", s).field("key").c_str());
  }
  return Error::Ok;
}

/// One instruction and where it sits, for messages.
struct InstructionSite {
  const PlanContext& c;
  size_t ci;
  size_t ii;
  size_t chain_length;

  /// "execution_plan[p].chains[ci].instructions[ii].<kind>.<field>".
  FieldPath path(const char* kind, const char* field) const {
    return c.instruction_path(ci, ii).field(kind).field(field);
  }
};

Error validate_value_index(
    const InstructionSite& s,
    const char* kind,
    const char* field,
    int32_t index) {
  ET_CHECK_OR_RETURN_ERROR(
      index_in_range(index, s.c.num_values),
      InvalidProgram,
      "%s = %" PRId32 " is not a value index (%zu values)",
      s.path(kind, field).c_str(),
      index,
      s.c.num_values);
  return Error::Ok;
}

Error validate_args(
    const InstructionSite& s,
    const char* kind,
    const flatbuffers::Vector<int32_t>* args) {
  ET_CHECK_OR_RETURN_ERROR(
      args != nullptr,
      InvalidProgram,
      "%s is missing",
      s.path(kind, "args").c_str());
  for (flatbuffers::uoffset_t a = 0; a < args->size(); ++a) {
    ET_CHECK_OR_RETURN_ERROR(
        index_in_range(args->Get(a), s.c.num_values),
        InvalidProgram,
        "%s = %" PRId32 " is not a value index (%zu values)",
        s.path(kind, "args").at(a).c_str(),
        args->Get(a),
        s.c.num_values);
  }
  return Error::Ok;
}

Error validate_kernel_call(const InstructionSite& s, const fb::KernelCall* k) {
  const size_t nops = vsize(s.c.plan->operators());
  ET_CHECK_OR_RETURN_ERROR(
      index_in_range(k->op_index(), nops),
      InvalidProgram,
      "%s %" PRId32 " out of range (%zu operators)",
      s.path("KernelCall", "op_index").c_str(),
      k->op_index(),
      nops);
  return validate_args(s, "KernelCall", k->args());
}

Error validate_delegate_call(
    const InstructionSite& s, const fb::DelegateCall* d) {
  const size_t nd = vsize(s.c.plan->delegates());
  ET_CHECK_OR_RETURN_ERROR(
      index_in_range(d->delegate_index(), nd),
      InvalidProgram,
      "%s %" PRId32 " out of range (%zu delegates)",
      s.path("DelegateCall", "delegate_index").c_str(),
      d->delegate_index(),
      nd);
  return validate_args(s, "DelegateCall", d->args());
}

/**
 * The rule for jump destinations: 0 <= destination_instruction <= the chain
 * length. Jumping to the chain length ends the chain; anything else is
 * refused here, so execution (detail/execution.cpp) takes the decoded
 * destination as it is.
 */
Error validate_jump_false_call(
    const InstructionSite& s, const fb::JumpFalseCall* j) {
  ET_CHECK_OK_OR_RETURN_ERROR(validate_value_index(
      s, "JumpFalseCall", "cond_value_index", j->cond_value_index()));
  const int32_t dst = j->destination_instruction();
  ET_CHECK_OR_RETURN_ERROR(
      dst >= 0 && static_cast<size_t>(dst) <= s.chain_length,
      InvalidProgram,
      "%s %" PRId32 " out of range [0, %zu]",
      s.path("JumpFalseCall", "destination_instruction").c_str(),
      dst,
      s.chain_length);
  return Error::Ok;
}

Error validate_free_call(const InstructionSite& s, const fb::FreeCall* f) {
  ET_CHECK_OK_OR_RETURN_ERROR(
      validate_value_index(s, "FreeCall", "value_index", f->value_index()));
  const auto vt = value_type(s.c, static_cast<size_t>(f->value_index()));
  ET_CHECK_OR_RETURN_ERROR(
      vt == fb::KernelTypes::Tensor,
      InvalidProgram,
      "%s %" PRId32 " refers to a %s value, not a tensor",
      s.path("FreeCall", "value_index").c_str(),
      f->value_index(),
      fb::EnumNameKernelTypes(vt));
  return Error::Ok;
}

Error validate_instruction(
    const InstructionSite& s, const fb::Instruction* ins) {
  const auto path = [&]() { return s.c.instruction_path(s.ci, s.ii); };
  ET_CHECK_OR_RETURN_ERROR(
      ins != nullptr, InvalidProgram, "%s is null", path().c_str());
  const unsigned t = static_cast<unsigned>(ins->instr_args_type());
  ET_CHECK_OR_RETURN_ERROR(
      t >= static_cast<unsigned>(fb::InstructionArguments::KernelCall) &&
          t <= static_cast<unsigned>(fb::InstructionArguments::MAX),
      InvalidProgram,
      "%s %u is an unknown instruction",
      path().field("instr_args_type").c_str(),
      t);
  ET_CHECK_OR_RETURN_ERROR(
      ins->instr_args() != nullptr,
      InvalidProgram,
      "%s is missing",
      path().field("instr_args").c_str());
  switch (ins->instr_args_type()) {
    case fb::InstructionArguments::KernelCall:
      return validate_kernel_call(s, ins->instr_args_as_KernelCall());
    case fb::InstructionArguments::DelegateCall:
      return validate_delegate_call(s, ins->instr_args_as_DelegateCall());
    case fb::InstructionArguments::MoveCall: {
      const auto* m = ins->instr_args_as_MoveCall();
      ET_CHECK_OK_OR_RETURN_ERROR(
          validate_value_index(s, "MoveCall", "move_from", m->move_from()));
      return validate_value_index(s, "MoveCall", "move_to", m->move_to());
    }
    case fb::InstructionArguments::JumpFalseCall:
      return validate_jump_false_call(s, ins->instr_args_as_JumpFalseCall());
    case fb::InstructionArguments::FreeCall:
      return validate_free_call(s, ins->instr_args_as_FreeCall());
    default:
      return Error::InvalidProgram;  // unreachable: range-checked above
  }
}

}  // namespace

Error validate_delegates(const PlanContext& c) {
  for (size_t i = 0; i < vsize(c.plan->delegates()); ++i) {
    ET_CHECK_OK_OR_RETURN_ERROR(validate_delegate(c, i));
  }
  return Error::Ok;
}

Error validate_chains(const PlanContext& c) {
  const auto* chains = c.plan->chains();
  for (flatbuffers::uoffset_t ci = 0; ci < chains->size(); ++ci) {
    const auto* chain = chains->Get(ci);
    ET_CHECK_OR_RETURN_ERROR(
        chain != nullptr && chain->instructions() != nullptr,
        InvalidProgram,
        "%s is missing",
        c.path().item("chains", ci).field("instructions").c_str());
    const auto* ins = chain->instructions();
    for (flatbuffers::uoffset_t ii = 0; ii < ins->size(); ++ii) {
      const InstructionSite site{c, ci, ii, ins->size()};
      ET_CHECK_OK_OR_RETURN_ERROR(validate_instruction(site, ins->Get(ii)));
    }
  }
  return Error::Ok;
}

}  // namespace detail
}  // namespace runtime
}  // namespace executorch
