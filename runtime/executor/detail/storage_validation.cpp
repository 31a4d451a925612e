/*
 * The storage and aliasing rules of one execution plan: what each
 * instruction may read, write, move or free. Part of program validation
 * (validate_execution_plan runs it last, on a plan whose indices and tensors
 * already passed), so they hold before the first instruction runs and
 * execution never re-checks them.
 *
 * Each tensor has one kind of storage, fixed by the file:
 *   planned   allocation_info: a range of a planned buffer (checked in range);
 *   constant  data_buffer_idx (or an EXTERNAL name) without allocation_info:
 *             program data, possibly a read-only mapping;
 *   unbacked  neither: null until something binds it, which is the caller
 *             (set_input / set_output_data_ptr, for plan inputs and outputs)
 *             or executorch_prim::et_view (which points its result at the
 *             viewed tensor's data).
 *
 * Which arguments a kernel or a delegate writes is not decided here: it is
 * a property of the kernel (its signature) and of the delegate's payload,
 * known once Method load has resolved the one and initialized the other
 * (write_validation.h checks it there). A program that names an operator no
 * kernel implements therefore loads, and fails at load_method for the
 * missing operator, as upstream's runtime does.
 */
#include <executorch/runtime/executor/detail/program_validation.h>

#include <cinttypes>
#include <cstring>
#include <vector>

#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/executor/detail/field_path.h>
#include <executorch/runtime/executor/detail/plan_validation.h>
#include <executorch/runtime/platform/log.h>
#include <executorch_schema/program_generated.h>

namespace executorch {
namespace runtime {
namespace detail {

namespace fb = executorch_flatbuffer;

namespace {

enum class Storage : uint8_t { NotATensor, Planned, Constant, Unbacked };

constexpr const char* kViewOp = "executorch_prim::et_view";

// What the plan says about one value, computed once.
struct ValueRole {
  Storage storage = Storage::NotATensor;
  bool input = false;
  bool output = false;
  bool view_result = false;  // the result of an et_view call
};

struct Plan {
  const fb::ExecutionPlan* plan;
  size_t p;  // plan index, for messages
  std::vector<ValueRole> roles;

