/*
 * Load-time folding of constant-only data movement (see prepare.h).
 */
#include <executorch/runtime/executor/detail/prepare.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_dimension_limit.h>
#include <executorch/runtime/executor/detail/layout_pass.h>
#include <executorch/runtime/executor/detail/plan_scan.h>
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

/// The last argument of a call (its returned value); callers check the size.
EValue* last(Span<EValue*> args) {
  return args[args.size() - 1];
}

/// The index of an argument in the value table (instruction arguments point
/// into it, see instruction_builder), or n_values for a constant made at load
/// by a folder, which lives outside the table.
size_t index_of(const EValue* values, size_t n_values, const EValue* arg) {
  const uintptr_t p = reinterpret_cast<uintptr_t>(arg);
  const uintptr_t begin = reinterpret_cast<uintptr_t>(values);
  if (p < begin || p >= begin + n_values * sizeof(EValue)) {
    return n_values;
  }
  return (p - begin) / sizeof(EValue);
}

/// How often value v appears among `args` and the items of its list
/// arguments (what count_uses() counted for one instruction).
uint32_t appearances(
    const fb::ExecutionPlan* plan,
    const EValue* values,
    Span<EValue*> args,
    size_t v) {
  const size_t n_values = plan->values()->size();
  uint32_t n = 0;
  for (EValue* a : args) {
    const size_t ai = index_of(values, n_values, a);
    if (ai == n_values) {
      continue;  // a constant made at load
    }
    n += ai == v;
    const auto* l = plan->values()
                        ->Get(static_cast<flatbuffers::uoffset_t>(ai))
                        ->val_as_TensorList();
    if (l != nullptr && l->items() != nullptr) {
      for (const int32_t item : *l->items()) {
        n += static_cast<size_t>(item) == v;
      }
    }
  }
  return n;
}

/// The rewriter a folder gets: replacements are staged, and applied only
/// when the folder folds (else their memory is released).
class StagedRewriter final : public ArgumentRewriter {
 public:
  StagedRewriter(
      PreparedState* state, const Instruction& first, const Instruction& second)
      : state_(state), first_(first), second_(second) {}
  ~StagedRewriter() {
    for (const Replacement& r : staged) {
      state_->release(r.data);
    }
  }

  bool first_is_constant(size_t index) const override {
    return is_constant(first_, index);
  }
  bool second_is_constant(size_t index) const override {
    return is_constant(second_, index);
  }
  void* replace_with_constant(
      size_t index,
      executorch::aten::ScalarType dtype,
      Span<const int32_t> sizes) override {
    if (index >= first_.args.size() || index >= 63) {
      return nullptr;
    }
    void* data = nullptr;
    EValue* value = state_->make_constant_tensor(dtype, sizes, &data);
    if (value == nullptr) {
      return nullptr;
    }
    staged.push_back(Replacement{index, value, data});
    return data;
  }

  struct Replacement {
    size_t index;
    EValue* value;
    void* data;
  };
  std::vector<Replacement> staged;  // cleared once applied

 private:
  static bool is_constant(const Instruction& ins, size_t index) {
    return index < ins.args.size() && index < 63 &&
           ((ins.read_only_args >> index) & 1) != 0 &&
           ins.args[index]->isTensor();
  }
  PreparedState* state_;
  const Instruction& first_;
  const Instruction& second_;
};

/// Load-time rewriting of instruction pairs: `first` writes a value that only
/// `second` (the next instruction that still runs) reads, as its argument 0.
/// A registered folder may fold second into first's constants (first then
/// writes one of second's outputs and may pair again with the instruction
/// after second); a registered fuser may merge the two into one kernel.
class PairRewriter {
 public:
  PairRewriter(
      const fb::ExecutionPlan* plan,
      EValue* values,
      size_t n_values,
      Writes* writes,
      PreparedState* state)
      : plan_(plan),
        values_(values),
        writes_(writes),
        state_(state),
        uses_(count_uses(plan, n_values)) {}

