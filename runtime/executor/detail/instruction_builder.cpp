/*
 * Chain decoding and kernel resolution for Method load (docs/format.md §4.1, §4.4).
 *
 * The plan passed program validation (detail/instruction_validation.cpp)
 * before it gets here: instruction kinds, operator, delegate and value
 * indices and jump destinations are in range, so this file only asserts
 * them in debug builds. What it still checks is what validation cannot
 * know: whether a kernel is registered for each operator.
 */
#include <executorch/runtime/executor/detail/instruction_builder.h>
#include <executorch/runtime/executor/detail/plan_validation.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/executor/detail/flatbuffer_vectors.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {
namespace internal {

namespace fb = ::executorch_flatbuffer;

namespace {

/// Operator names are formatted into a buffer of this size.
constexpr size_t kOperatorNameBufSize = 100;

/// Builds the argument pointer list of a Kernel/Delegate call.
Error build_args(
    const LoadContext& ctx,
    const flatbuffers::Vector<int32_t>* s_args,
    InstructionArgs* out) {
  ET_DCHECK(s_args != nullptr);
  const size_t n = s_args->size();
  EValue** args = allocate_array<EValue*>(ctx.method_allocator, n);
  if (args == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  for (size_t k = 0; k < n; ++k) {
    const int32_t idx = s_args->Get(static_cast<flatbuffers::uoffset_t>(k));
    ET_DCHECK(detail::index_in_range(idx, ctx.n_values));
    args[k] = &ctx.values[idx];
  }
  *out = InstructionArgs(args, n);
  return Error::Ok;
}

/// Bit i (bit 63 for every i from 63 on) for each argument of a KernelCall
/// that is a constant tensor.
uint64_t read_only_args(
    const fb::ExecutionPlan* plan, const flatbuffers::Vector<int32_t>* s_args) {
  uint64_t mask = 0;
  for (size_t k = 0; k < s_args->size(); ++k) {
    const int32_t idx = s_args->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (detail::is_constant_tensor(
            plan->values()->Get(static_cast<flatbuffers::uoffset_t>(idx)))) {
      mask |= uint64_t{1} << (k < 63 ? k : 63);
    }
  }
  return mask;
}

/// State shared by every kernel resolution of one method load.
struct Resolver {
  const fb::ExecutionPlan* plan;
  Span<const Kernel> kernel_registry;
  MemoryAllocator* method_allocator;
  bool with_op_names = false;
  std::vector<TensorMeta> metas;
  std::vector<uint8_t> reported;      // per operator: already logged as missing
  std::vector<const char*> op_names;  // per operator (with_op_names only)
  size_t n_missing = 0;
};

/// The name of operator `op_index` as resolved (`formatted`, `len` chars) for
/// the EventTracer: the flatbuffer's own string when there is no overload,
/// else one copy in method memory per operator. Null on allocation failure.
const char* op_name_for_tracer(
    Resolver& r,
    int32_t op_index,
    const fb::Operator* op,
    const char* formatted,
    size_t len) {
  const char*& slot = r.op_names[static_cast<size_t>(op_index)];
  if (slot != nullptr) {
    return slot;
  }
  if (op->overload() == nullptr || op->overload()->size() == 0) {
    slot = op->name()->c_str();
    return slot;
  }
  char* copy = allocate_array<char>(r.method_allocator, len + 1);
  if (copy != nullptr) {
    std::memcpy(copy, formatted, len + 1);
  }
  slot = copy;
  return slot;
}

/// Resolves one KernelCall. A missing operator is logged (once per
/// operator) and counted; *fn is then null and Ok is returned.
Error resolve_kernel(
    Resolver& r,
    int32_t op_index,
    InstructionArgs args,
    OpFunction* fn,
    const char** op_name) {
  *fn = nullptr;
  *op_name = nullptr;
  const auto* ops = r.plan->operators();
  ET_DCHECK(detail::index_in_range(op_index, detail::vsize(ops)));
  const fb::Operator* op =
      ops->Get(static_cast<flatbuffers::uoffset_t>(op_index));
  ET_DCHECK(op != nullptr && op->name() != nullptr);
  char name[kOperatorNameBufSize];
  const char* overload = op->overload() ? op->overload()->c_str() : "";
  const int len =
      overload[0] != '\0'
          ? std::snprintf(
                name, sizeof(name), "%s.%s", op->name()->c_str(), overload)
          : std::snprintf(name, sizeof(name), "%s", op->name()->c_str());
  if (len < 0 || static_cast<size_t>(len) >= sizeof(name)) {
    ET_LOG(
        Error,
        "operators[%d]: name '%s' is too long (limit %zu characters)",
        op_index,
        op->name()->c_str(),
        kOperatorNameBufSize - 1);
    return Error::Internal;
  }
  if (r.with_op_names) {
    *op_name =
        op_name_for_tracer(r, op_index, op, name, static_cast<size_t>(len));
    if (*op_name == nullptr) {
      return Error::MemoryAllocationFailed;
    }
  }

  // Kernel key: dtype and dim order of every argument that is a Tensor now.
  r.metas.clear();
  for (EValue* a : args) {
    if (a->isTensor()) {
      const executorch::aten::Tensor& t = a->toTensor();
      r.metas.emplace_back(
          t.scalar_type(),
          Span<executorch::aten::DimOrderType>(
              const_cast<executorch::aten::DimOrderType*>(t.dim_order().data()),
              t.dim_order().size()));
    }
  }
  Result<OpFunction> found = get_op_function_from_registry(
      name,
      Span<const TensorMeta>(r.metas.data(), r.metas.size()),
      r.kernel_registry);
  if (found.ok()) {
    *fn = found.get();
    return Error::Ok;
  }
  if (found.error() != Error::OperatorMissing) {
    ET_LOG(
        Error,
        "operator '%s' (operators[%d]) cannot be resolved: error 0x%x",
        name,
        op_index,
        static_cast<unsigned>(found.error()));
    return found.error();
  }
  if (!r.reported[static_cast<size_t>(op_index)]) {
    r.reported[static_cast<size_t>(op_index)] = 1;
    ET_LOG(
        Error,
        "missing operator: '%s' (operators[%d]) has no registered kernel",
        name,
        op_index);
  }
  ++r.n_missing;
  return Error::Ok;
}

Error build_instruction(
    const LoadContext& ctx,
    Resolver& r,
    size_t n_delegates,
    const fb::Instruction* s,
    size_t chain_length,
    Instruction* out) {
  ET_DCHECK(s != nullptr && s->instr_args() != nullptr);
  out->kernel = nullptr;
  out->op_name = nullptr;
  out->args = InstructionArgs();
  out->read_only_args = 0;
  out->a = 0;
  out->b = 0;
  switch (s->instr_args_type()) {
    case fb::InstructionArguments::KernelCall: {
      const fb::KernelCall* k = s->instr_args_as_KernelCall();
      out->kind = Instruction::Kind::Kernel;
      Error err = build_args(ctx, k->args(), &out->args);
      if (err != Error::Ok) {
        return err;
      }
      out->read_only_args = read_only_args(r.plan, k->args());
      return resolve_kernel(
          r, k->op_index(), out->args, &out->kernel, &out->op_name);
    }
    case fb::InstructionArguments::DelegateCall: {
      const fb::DelegateCall* d = s->instr_args_as_DelegateCall();
      out->kind = Instruction::Kind::Delegate;
      ET_DCHECK(detail::index_in_range(d->delegate_index(), n_delegates));
      out->a = static_cast<size_t>(d->delegate_index());
      return build_args(ctx, d->args(), &out->args);
    }
    case fb::InstructionArguments::MoveCall: {
      const fb::MoveCall* m = s->instr_args_as_MoveCall();
      out->kind = Instruction::Kind::Move;
      ET_DCHECK(detail::index_in_range(m->move_from(), ctx.n_values));
      ET_DCHECK(detail::index_in_range(m->move_to(), ctx.n_values));
      out->a = static_cast<size_t>(m->move_from());
      out->b = static_cast<size_t>(m->move_to());
      return Error::Ok;
    }
    case fb::InstructionArguments::JumpFalseCall: {
      const fb::JumpFalseCall* j = s->instr_args_as_JumpFalseCall();
      out->kind = Instruction::Kind::JumpFalse;
      ET_DCHECK(detail::index_in_range(j->cond_value_index(), ctx.n_values));
      out->a = static_cast<size_t>(j->cond_value_index());
      // Validation's rule: 0 <= destination <= chain length (the length
      // itself ends the chain).
      const int32_t dest = j->destination_instruction();
      ET_DCHECK(dest >= 0 && static_cast<size_t>(dest) <= chain_length);
      (void)chain_length;
      out->b = static_cast<size_t>(dest);
      return Error::Ok;
    }
    case fb::InstructionArguments::FreeCall: {
      const fb::FreeCall* f = s->instr_args_as_FreeCall();
      out->kind = Instruction::Kind::Free;
      ET_DCHECK(detail::index_in_range(f->value_index(), ctx.n_values));
      out->a = static_cast<size_t>(f->value_index());
      return Error::Ok;
    }
    default:
      // Validation refuses unknown instruction kinds.
      ET_DCHECK_MSG(false, "unknown instruction kind");
      return Error::Internal;
  }
}

}  // namespace

Error build_chains(
    const LoadContext& ctx,
    const fb::ExecutionPlan* plan,
    size_t n_delegates,
    Span<const Kernel> kernel_registry,
    bool with_op_names,
    Chain** out_chains,
    size_t* out_n_chains) {
  const auto* s_chains = plan->chains();
  ET_DCHECK(s_chains != nullptr && s_chains->size() > 0);
  const size_t n_chains = s_chains->size();
  Chain* chains = allocate_array<Chain>(ctx.method_allocator, n_chains);
  if (chains == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  Resolver r;
  r.plan = plan;
  r.kernel_registry = kernel_registry;
  r.method_allocator = ctx.method_allocator;
  r.with_op_names = with_op_names;
  const size_t n_ops = detail::vsize(plan->operators());
  r.reported.assign(n_ops, 0);
  if (with_op_names) {
    r.op_names.assign(n_ops, nullptr);
  }

  for (size_t c = 0; c < n_chains; ++c) {
    const fb::Chain* s_chain =
        s_chains->Get(static_cast<flatbuffers::uoffset_t>(c));
    ET_DCHECK(s_chain != nullptr && s_chain->instructions() != nullptr);
    const auto* s_instrs = s_chain->instructions();
    const size_t n = s_instrs->size();
    Instruction* instrs = allocate_array<Instruction>(ctx.method_allocator, n);
    if (instrs == nullptr) {
      return Error::MemoryAllocationFailed;
    }
    for (size_t i = 0; i < n; ++i) {
      Error err = build_instruction(
          ctx,
          r,
          n_delegates,
          s_instrs->Get(static_cast<flatbuffers::uoffset_t>(i)),
          n,
          &instrs[i]);
      if (err != Error::Ok) {
        return err;
      }
    }
    chains[c].n_instructions = n;
    chains[c].instructions = instrs;
  }

  if (r.n_missing > 0) {
    size_t distinct = 0;
    for (uint8_t x : r.reported) {
      distinct += x;
    }
    ET_LOG(
        Error,
        "method '%s': %zu operator(s) have no registered kernel (%zu "
        "instruction(s) affected); see the 'missing operator' lines above",
        plan->name() ? plan->name()->c_str() : "?",
        distinct,
        r.n_missing);
    return Error::OperatorMissing;
  }
  *out_chains = chains;
  *out_n_chains = n_chains;
  return Error::Ok;
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
