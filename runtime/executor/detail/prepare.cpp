/*
 * Load-time folding of constant-only data movement (see prepare.h).
 */
#include <executorch/runtime/executor/detail/prepare.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <executorch/runtime/executor/detail/plan_validation.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/platform/log.h>

#include <executorch_schema/program_generated.h>

namespace executorch {
namespace runtime {
namespace internal {

namespace fb = ::executorch_flatbuffer;

namespace {

/// Operators (name without overload) whose output depends only on their
/// arguments' values and that compute nothing but moved or converted copies:
/// folding them gives the bytes execute() would have produced.
constexpr const char* kFoldableOps[] = {
    "aten::permute_copy",
    "aten::t_copy",
    "aten::transpose_copy",
    "aten::view_copy",
    "aten::expand_copy",
    "aten::_to_copy",
    "dim_order_ops::_to_dim_order_copy",
    "aten::clone",
    "dim_order_ops::_clone_dim_order",
    "aten::alias_copy",
    "aten::unsqueeze_copy",
    "aten::squeeze_copy",
    "aten::slice_copy",
    "aten::select_copy",
};

bool is_foldable_op(const fb::Operator* op) {
  if (op == nullptr || op->name() == nullptr) {
    return false;
  }
  for (const char* name : kFoldableOps) {
    if (std::strcmp(op->name()->c_str(), name) == 0) {
      return true;
    }
  }
  return false;
}

/// An operator that may write any of its arguments (in-place variants end in
/// '_', e.g. aten::copy_ or aten::index_put_).
bool mutates_arguments(const fb::Operator* op) {
  if (op == nullptr || op->name() == nullptr || op->name()->size() == 0) {
    return true;
  }
  const auto* name = op->name();
  return name->c_str()[name->size() - 1] == '_';
}

/// Per value: how many places may write it during execute().
struct Writes {
  std::vector<uint32_t> count;
  void add(int64_t v) {
    if (v >= 0 && static_cast<size_t>(v) < count.size()) {
      ++count[static_cast<size_t>(v)];
    }
  }
  uint32_t of(int64_t v) const {
    return v >= 0 && static_cast<size_t>(v) < count.size()
               ? count[static_cast<size_t>(v)]
               : 1;
  }
};

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

/// A non-tensor argument whose value is fixed in the program: nothing writes
/// it, nor (for an int list) any of the Int values it is made of.
bool is_fixed_scalar_arg(
    const fb::ExecutionPlan* plan, const Writes& w, int32_t v) {
  if (w.of(v) != 0) {
    return false;
  }
  const fb::EValue* ev =
      plan->values()->Get(static_cast<flatbuffers::uoffset_t>(v));
  switch (ev->val_type()) {
    case fb::KernelTypes::Null:
    case fb::KernelTypes::Int:
    case fb::KernelTypes::Bool:
    case fb::KernelTypes::Double:
    case fb::KernelTypes::String:
    case fb::KernelTypes::DoubleList:
    case fb::KernelTypes::BoolList:
      return true;
    case fb::KernelTypes::IntList: {
      const auto* items = ev->val_as_IntList()->items();
      if (items != nullptr) {
        for (const int64_t item : *items) {
          if (w.of(item) != 0) {
            return false;
          }
        }
      }
      return true;
    }
    default:
      return false;
  }
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

bool overlaps(const EValue* a, const EValue* b) {
  if (!a->isTensor() || !b->isTensor()) {
    return false;
  }
  const auto& ta = a->toTensor();
  const auto& tb = b->toTensor();
  const char* pa = static_cast<const char*>(ta.const_data_ptr());
  const char* pb = static_cast<const char*>(tb.const_data_ptr());
  if (pa == nullptr || pb == nullptr) {
    return true;  // storage bound later: assume the worst
  }
  return pa < pb + tb.nbytes() && pb < pa + ta.nbytes();
}

/// Runs registered fusers over pairs of consecutive kernel instructions where
/// the second is the only reader of the first's output. The fused kernel
/// writes the second's output directly, so that output must not share
/// storage with anything the first reads (planned memory is reused once a
/// value is dead).
Error fuse_instructions(
    const fb::ExecutionPlan* plan,
    Chain* chains,
    size_t n_chains,
    EValue* values,
    size_t n_values,
    const Writes& writes,
    PreparedState* state) {
  const std::vector<uint32_t> uses = count_uses(plan, n_values);
  const auto* s_chains = plan->chains();
  char first_name[128], second_name[128];
  for (size_t c = 0; c < n_chains && c < s_chains->size(); ++c) {
    const auto* s_ins =
        s_chains->Get(static_cast<flatbuffers::uoffset_t>(c))->instructions();
    const size_t n = chains[c].n_instructions < s_ins->size()
                         ? chains[c].n_instructions
                         : s_ins->size();
    // A jump may land on the second instruction without running the first.
    std::vector<uint8_t> jump_target(n + 1, 0);
    for (size_t i = 0; i < n; ++i) {
      const auto* j = s_ins->Get(static_cast<flatbuffers::uoffset_t>(i))
                          ->instr_args_as_JumpFalseCall();
      if (j != nullptr && j->destination_instruction() >= 0 &&
          static_cast<size_t>(j->destination_instruction()) <= n) {
        jump_target[static_cast<size_t>(j->destination_instruction())] = 1;
      }
    }
    for (size_t i = 0; i + 1 < n; ++i) {
      Instruction& k1 = chains[c].instructions[i];
      Instruction& k2 = chains[c].instructions[i + 1];
      const auto* c1 = s_ins->Get(static_cast<flatbuffers::uoffset_t>(i))
                           ->instr_args_as_KernelCall();
      const auto* c2 = s_ins->Get(static_cast<flatbuffers::uoffset_t>(i + 1))
                           ->instr_args_as_KernelCall();
      if (k1.kind != Instruction::Kind::Kernel ||
          k2.kind != Instruction::Kind::Kernel || c1 == nullptr ||
          c2 == nullptr || jump_target[i + 1] || c1->args()->size() < 2 ||
          c2->args()->size() < 2 || k1.args.size() + k2.args.size() > 63) {
        continue;
      }
      // The first's output (its last two arguments: out and the returned
      // out) is read by the second alone, as its argument 0.
      const int32_t o1 = c1->args()->Get(c1->args()->size() - 1);
      const int32_t o2 = c2->args()->Get(c2->args()->size() - 1);
      if (c2->args()->Get(0) != o1 || o1 == o2 || writes.of(o1) != 1 ||
          uses[static_cast<size_t>(o1)] != 3 ||
          c1->args()->Get(c1->args()->size() - 2) != o1) {
        continue;
      }
      bool clash = false;
      for (size_t k = 0; k + 2 < k1.args.size(); ++k) {
        // A list's tensors are not checked one by one: no fusion then.
        clash = clash || k1.args[k] == &values[o2] ||
                k1.args[k]->isTensorList() ||
                k1.args[k]->isListOptionalTensor() ||
                overlaps(k1.args[k], &values[o2]);
      }
      if (clash ||
          !full_op_name(
              plan->operators()->Get(
                  static_cast<flatbuffers::uoffset_t>(c1->op_index())),
              first_name,
              sizeof first_name) ||
          !full_op_name(
              plan->operators()->Get(
                  static_cast<flatbuffers::uoffset_t>(c2->op_index())),
              second_name,
              sizeof second_name)) {
        continue;
      }
      const InstructionFuser fuser =
          find_instruction_fuser(first_name, second_name);
      const FusedKernel fused =
          fuser != nullptr ? fuser(k1.args, k2.args) : nullptr;
      if (fused == nullptr) {
        continue;
      }
      const size_t n1 = k1.args.size(), n2 = k2.args.size();
      EValue** args = state->make_args(n1 + n2);
      for (size_t k = 0; k < n1; ++k) {
        args[k] = k1.args[k] == &values[o1] ? &values[o2] : k1.args[k];
      }
      for (size_t k = 0; k < n2; ++k) {
        args[n1 + k] = k2.args[k];
      }
      k1.args = InstructionArgs(args, n1 + n2);
      k1.read_only_args |= k2.read_only_args << n1;
      k1.kernel = fused;
      k2.kind = Instruction::Kind::Prepared;
      ++state->n_fused;
    }
  }
  return Error::Ok;
}

/// Calls the registered preparer (if any) of every remaining kernel
/// instruction that has a constant tensor argument.
void run_preparers(
    const fb::ExecutionPlan* plan,
    Chain* chains,
    size_t n_chains,
    MemoryAllocator* temp_allocator,
    PreparedState* state) {
  const auto* s_chains = plan->chains();
  char name[128];
  for (size_t c = 0; c < n_chains && c < s_chains->size(); ++c) {
    const auto* s_ins =
        s_chains->Get(static_cast<flatbuffers::uoffset_t>(c))->instructions();
    for (size_t i = 0; i < chains[c].n_instructions && i < s_ins->size(); ++i) {
      Instruction& ins = chains[c].instructions[i];
      const auto* call = s_ins->Get(static_cast<flatbuffers::uoffset_t>(i))
                             ->instr_args_as_KernelCall();
      if (ins.kind != Instruction::Kind::Kernel || call == nullptr ||
          ins.read_only_args == 0) {
        continue;
      }
      if (!full_op_name(
              plan->operators()->Get(
                  static_cast<flatbuffers::uoffset_t>(call->op_index())),
              name,
              sizeof name)) {
        continue;
      }
      const ConstantPreparer fn = find_constant_preparer(name);
      if (fn == nullptr) {
        continue;
      }
      KernelRuntimeContext context(nullptr, temp_allocator);
      context.internal_set_read_only_args(ins.read_only_args);
      context.internal_set_prepared_constants(state);
      fn(context, ins.args, *state);
      temp_allocator->reset();
    }
  }
}

}  // namespace

PreparedState::~PreparedState() {
  for (void* p : buffers_) {
    std::free(p);
  }
}

void* PreparedState::allocate(size_t bytes) {
  // 64-byte aligned like planned memory, so kernels see the same alignment.
  void* p = nullptr;
  const size_t size = bytes == 0 ? 64 : (bytes + 63) / 64 * 64;
  if (size < bytes || posix_memalign(&p, 64, size) != 0) {
    return nullptr;
  }
  buffers_.push_back(p);
  this->bytes += bytes;
  return p;
}

EValue** PreparedState::make_args(size_t n) {
  fused_args_.emplace_back(n, nullptr);
  return fused_args_.back().data();
}

const void* PreparedState::find(const void* key, uint32_t tag) const {
  for (const Blob& b : blobs_) {
    if (b.key == key && b.tag == tag) {
      return b.data;
    }
  }
  return nullptr;
}

void* PreparedState::add(const void* key, uint32_t tag, size_t bytes) {
  if (find(key, tag) != nullptr) {
    return nullptr;
  }
  void* p = allocate(bytes);
  if (p != nullptr) {
    blobs_.push_back(Blob{key, tag, p});
  }
  return p;
}

Error prepare_constants(
    const fb::ExecutionPlan* plan,
    Chain* chains,
    size_t n_chains,
    EValue* values,
    size_t n_values,
    MemoryAllocator* temp_allocator,
    PreparedState* state) {
  const Writes writes = count_writes(plan, n_values);
  // Constants of the program, plus outputs folded so far.
  std::vector<uint8_t> constant(n_values, 0);
  for (size_t v = 0; v < n_values; ++v) {
    constant[v] = detail::is_constant_tensor(
        plan->values()->Get(static_cast<flatbuffers::uoffset_t>(v)));
  }
  const auto* s_chains = plan->chains();
  for (size_t c = 0; c < n_chains && c < s_chains->size(); ++c) {
    const auto* s_ins =
        s_chains->Get(static_cast<flatbuffers::uoffset_t>(c))->instructions();
    Chain& chain = chains[c];
    for (size_t i = 0; i < chain.n_instructions && i < s_ins->size(); ++i) {
      Instruction& ins = chain.instructions[i];
      const auto* call = s_ins->Get(static_cast<flatbuffers::uoffset_t>(i))
                             ->instr_args_as_KernelCall();
      if (ins.kind != Instruction::Kind::Kernel || call == nullptr ||
          ins.kernel == nullptr) {
        continue;
      }
      // A later instruction reading a folded value sees it as read-only, as
      // it sees the program's constants.
      const auto* args = call->args();
      for (flatbuffers::uoffset_t k = 0; k < args->size(); ++k) {
        if (constant[static_cast<size_t>(args->Get(k))]) {
          ins.read_only_args |= uint64_t{1} << (k < 63 ? k : 63);
        }
      }
      const fb::Operator* op = plan->operators()->Get(
          static_cast<flatbuffers::uoffset_t>(call->op_index()));
      if (!is_foldable_op(op) || args->size() < 2) {
        continue;
      }
      const int32_t self = args->Get(0);
      const int32_t out = args->Get(args->size() - 1);
      bool foldable = constant[static_cast<size_t>(self)] &&
                      values[out].isTensor() && writes.of(out) == 1 &&
                      !is_plan_output(plan, out) &&
                      !constant[static_cast<size_t>(out)];
      // The out argument also comes last as the call's return value.
      for (flatbuffers::uoffset_t k = 1; foldable && k + 1 < args->size();
           ++k) {
        foldable = args->Get(k) == out ||
                   is_fixed_scalar_arg(plan, writes, args->Get(k));
      }
      if (!foldable) {
        continue;
      }
      executorch::aten::Tensor& t = values[out].toTensor();
      void* const planned = t.mutable_data_ptr();
      const size_t bytes = t.nbytes();
      void* buf = state->allocate(bytes);
      if (buf == nullptr) {
        ET_LOG(
            Error, "prepare: no memory for a %zu-byte folded constant", bytes);
        return Error::MemoryAllocationFailed;
      }
      t.unsafeGetTensorImpl()->set_data(buf);
      KernelRuntimeContext context(nullptr, temp_allocator);
      context.internal_set_read_only_args(ins.read_only_args);
      ins.kernel(context, ins.args);
      temp_allocator->reset();
      if (context.failure_state() != Error::Ok) {
        // Left to execute(), which reports the error where it happens.
        // (Its buffer stays allocated and counted until the Method goes.)
        t.unsafeGetTensorImpl()->set_data(planned);
        continue;
      }
      ++state->n_folded;
      constant[static_cast<size_t>(out)] = 1;
      ins.kind = Instruction::Kind::Prepared;
    }
  }
  ET_CHECK_OK_OR_RETURN_ERROR(fuse_instructions(
      plan, chains, n_chains, values, n_values, writes, state));
  run_preparers(plan, chains, n_chains, temp_allocator, state);
  return Error::Ok;
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