  void run(
      Chain& chain,
      const flatbuffers::Vector<flatbuffers::Offset<fb::Instruction>>* s_ins) {
    const size_t n = chain.n_instructions < s_ins->size() ? chain.n_instructions
                                                          : s_ins->size();
    // A jump may land between the two without running the first.
    std::vector<uint8_t> jump_target(n + 1, 0);
    for (size_t i = 0; i < n; ++i) {
      const auto* j = s_ins->Get(static_cast<flatbuffers::uoffset_t>(i))
                          ->instr_args_as_JumpFalseCall();
      if (j != nullptr && j->destination_instruction() >= 0 &&
          static_cast<size_t>(j->destination_instruction()) <= n) {
        jump_target[static_cast<size_t>(j->destination_instruction())] = 1;
      }
    }
    char first_name[128], second_name[128];
    for (size_t i = 0; i < n; ++i) {
      Instruction& k1 = chain.instructions[i];
      const auto* c1 = s_ins->Get(static_cast<flatbuffers::uoffset_t>(i))
                           ->instr_args_as_KernelCall();
      if (k1.kind != Instruction::Kind::Kernel || c1 == nullptr ||
          !full_op_name(op_of(c1), first_name, sizeof first_name)) {
        continue;
      }
      for (size_t j = i + 1; j < n && !jump_target[j]; ++j) {
        Instruction& k2 = chain.instructions[j];
        if (k2.kind == Instruction::Kind::Prepared) {
          continue;  // does not run: look at the next one
        }
        const auto* c2 = s_ins->Get(static_cast<flatbuffers::uoffset_t>(j))
                             ->instr_args_as_KernelCall();
        if (k2.kind != Instruction::Kind::Kernel || c2 == nullptr ||
            !full_op_name(op_of(c2), second_name, sizeof second_name)) {
          break;
        }
        if (pairs(k1, k2)) {
          const Snapshot before = snapshot(chain, i, n);
          size_t must_fuse = n;
          if (fold(chain, i, j, n, first_name, second_name, &must_fuse)) {
            if (must_fuse == n) {
              continue;  // k1 now writes k2's output: try the next one too
            }
            // The reader at must_fuse writes its output over k1's, which it
            // reads: sound only when it runs inside k1 (which then writes
            // that output directly, reading only its own inputs).
            if (fuse_next(
                    k1, chain, s_ins, must_fuse, jump_target, first_name)) {
              break;
            }
            restore(before, chain, i);
          }
        }
        if (!fuse_run(k1, chain, s_ins, j, jump_target, first_name) &&
            pairs(k1, k2)) {
          fuse(k1, k2, first_name, second_name);
        }
        break;
      }
    }
  }

 private:
  const fb::Operator* op_of(const fb::KernelCall* call) const {
    return plan_->operators()->Get(
        static_cast<flatbuffers::uoffset_t>(call->op_index()));
  }
  size_t idx(const EValue* v) const {
    return index_of(values_, uses_.size(), v);
  }

  /// The first's output (its last two arguments: out and the returned out)
  /// is read by the second alone, as its argument 0.
  bool pairs(const Instruction& k1, const Instruction& k2) const {
    const size_t n1 = k1.args.size(), n2 = k2.args.size();
    if (n1 < 2 || n2 < 2 || n1 + n2 > 63 ||
        k1.args[n1 - 2] != k1.args[n1 - 1] || k2.args[0] != k1.args[n1 - 1]) {
      return false;
    }
    const size_t o1 = idx(k1.args[n1 - 1]);
    return o1 < uses_.size() && writes_->of(static_cast<int64_t>(o1)) == 1 &&
           uses_[o1] == 3;
  }

  /// True if `out` may be written by k1 directly: it shares no storage with
  /// anything k1 reads (planned memory is reused once a value is dead). A
  /// list's tensors are not checked one by one: false then.
  bool may_write(const Instruction& k1, const EValue* out) const {
    for (size_t k = 0; k + 2 < k1.args.size(); ++k) {
      if (k1.args[k] == out || k1.args[k]->isTensorList() ||
          k1.args[k]->isListOptionalTensor() || overlaps(k1.args[k], out)) {
        return false;
      }
    }
    return true;
  }

