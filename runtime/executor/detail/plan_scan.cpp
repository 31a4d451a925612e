/*
 * Plan facts shared by the load-time passes (see plan_scan.h).
 */
#include <executorch/runtime/executor/detail/plan_scan.h>

#include <cstdio>

namespace executorch {
namespace runtime {
namespace internal {

namespace fb = ::executorch_flatbuffer;

namespace {

/// An operator that may write any of its arguments (in-place variants end in
/// '_', e.g. aten::copy_ or aten::index_put_).
bool mutates_arguments(const fb::Operator* op) {
  if (op == nullptr || op->name() == nullptr || op->name()->size() == 0) {
    return true;
  }
  const auto* name = op->name();
  return name->c_str()[name->size() - 1] == '_';
}

}  // namespace

Writes count_writes(const fb::ExecutionPlan* plan, size_t n_values) {
  Writes w;
  w.count.assign(n_values, 0);
  for (const int32_t v : *plan->inputs()) {
    w.add(v);
  }
  for (const fb::Chain* chain : *plan->chains()) {
    for (const fb::Instruction* ins : *chain->instructions()) {
      if (const auto* k = ins->instr_args_as_KernelCall()) {
        const auto* args = k->args();
        const fb::Operator* op = plan->operators()->Get(
            static_cast<flatbuffers::uoffset_t>(k->op_index()));
        if (mutates_arguments(op)) {
          for (const int32_t a : *args) {
            w.add(a);
          }
        } else if (args->size() > 0) {
          w.add(args->Get(args->size() - 1));
        }
      } else if (const auto* d = ins->instr_args_as_DelegateCall()) {
        for (const int32_t a : *d->args()) {
          w.add(a);
        }
      } else if (const auto* m = ins->instr_args_as_MoveCall()) {
        w.add(m->move_to());
      }
    }
  }
  return w;
}

bool is_plan_output(const fb::ExecutionPlan* plan, int32_t v) {
  for (const int32_t o : *plan->outputs()) {
    if (o == v) {
      return true;
    }
  }
  return false;
}

/// "name.overload" (or "name") of operator `op` into buf; false if it does
/// not fit.
bool full_op_name(const fb::Operator* op, char* buf, size_t size) {
  if (op == nullptr || op->name() == nullptr) {
    return false;
  }
  const bool overload = op->overload() != nullptr && op->overload()->size() > 0;
  const int len = std::snprintf(
      buf,
      size,
      "%s%s%s",
      op->name()->c_str(),
      overload ? "." : "",
      overload ? op->overload()->c_str() : "");
  return len >= 0 && static_cast<size_t>(len) < size;
}

/// Per value: how many places read or name it (instruction arguments, list
/// items, moves, jump conditions, plan outputs).
std::vector<uint32_t> count_uses(
    const fb::ExecutionPlan* plan, size_t n_values) {
  std::vector<uint32_t> uses(n_values, 0);
  auto use = [&](int64_t v) {
    if (v >= 0 && static_cast<size_t>(v) < n_values) {
      ++uses[static_cast<size_t>(v)];
    }
  };
  for (const int32_t v : *plan->outputs()) {
    use(v);
  }
  for (const fb::EValue* ev : *plan->values()) {
    if (const auto* l = ev->val_as_TensorList()) {
      if (l->items() != nullptr) {
        for (const int32_t v : *l->items()) {
          use(v);
        }
      }
    } else if (const auto* ol = ev->val_as_OptionalTensorList()) {
      if (ol->items() != nullptr) {
        for (const int32_t v : *ol->items()) {
          use(v);
        }
      }
    }
  }
  for (const fb::Chain* chain : *plan->chains()) {
    for (const fb::Instruction* ins : *chain->instructions()) {
      if (const auto* k = ins->instr_args_as_KernelCall()) {
        for (const int32_t a : *k->args()) {
          use(a);
        }
      } else if (const auto* d = ins->instr_args_as_DelegateCall()) {
        for (const int32_t a : *d->args()) {
          use(a);
        }
      } else if (const auto* m = ins->instr_args_as_MoveCall()) {
        use(m->move_from());
        use(m->move_to());
      } else if (const auto* j = ins->instr_args_as_JumpFalseCall()) {
        use(j->cond_value_index());
      }
    }
  }
  return uses;
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