  const fb::EValue* value(size_t i) const {
    return plan->values()->Get(static_cast<flatbuffers::uoffset_t>(i));
  }
  fb::KernelTypes kind(size_t i) const {
    return value(i)->val_type();
  }
  const fb::Tensor* tensor(size_t i) const {
    return value(i)->val_as_Tensor();
  }
  FieldPath instruction_path(size_t ci, size_t ii) const {
    return FieldPath::plan(p).item("chains", ci).item("instructions", ii);
  }
};

Storage storage_of(const fb::EValue* v) {
  const fb::Tensor* t = v->val_as_Tensor();
  if (t == nullptr) {
    return Storage::NotATensor;
  }
  if (t->allocation_info() != nullptr) {
    return Storage::Planned;
  }
  const auto* extra = t->extra_tensor_info();
  const bool external =
      extra != nullptr && extra->location() == fb::TensorDataLocation::EXTERNAL;
  if (external || t->data_buffer_idx() != 0) {
    return Storage::Constant;
  }
  return Storage::Unbacked;
}

const char* storage_name(Storage s) {
  switch (s) {
    case Storage::Planned:
      return "planned";
    case Storage::Constant:
      return "constant";
    case Storage::Unbacked:
      return "unbacked";
    default:
      return "non-tensor";
  }
}

const char* op_name(const fb::ExecutionPlan* plan, const fb::KernelCall* k) {
  return plan->operators()
      ->Get(static_cast<flatbuffers::uoffset_t>(k->op_index()))
      ->name()
      ->c_str();
}

// Whether a tensor has data when instructions run: its own storage, or a
// binding the caller or an et_view makes.
bool has_storage(const ValueRole& r) {
  return r.storage != Storage::Unbacked || r.input || r.output || r.view_result;
}

// Every tensor a Kernel/Delegate call names must have storage when it runs.
Error check_call(
    const Plan& pl,
    size_t ci,
    size_t ii,
    const char* what,
    const flatbuffers::Vector<int32_t>* args) {
  for (flatbuffers::uoffset_t a = 0; a < args->size(); ++a) {
    Error err = Error::Ok;
    for_each_tensor(pl.plan, args->Get(a), [&](size_t vi) {
      if (err == Error::Ok && !has_storage(pl.roles[vi])) {
        ET_LOG(
            Error,
            "%s.%s.args[%u]: value %zu is a tensor without storage (not "
            "planned, not constant, not a plan input or output, not an et_view "
            "result)",
            pl.instruction_path(ci, ii).c_str(),
            what,
            static_cast<unsigned>(a),
            vi);
        err = Error::InvalidProgram;
      }
    });
    if (err != Error::Ok) {
      return err;
    }
  }
  return Error::Ok;
}

// et_view(self, size, out): out points at self's data, so out's capacity
// must fit in self's, and out must be neither a constant nor an input.
Error check_view(
    const Plan& pl, size_t ci, size_t ii, const fb::KernelCall* k) {
  const size_t self = static_cast<size_t>(k->args()->Get(0));
  const size_t out = static_cast<size_t>(k->args()->Get(2));
  const fb::Tensor* ts = pl.tensor(self);
  const fb::Tensor* to = pl.tensor(out);
  if (ts == nullptr || to == nullptr) {
    return Error::Ok;  // the op refuses non-tensors when it runs
  }
  const ValueRole& r = pl.roles[out];
  ET_CHECK_OR_RETURN_ERROR(
      r.storage != Storage::Constant && !r.input,
      InvalidProgram,
      "%s.KernelCall (et_view): "
      "the result, value %zu (%s%s), cannot be a constant or a plan input",
      pl.instruction_path(ci, ii).c_str(),
      out,
      storage_name(r.storage),
      r.input ? ", plan input" : "");
  size_t self_bytes = 0;
  size_t out_bytes = 0;
  ET_CHECK_OR_RETURN_ERROR(
      tensor_capacity_bytes(ts, &self_bytes) &&
          tensor_capacity_bytes(to, &out_bytes) && out_bytes <= self_bytes,
      InvalidProgram,
      "%s.KernelCall (et_view): "
      "the result, value %zu, can hold %zu bytes, more than the %zu bytes of "
      "the viewed value %zu",
      pl.instruction_path(ci, ii).c_str(),
      out,
      out_bytes,
      self_bytes,
      self);
  return Error::Ok;
}

// A tensor a MoveCall may take or overwrite: planned, and not an et_view
// result (whose data belongs to the viewed tensor and may be smaller than
// the slot it would land in).
bool movable(const ValueRole& r) {
  return r.storage == Storage::Planned && !r.view_result;
}

// MoveCall: the destination slot takes the source's value, so both must be
// of one kind; tensors must be planned (a constant must not reach a mutable
// slot, and a caller-bound slot must keep its own tensor) and of one dtype.
Error check_move(const Plan& pl, size_t ci, size_t ii, const fb::MoveCall* m) {
  const size_t from = static_cast<size_t>(m->move_from());
  const size_t to = static_cast<size_t>(m->move_to());
  const fb::KernelTypes kf = pl.kind(from);
  const fb::KernelTypes kt = pl.kind(to);
  ET_CHECK_OR_RETURN_ERROR(
      kf == kt,
      InvalidProgram,
      "%s.MoveCall: value %zu "
      "(%s) cannot move into value %zu (%s): the kinds differ",
      pl.instruction_path(ci, ii).c_str(),
      from,
      fb::EnumNameKernelTypes(kf),
      to,
      fb::EnumNameKernelTypes(kt));
  ET_CHECK_OR_RETURN_ERROR(
      !pl.roles[to].input,
      InvalidProgram,
      "%s.MoveCall: the "
      "destination, value %zu, is a plan input",
      pl.instruction_path(ci, ii).c_str(),
      to);
  if (kf == fb::KernelTypes::Tensor) {
    const ValueRole& rf = pl.roles[from];
    const ValueRole& rt = pl.roles[to];
    ET_CHECK_OR_RETURN_ERROR(
        movable(rf) && movable(rt),
        InvalidProgram,
        "%s.MoveCall: value "
        "%zu (%s%s) into value %zu (%s%s): only planned tensors that are not "
        "et_view results can be moved",
        pl.instruction_path(ci, ii).c_str(),
        from,
        storage_name(rf.storage),
        rf.view_result ? ", et_view result" : "",
        to,
        storage_name(rt.storage),
        rt.view_result ? ", et_view result" : "");
    ET_CHECK_OR_RETURN_ERROR(
        pl.tensor(from)->scalar_type() == pl.tensor(to)->scalar_type(),
        InvalidProgram,
        "%s.MoveCall: value "
        "%zu and value %zu have different dtypes",
        pl.instruction_path(ci, ii).c_str(),
        from,
        to);
  } else if (is_tensor_or_list(kf)) {
    Error err = Error::Ok;
    for_each_tensor(pl.plan, static_cast<int32_t>(from), [&](size_t vi) {
      if (err == Error::Ok && !movable(pl.roles[vi])) {
        ET_LOG(
            Error,
            "%s.MoveCall: the "
            "moved list (value %zu) holds value %zu (%s%s); only lists of "
            "planned tensors that are not et_view results can be moved",
            pl.instruction_path(ci, ii).c_str(),
            from,
            vi,
            storage_name(pl.roles[vi].storage),
            pl.roles[vi].view_result ? ", et_view result" : "");
        err = Error::InvalidProgram;
      }
    });
    return err;
  }
  return Error::Ok;
}

Error check_instruction(
    const Plan& pl, size_t ci, size_t ii, const fb::Instruction* ins) {
  switch (ins->instr_args_type()) {
    case fb::InstructionArguments::KernelCall: {
      const auto* k = ins->instr_args_as_KernelCall();
      if (is_view_call(pl.plan, ins)) {
        ET_CHECK_OK_OR_RETURN_ERROR(check_view(pl, ci, ii, k));
      }
      return check_call(pl, ci, ii, "KernelCall", k->args());
    }
    case fb::InstructionArguments::DelegateCall:
      return check_call(
          pl,
          ci,
          ii,
          "DelegateCall",
          ins->instr_args_as_DelegateCall()->args());
    case fb::InstructionArguments::MoveCall:
      return check_move(pl, ci, ii, ins->instr_args_as_MoveCall());
    case fb::InstructionArguments::JumpFalseCall: {
      const size_t cond = static_cast<size_t>(
          ins->instr_args_as_JumpFalseCall()->cond_value_index());
      const ValueRole& r = pl.roles[cond];
      ET_CHECK_OR_RETURN_ERROR(
          has_storage(r),
          InvalidProgram,
          "%s.JumpFalseCall: "
          "the condition, value %zu, is a tensor without storage",
          pl.instruction_path(ci, ii).c_str(),
          cond);
      return Error::Ok;
    }
    case fb::InstructionArguments::FreeCall: {
      // Only planned memory is the method's to release; the caller owns
      // inputs and outputs, and constants belong to the program.
      const size_t vi =
          static_cast<size_t>(ins->instr_args_as_FreeCall()->value_index());
      const ValueRole& r = pl.roles[vi];
      ET_CHECK_OR_RETURN_ERROR(
          r.storage == Storage::Planned && !r.input && !r.output,
          InvalidProgram,
          "%s.FreeCall: value "
          "%zu (%s%s) is not a planned intermediate, the only kind a FreeCall "
          "may free",
          pl.instruction_path(ci, ii).c_str(),
          vi,
          storage_name(r.storage),
          r.input ? ", plan input" : (r.output ? ", plan output" : ""));
      return Error::Ok;
    }
    default:
      return Error::Ok;  // unknown kinds were refused earlier
  }
}

}  // namespace

bool is_view_call(const fb::ExecutionPlan* plan, const fb::Instruction* ins) {
  const auto* k = ins->instr_args_as_KernelCall();
  return k != nullptr && std::strcmp(op_name(plan, k), kViewOp) == 0 &&
         k->args()->size() == 3;
}

bool is_view_result(const fb::ExecutionPlan* plan, size_t value_index) {
  const auto* chains = plan->chains();
  for (flatbuffers::uoffset_t ci = 0; ci < chains->size(); ++ci) {
    const auto* ins = chains->Get(ci)->instructions();
    for (flatbuffers::uoffset_t ii = 0; ii < ins->size(); ++ii) {
      if (is_view_call(plan, ins->Get(ii)) &&
          static_cast<size_t>(
              ins->Get(ii)->instr_args_as_KernelCall()->args()->Get(2)) ==
              value_index) {
        return true;
      }
    }
  }
  return false;
}

bool is_constant_tensor(const fb::EValue* v) {
  return storage_of(v) == Storage::Constant;
}

Error validate_storage_rules(const fb::ExecutionPlan* plan, size_t p) {
  Plan pl{plan, p, {}};
  const size_t n = plan->values()->size();
  pl.roles.resize(n);  // bounded: each value takes file bytes
  for (size_t i = 0; i < n; ++i) {
    pl.roles[i].storage = storage_of(pl.value(i));
  }
  for (flatbuffers::uoffset_t i = 0; i < plan->inputs()->size(); ++i) {
    const size_t vi = static_cast<size_t>(plan->inputs()->Get(i));
    pl.roles[vi].input = true;
    // set_input copies the caller's data into a planned input; a constant
    // one would be overwritten.
    ET_CHECK_OR_RETURN_ERROR(
        pl.roles[vi].storage != Storage::Constant,
        InvalidProgram,
        "%s: value %zu is a constant tensor",
        FieldPath::plan(p).item("inputs", i).c_str(),
        vi);
  }
  for (flatbuffers::uoffset_t i = 0; i < plan->outputs()->size(); ++i) {
    // A constant output is fine (constant methods return one): the caller
    // reads it, and set_output_data_ptr refuses to rebind it.
    pl.roles[static_cast<size_t>(plan->outputs()->Get(i))].output = true;
  }
  const auto* chains = plan->chains();
  for (flatbuffers::uoffset_t ci = 0; ci < chains->size(); ++ci) {
    const auto* ins = chains->Get(ci)->instructions();
    for (flatbuffers::uoffset_t ii = 0; ii < ins->size(); ++ii) {
      if (is_view_call(plan, ins->Get(ii))) {
        const size_t out = static_cast<size_t>(
            ins->Get(ii)->instr_args_as_KernelCall()->args()->Get(2));
        pl.roles[out].view_result = true;
      }
    }
  }
  for (flatbuffers::uoffset_t ci = 0; ci < chains->size(); ++ci) {
    const auto* ins = chains->Get(ci)->instructions();
    for (flatbuffers::uoffset_t ii = 0; ii < ins->size(); ++ii) {
      Error err = check_instruction(pl, ci, ii, ins->Get(ii));
      if (err != Error::Ok) {
        return err;
      }
    }
  }
  return Error::Ok;
}

}  // namespace detail
}  // namespace runtime
}  // namespace executorch