  bool fold(
      Chain& chain,
      size_t i,
      size_t j,
      size_t n_serialized,
      const char* first_name,
      const char* second_name,
      size_t* must_fuse) {
    Instruction& k1 = chain.instructions[i];
    Instruction& k2 = chain.instructions[j];
    const InstructionFolder folder =
        find_instruction_folder(first_name, second_name);
    if (folder == nullptr) {
      return false;
    }
    StagedRewriter rewrite(state_, k1, k2);
    const int r = folder(k1.args, k2.args, rewrite);
    if (r < 1 || static_cast<size_t>(r) >= k2.args.size()) {
      return false;
    }
    EValue* const out = k2.args[static_cast<size_t>(r)];
    const size_t o1 = idx(last(k1.args)), o = idx(out);
    if (!out->isTensor() || o == o1 || o >= uses_.size() ||
        writes_->of(static_cast<int64_t>(o)) > 1 || !others_unread(k2, o)) {
      return false;
    }
    // When k1 cannot write `out` (it shares storage with an input of k1),
    // k1 keeps writing its own output and the readers of `out` read that.
    const bool redirect = !may_write(k1, out);
    if (redirect &&
        !redirect_readers(chain, i, j, n_serialized, o, must_fuse)) {
      return false;
    }
    const size_t n1 = k1.args.size();
    EValue** args = state_->make_args(n1);
    for (size_t k = 0; k < n1; ++k) {
      args[k] = k1.args[k];
    }
    for (const StagedRewriter::Replacement& rep : rewrite.staged) {
      args[rep.index] = rep.value;
      k1.read_only_args |= uint64_t{1} << rep.index;
    }
    rewrite.staged.clear();
    // k2 no longer reads anything.
    for (EValue* a : k2.args) {
      drop_use(idx(a));
    }
    if (redirect) {
      // The readers of `out` now read o1 (redirect_readers()).
      uses_[o1] += uses_[o];
      uses_[o] = 0;
    } else {
      // k1 writes `out` in place of o1.
      args[n1 - 2] = args[n1 - 1] = out;
      uses_[o1] -= 2;
      uses_[o] += 2;
      writes_->count[o] = 1;
    }
    k1.args = InstructionArgs(args, n1);
    k2.kind = Instruction::Kind::Prepared;
    ++state_->n_folded_pairs;
    return true;
  }

  /// Points every reader of value o (the output of chain instruction j that
  /// a fold keeps) at the output o1 of instruction i instead, for a fold
  /// whose first instruction cannot write o itself (o's storage is one of
  /// its inputs'). True when done; false, changing nothing, unless all of:
  ///  - the chain runs straight through: every instruction is a kernel (or
  ///    one that no longer runs), so chain order is execution order;
  ///  - o is read only as a direct argument of instructions after j in this
  ///    chain (not a list item, a plan output, or in another chain): the
  ///    use count of o equals the appearances found;
  ///  - o1 and o are float tensors of the same shape and dim order, so a
  ///    reader sees the same tensor it would have (the batch norm keeps its
  ///    input's shape and layout);
  ///  - no tensor (or list item) that any instruction from i + 1 to the last
  ///    reader names, other than o and o1, shares storage with o1. Planned
  ///    memory is reused once a value is dead, and o1 was dead after j: a
  ///    value living there could be written before the last reader. With
  ///    no such value, o1's storage holds k1's output from i until the last
  ///    reader, exactly as o's storage held it from j (later rewrites see
  ///    the redirected arguments and check them as they would o).
  ///  The one exception: when the only reader is the next instruction that
  ///  runs and its own output is what shares o1's storage, *must_fuse gets
  ///  its index, and the caller undoes the fold unless that reader fuses into
  ///  instruction i.
  bool redirect_readers(
      Chain& chain, size_t i, size_t j, size_t n, size_t o, size_t* must_fuse) {
    n = chain.n_instructions < n ? chain.n_instructions : n;
    EValue* const out1 = last(chain.instructions[i].args);
    EValue* const out = &values_[o];
    if (!out1->isTensor() || !same_layout(out1->toTensor(), out->toTensor())) {
      return false;
    }
    uint32_t seen = appearances(plan_, values_, chain.instructions[j].args, o);
    size_t last_reader = j, n_readers = 0, next_running = n;
    for (size_t t = 0; t < n; ++t) {
      const Instruction& k = chain.instructions[t];
      if (k.kind != Instruction::Kind::Kernel &&
          k.kind != Instruction::Kind::Prepared) {
        return false;
      }
      if (t <= j) {
        continue;
      }
      uint32_t direct = 0;
      for (EValue* a : k.args) {
        direct += a == out;
      }
      if (direct > 0 && k.kind != Instruction::Kind::Kernel) {
        return false;
      }
      seen += direct;
      last_reader = direct > 0 ? t : last_reader;
      n_readers += direct > 0;
      if (next_running == n && k.kind == Instruction::Kind::Kernel) {
        next_running = t;
      }
    }
    if (seen != uses_[o]) {
      return false;
    }
    for (size_t t = i + 1; t <= last_reader; ++t) {
      const Span<EValue*> args = chain.instructions[t].args;
      const size_t na = args.size();
      if (t == last_reader && n_readers == 1 && t == next_running && na >= 2 &&
          args[na - 2] == args[na - 1] && args[0] == out &&
          !writes_into(Span<EValue*>(args.data(), na - 2), out1, out)) {
        *must_fuse = overlaps(args[na - 1], out1) ? t : n;
        continue;
      }
      if (t != j && writes_into(args, out1, out)) {
        return false;
      }
    }
    for (size_t t = j + 1; t <= last_reader; ++t) {
      Instruction& k = chain.instructions[t];
      bool reads = false;
      for (EValue* a : k.args) {
        reads = reads || a == out;
      }
      if (!reads) {
        continue;
      }
      EValue** args = state_->make_args(k.args.size());
      for (size_t a = 0; a < k.args.size(); ++a) {
        args[a] = k.args[a] == out ? out1 : k.args[a];
      }
      k.args = InstructionArgs(args, k.args.size());
    }
    return true;
  }

