/*
 * The write-set check of Method load (write_validation.h).
 */
#include <executorch/runtime/executor/detail/write_validation.h>

#include <cstring>
#include <vector>

#include <executorch/runtime/executor/detail/field_path.h>
#include <executorch/runtime/executor/detail/program_validation.h>
#include <executorch/runtime/executor/detail/plan_validation.h>
#include <executorch/runtime/executor/detail/tensor_parser.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {
namespace internal {

namespace fb = ::executorch_flatbuffer;

namespace {

constexpr size_t kNoInput = SIZE_MAX;

/// What a write to one value would touch.
struct ValueRole {
  bool constant = false;
  bool view_result = false;
  size_t unplanned_input = kNoInput;  // plan input position, if caller-bound
};

struct PlanView {
  const fb::ExecutionPlan* plan;
  size_t plan_index;
  std::vector<ValueRole> roles;

  const fb::EValue* value(size_t i) const {
    return plan->values()->Get(static_cast<flatbuffers::uoffset_t>(i));
  }
  fb::KernelTypes kind(int32_t i) const {
    return value(static_cast<size_t>(i))->val_type();
  }
};

size_t plan_index_of(
    const fb::Program* program, const fb::ExecutionPlan* plan) {
  const auto* plans = program->execution_plan();
  for (flatbuffers::uoffset_t i = 0; i < plans->size(); ++i) {
    if (plans->Get(i) == plan) {
      return i;
    }
  }
  return 0;  // unreachable: the plan comes from this program
}

PlanView make_view(const fb::Program* program, const fb::ExecutionPlan* plan) {
  PlanView pv{plan, plan_index_of(program, plan), {}};
  const size_t n = plan->values()->size();
  pv.roles.resize(n);  // bounded: each value takes file bytes
  for (size_t i = 0; i < n; ++i) {
    pv.roles[i].constant = detail::is_constant_tensor(pv.value(i));
  }
  const auto* inputs = plan->inputs();
  for (flatbuffers::uoffset_t i = 0; i < inputs->size(); ++i) {
    const size_t vi = static_cast<size_t>(inputs->Get(i));
    const fb::Tensor* t = pv.value(vi)->val_as_Tensor();
    if (t != nullptr && !tensor_is_planned(t) && !pv.roles[vi].constant) {
      pv.roles[vi].unplanned_input = i;
    }
  }
  const auto* chains = plan->chains();
  for (flatbuffers::uoffset_t ci = 0; ci < chains->size(); ++ci) {
    const auto* ins = chains->Get(ci)->instructions();
    for (flatbuffers::uoffset_t ii = 0; ii < ins->size(); ++ii) {
      if (detail::is_view_call(plan, ins->Get(ii))) {
        const size_t out = static_cast<size_t>(
            ins->Get(ii)->instr_args_as_KernelCall()->args()->Get(2));
        pv.roles[out].view_result = true;
      }
    }
  }
  return pv;
}

/// The position rule (write_validation.h) for a call without a write set.
void position_rule(
    const PlanView& pv,
    const flatbuffers::Vector<int32_t>* args,
    bool in_place,
    std::vector<bool>* written) {
  const size_t n = args->size();
  if (n == 0) {
    return;
  }
  const size_t last = n - 1;
  (*written)[last] = true;
  if (in_place) {
    (*written)[0] = true;
  }
  const fb::KernelTypes ret =
      pv.kind(args->Get(static_cast<flatbuffers::uoffset_t>(last)));
  if (ret == fb::KernelTypes::TensorList ||
      ret == fb::KernelTypes::OptionalTensorList) {
    for (size_t i = last; i-- > 0;) {
      if (!detail::is_tensor_or_list(
              pv.kind(args->Get(static_cast<flatbuffers::uoffset_t>(i))))) {
        break;
      }
      (*written)[i] = true;
    }
  }
}

bool ends_in_underscore(const char* name) {
  const size_t len = std::strlen(name);
  return len > 0 && name[len - 1] == '_';
}

/// The written arguments of a KernelCall; `how` says where they came from.
void kernel_written_args(
    const PlanView& pv,
    const Instruction& ins,
    const fb::KernelCall* call,
    std::vector<bool>* written,
    const char** how) {
  const KernelWriteSet* set = find_kernel_write_set(ins.kernel);
  if (set != nullptr) {
    *how = "the kernel's signature";
    for (size_t a = 0; a < written->size() && a < 64; ++a) {
      (*written)[a] = ((set->written >> a) & 1u) != 0;
    }
    return;
  }
  *how = "the position rule";
  const char* name =
      pv.plan->operators()
          ->Get(static_cast<flatbuffers::uoffset_t>(call->op_index()))
          ->name()
          ->c_str();
  position_rule(pv, call->args(), ends_in_underscore(name), written);
}

/// The written arguments of a DelegateCall.
void delegate_written_args(
    const PlanView& pv,
    const BackendDelegate& delegate,
    const fb::DelegateCall* call,
    std::vector<bool>* written,
    const char** how) {
  if (delegate.reported_written_args()) {
    *how = "the backend's report";
    for (size_t a : delegate.written_args()) {
      if (a < written->size()) {
        (*written)[a] = true;
      }
    }
    return;
  }
  *how = "the position rule";
  position_rule(pv, call->args(), /*in_place=*/false, written);
}

/// Why a write to value `vi` is refused, or null if it is allowed.
const char* refusal(const ValueRole& r) {
  if (r.constant) {
    return "a constant tensor";
  }
  if (r.view_result) {
    return "an et_view result (a view of another tensor)";
  }
  return nullptr;
}

struct Site {
  const PlanView& pv;
  size_t ci;
  size_t ii;
  const char* kind;  // "KernelCall" / "DelegateCall"
  const char* name;  // operator or backend
  const char* how;
};

Error check_written(
    const Site& s,
    const flatbuffers::Vector<int32_t>* args,
    const std::vector<bool>& written,
    InputWrite* input_writes) {
  for (flatbuffers::uoffset_t a = 0; a < args->size(); ++a) {
    if (!written[a]) {
      continue;
    }
    Error err = Error::Ok;
    detail::for_each_tensor(s.pv.plan, args->Get(a), [&](size_t vi) {
      const ValueRole& r = s.pv.roles[vi];
      const char* why = refusal(r);
      if (err == Error::Ok && why != nullptr) {
        ET_LOG(
            Error,
            "%s.%s (%s) args[%u]: writes value %zu, %s (written "
            "arguments from %s)",
            detail::FieldPath::plan(s.pv.plan_index)
                .item("chains", s.ci)
                .item("instructions", s.ii)
                .c_str(),
            s.kind,
            s.name,
            static_cast<unsigned>(a),
            vi,
            why,
            s.how);
        err = Error::InvalidProgram;
      }
      if (r.unplanned_input != kNoInput) {
        input_writes[r.unplanned_input].written = true;
      }
    });
    ET_CHECK_OK_OR_RETURN_ERROR(err);
  }
  return Error::Ok;
}

}  // namespace

Error validate_write_sets(
    const fb::Program* program,
    const fb::ExecutionPlan* plan,
    const Chain* chains,
    size_t n_chains,
    const BackendDelegate* delegates,
    size_t n_delegates,
    InputWrite* input_writes) {
  const PlanView pv = make_view(program, plan);
  for (size_t i = 0; i < plan->inputs()->size(); ++i) {
    input_writes[i] = InputWrite{false, nullptr};
  }
  std::vector<bool> written;
  for (size_t ci = 0; ci < n_chains; ++ci) {
    const auto* s_ins = plan->chains()
                            ->Get(static_cast<flatbuffers::uoffset_t>(ci))
                            ->instructions();
    for (size_t ii = 0; ii < chains[ci].n_instructions; ++ii) {
      const Instruction& ins = chains[ci].instructions[ii];
      const fb::Instruction* s =
          s_ins->Get(static_cast<flatbuffers::uoffset_t>(ii));
      const flatbuffers::Vector<int32_t>* args = nullptr;
      Site site{pv, ci, ii, nullptr, nullptr, nullptr};
      if (ins.kind == Instruction::Kind::Kernel) {
        const fb::KernelCall* k = s->instr_args_as_KernelCall();
        args = k->args();
        written.assign(args->size(), false);
        kernel_written_args(pv, ins, k, &written, &site.how);
        site.kind = "KernelCall";
        site.name =
            plan->operators()
                ->Get(static_cast<flatbuffers::uoffset_t>(k->op_index()))
                ->name()
                ->c_str();
      } else if (ins.kind == Instruction::Kind::Delegate) {
        const fb::DelegateCall* d = s->instr_args_as_DelegateCall();
        args = d->args();
        written.assign(args->size(), false);
        ET_DCHECK(ins.a < n_delegates);
        (void)n_delegates;
        delegate_written_args(pv, delegates[ins.a], d, &written, &site.how);
        site.kind = "DelegateCall";
        site.name = delegates[ins.a].id();
      } else {
        continue;  // moves, jumps and frees: storage_validation.cpp
      }
      ET_CHECK_OK_OR_RETURN_ERROR(
          check_written(site, args, written, input_writes));
    }
  }
  return Error::Ok;
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