  /// What a fold changes (the instructions from i on, the use and write
  /// counts, the counters), to undo one whose reader did not fuse.
  struct Snapshot {
    std::vector<Instruction> instructions;
    std::vector<uint32_t> uses, writes;
    size_t n_folded_pairs;
  };
  Snapshot snapshot(const Chain& chain, size_t i, size_t n) const {
    return Snapshot{
        std::vector<Instruction>(
            chain.instructions + i, chain.instructions + n),
        uses_,
        writes_->count,
        state_->n_folded_pairs};
  }
  void restore(const Snapshot& s, Chain& chain, size_t i) {
    // Constants the fold made for instruction i are released.
    const Instruction& now = chain.instructions[i];
    const Instruction& was = s.instructions[0];
    for (size_t k = 0; k < now.args.size() && k < was.args.size(); ++k) {
      if (now.args[k] != was.args[k] && idx(now.args[k]) == uses_.size() &&
          now.args[k]->isTensor()) {
        state_->release(now.args[k]->toTensor().const_data_ptr());
      }
    }
    for (size_t t = 0; t < s.instructions.size(); ++t) {
      chain.instructions[i + t] = s.instructions[t];
    }
    uses_ = s.uses;
    writes_->count = s.writes;
    state_->n_folded_pairs = s.n_folded_pairs;
  }

  /// Fuses instruction t (and maybe those after it) into k1, by a run fuser
  /// or a pair fuser; true when t no longer runs on its own.
  bool fuse_next(
      Instruction& k1,
      Chain& chain,
      const flatbuffers::Vector<flatbuffers::Offset<fb::Instruction>>* s_ins,
      size_t t,
      const std::vector<uint8_t>& jump_target,
      const char* first_name) {
    Instruction& k = chain.instructions[t];
    const auto* c = s_ins->Get(static_cast<flatbuffers::uoffset_t>(t))
                        ->instr_args_as_KernelCall();
    char name[128];
    if (jump_target[t] || c == nullptr ||
        !full_op_name(op_of(c), name, sizeof name)) {
      return false;
    }
    if (!fuse_run(k1, chain, s_ins, t, jump_target, first_name) &&
        pairs(k1, k)) {
      fuse(k1, k, first_name, name);
    }
    return k.kind == Instruction::Kind::Prepared;
  }

  static bool same_layout(
      const executorch::aten::Tensor& a, const executorch::aten::Tensor& b) {
    if (a.scalar_type() != b.scalar_type() || a.dim() != b.dim()) {
      return false;
    }
    for (ssize_t d = 0; d < a.dim(); ++d) {
      if (a.size(d) != b.size(d) || a.dim_order()[d] != b.dim_order()[d]) {
        return false;
      }
    }
    return true;
  }

  /// True if any tensor among `args` (or the items of a list argument),
  /// other than `keep` and `alias`, may share storage with `keep`.
  bool writes_into(
      Span<EValue*> args, const EValue* keep, const EValue* alias) const {
    auto clashes = [&](const EValue* v) {
      return v != keep && v != alias && overlaps(v, keep);
    };
    for (EValue* a : args) {
      if (clashes(a)) {
        return true;
      }
      const size_t ai = idx(a);
      if (ai >= uses_.size()) {
        continue;  // a constant made at load: its own memory
      }
      const fb::EValue* ev =
          plan_->values()->Get(static_cast<flatbuffers::uoffset_t>(ai));
      const flatbuffers::Vector<int32_t>* items = nullptr;
      if (const auto* l = ev->val_as_TensorList()) {
        items = l->items();
      } else if (const auto* ol = ev->val_as_OptionalTensorList()) {
        items = ol->items();
      }
      if (items == nullptr) {
        continue;
      }
      for (const int32_t item : *items) {
        if (item >= 0 && static_cast<size_t>(item) < uses_.size() &&
            clashes(&values_[static_cast<size_t>(item)])) {
          return true;
        }
      }
    }
    return false;
  }

  /// Every value k2 writes (its last argument, and that list's items) other
  /// than `kept` is read by nobody but k2.
  bool others_unread(const Instruction& k2, size_t kept) const {
    const size_t last_out = idx(last(k2.args));
    if (last_out >= uses_.size()) {
      return false;
    }
    std::vector<size_t> outs{last_out};
    const auto* l = plan_->values()
                        ->Get(static_cast<flatbuffers::uoffset_t>(last_out))
                        ->val_as_TensorList();
    if (l != nullptr && l->items() != nullptr) {
      for (const int32_t item : *l->items()) {
        outs.push_back(static_cast<size_t>(item));
      }
    }
    for (const size_t v : outs) {
      if (v != kept && uses_[v] != appearances(plan_, values_, k2.args, v)) {
        return false;
      }
    }
    return true;
  }

  void drop_use(size_t v) {
    if (v >= uses_.size()) {
      return;  // a constant made at load: not counted
    }
    uses_[v] -= uses_[v] > 0;
    const auto* l = plan_->values()
                        ->Get(static_cast<flatbuffers::uoffset_t>(v))
                        ->val_as_TensorList();
    if (l != nullptr && l->items() != nullptr) {
      for (const int32_t item : *l->items()) {
        uses_[static_cast<size_t>(item)] -=
            uses_[static_cast<size_t>(item)] > 0;
      }
    }
  }

  /// Offers k1 and the instructions that run after it (from j on) to the
  /// run fuser of k1's operator; true when it fused some of them.
  bool fuse_run(
      Instruction& k1,
      Chain& chain,
      const flatbuffers::Vector<flatbuffers::Offset<fb::Instruction>>* s_ins,
      size_t j,
      const std::vector<uint8_t>& jump_target,
      const char* first_name) {
    const RunFuser fuser = find_run_fuser(first_name);
    const size_t n1 = k1.args.size();
    if (fuser == nullptr || n1 < 2 || k1.args[n1 - 2] != k1.args[n1 - 1]) {
      return false;
    }
    constexpr size_t kMaxRun = 8;
    FusionCandidate next[kMaxRun];
    Instruction* ins[kMaxRun];
    char names[kMaxRun][128];
    size_t m = 0;
    const size_t n = jump_target.size() - 1;
    for (; j < n && !jump_target[j] && m < kMaxRun; ++j) {
      Instruction& k = chain.instructions[j];
      if (k.kind == Instruction::Kind::Prepared) {
        continue;
      }
      const auto* c = s_ins->Get(static_cast<flatbuffers::uoffset_t>(j))
                          ->instr_args_as_KernelCall();
      if (k.kind != Instruction::Kind::Kernel || c == nullptr ||
          k.args.size() < 2 ||
          !full_op_name(op_of(c), names[m], sizeof names[m])) {
        break;
      }
      next[m] = FusionCandidate{names[m], k.args, k.read_only_args};
      ins[m++] = &k;
    }
    size_t used = 0;
    const FusedKernel fused =
        m > 0 ? fuser(k1.args, Span<const FusionCandidate>(next, m), &used)
              : nullptr;
    if (fused == nullptr || used < 1 || used > m) {
      return false;
    }
    // The run's members and the values they write: all but the last output
    // must be read inside the run alone (and written once).
    std::vector<Span<EValue*>> members{k1.args};
    size_t total = n1;
    for (size_t t = 0; t < used; ++t) {
      members.push_back(next[t].args);
      total += next[t].args.size();
    }
    EValue* const out = last(next[used - 1].args);
    EValue* const out1 = last(k1.args);
    if (total > 63 || !out->isTensor() || out == out1) {
      return false;
    }
    // When the run's output shares storage with an input of k1 (planned
    // memory reused once that input is dead), k1 keeps writing its own
    // output, which is alive through the run and so apart from both, and the
    // fused kernel writes the run's output from it.
    const bool keep_out1 = !may_write(k1, out);
    if (keep_out1 && overlaps(out1, out)) {
      return false;
    }
    for (size_t t = 0; t + 1 < members.size(); ++t) {
      const size_t v = idx(last(members[t]));
      uint32_t inside = 0;
      for (const Span<EValue*>& member : members) {
        inside += appearances(plan_, values_, member, v);
      }
      if (v >= uses_.size() || values_[v].isTensorList() ||
          writes_->of(static_cast<int64_t>(v)) != 1 || uses_[v] != inside) {
        return false;
      }
    }
    EValue** args = state_->make_args(total);
    size_t k = 0;
    for (EValue* a : k1.args) {
      args[k++] = a == out1 && !keep_out1 ? out : a;
    }
    for (size_t t = 0; t < used; ++t) {
      k1.read_only_args |= next[t].constant_args << k;
      for (EValue* a : next[t].args) {
        args[k++] = a;
      }
      ins[t]->kind = Instruction::Kind::Prepared;
    }
    k1.args = InstructionArgs(args, total);
    k1.kernel = fused;
    state_->n_fused += used;
    return true;
  }

  void fuse(
      Instruction& k1,
      Instruction& k2,
      const char* first_name,
      const char* second_name) {
    EValue* const out2 = last(k2.args);
    if (out2 == last(k1.args) || !may_write(k1, out2)) {
      return;
    }
    const InstructionFuser fuser =
        find_instruction_fuser(first_name, second_name);
    const FusedKernel fused =
        fuser != nullptr ? fuser(k1.args, k2.args) : nullptr;
    if (fused == nullptr) {
      return;
    }
    const size_t n1 = k1.args.size(), n2 = k2.args.size();
    EValue* const out1 = last(k1.args);
    EValue** args = state_->make_args(n1 + n2);
    for (size_t k = 0; k < n1; ++k) {
      args[k] = k1.args[k] == out1 ? out2 : k1.args[k];
    }
    for (size_t k = 0; k < n2; ++k) {
      args[n1 + k] = k2.args[k];
    }
    k1.args = InstructionArgs(args, n1 + n2);
    k1.read_only_args |= k2.read_only_args << n1;
    k1.kernel = fused;
    k2.kind = Instruction::Kind::Prepared;
    ++state_->n_fused;
  }

  const fb::ExecutionPlan* plan_;
  EValue* values_;
  Writes* writes_;
  PreparedState* state_;
  std::vector<uint32_t> uses_;
};

/// Folds and fuses pairs of kernel instructions (PairRewriter) in every
/// chain.
void rewrite_pairs(
    const fb::ExecutionPlan* plan,
    Chain* chains,
    size_t n_chains,
    EValue* values,
    size_t n_values,
    Writes* writes,
    PreparedState* state) {
  PairRewriter rewriter(plan, values, n_values, writes, state);
  const auto* s_chains = plan->chains();
  for (size_t c = 0; c < n_chains && c < s_chains->size(); ++c) {
    rewriter.run(
        chains[c],
        s_chains->Get(static_cast<flatbuffers::uoffset_t>(c))->instructions());
  }
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

/// A tensor made at load: its shape arrays and its EValue (the data is one
/// of the state's buffers).
struct PreparedState::OwnedTensor {
  executorch::aten::SizesType sizes[kTensorDimensionLimit];
  executorch::aten::DimOrderType dim_order[kTensorDimensionLimit];
  executorch::aten::StridesType strides[kTensorDimensionLimit];
  executorch::aten::TensorImpl impl;
  EValue value;
  void* data;

  OwnedTensor(executorch::aten::ScalarType dtype, Span<const int32_t> shape)
      : impl(
            dtype, contiguous_shape(shape), sizes, nullptr, dim_order, strides),
        value(executorch::aten::Tensor(&impl)),
        data(nullptr) {}

 private:
  /// Fills the shape arrays (declared before impl) and returns the rank.
  ssize_t contiguous_shape(Span<const int32_t> shape) {
    int64_t stride = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      sizes[d] = static_cast<executorch::aten::SizesType>(shape[d]);
      dim_order[d] = static_cast<executorch::aten::DimOrderType>(d);
      strides[d] = static_cast<executorch::aten::StridesType>(stride);
      stride *= shape[d];
    }
    return static_cast<ssize_t>(shape.size());
  }
};

PreparedState::~PreparedState() {
  for (const Buffer& b : buffers_) {
    std::free(b.data);
  }
  for (OwnedTensor* t : tensors_) {
    delete t;
  }
}

void* PreparedState::allocate(size_t bytes) {
  // 64-byte aligned like planned memory, so kernels see the same alignment.
  void* p = nullptr;
  const size_t size = bytes == 0 ? 64 : (bytes + 63) / 64 * 64;
  if (size < bytes || posix_memalign(&p, 64, size) != 0) {
    return nullptr;
  }
  buffers_.push_back(Buffer{p, bytes});
  this->bytes += bytes;
  return p;
}

void PreparedState::release(const void* p) {
  for (size_t i = 0; i < buffers_.size(); ++i) {
    if (buffers_[i].data != p) {
      continue;
    }
    for (size_t b = 0; b < blobs_.size(); ++b) {
      if (blobs_[b].data == p) {
        blobs_.erase(blobs_.begin() + static_cast<std::ptrdiff_t>(b));
        break;
      }
    }
    for (size_t t = 0; t < tensors_.size(); ++t) {
      if (tensors_[t]->data == p) {
        delete tensors_[t];
        tensors_.erase(tensors_.begin() + static_cast<std::ptrdiff_t>(t));
        break;
      }
    }
    std::free(buffers_[i].data);
    bytes -= buffers_[i].bytes;
    buffers_.erase(buffers_.begin() + static_cast<std::ptrdiff_t>(i));
    return;
  }
}

EValue* PreparedState::make_constant_tensor(
    executorch::aten::ScalarType dtype,
    Span<const int32_t> sizes,
    void** data) {
  const size_t element = executorch::runtime::elementSize(dtype);
  if (sizes.size() > kTensorDimensionLimit || element == 0 ||
      !executorch::runtime::isValid(dtype)) {
    return nullptr;
  }
  size_t numel = 1;
  for (const int32_t s : sizes) {
    if (s < 0 ||
        (s > 0 && numel > SIZE_MAX / element / static_cast<size_t>(s))) {
      return nullptr;
    }
    numel *= static_cast<size_t>(s);
  }
  OwnedTensor* t = new (std::nothrow) OwnedTensor(dtype, sizes);
  if (t == nullptr) {
    return nullptr;
  }
  t->data = allocate(numel * element);
  if (t->data == nullptr) {
    delete t;
    return nullptr;
  }
  t->impl.set_data(t->data);
  tensors_.push_back(t);
  *data = t->data;
  return &t->value;
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
    bool assign_layouts,
    PreparedState* state) {
  // First, so that the folders, fusers and preparers see the final layouts.
  if (assign_layouts) {
    state->n_channels_last =
        switch_to_channels_last(plan, values, n_values, state->channels_last);
  }
  Writes writes = count_writes(plan, n_values);
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
  rewrite_pairs(plan, chains, n_chains, values, n_values, &writes, state);
  run_preparers(plan, chains, n_chains, temp_allocator, state);
  return Error::Ok;
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
