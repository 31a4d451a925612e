/*
 * Load-time switch of intermediate activations to channels-last (see
 * layout_pass.h).
 */
#include <executorch/runtime/executor/detail/layout_pass.h>

#include <climits>
#include <cstdint>
#include <new>
#include <vector>

#include <executorch/runtime/core/exec_aten/util/dim_order_util.h>
#include <executorch/runtime/executor/detail/plan_scan.h>
#include <executorch/runtime/executor/detail/plan_validation.h>
#include <executorch/runtime/kernel/prepared_constants.h>

namespace executorch {
namespace runtime {
namespace internal {

namespace fb = ::executorch_flatbuffer;

namespace {

using executorch::aten::TensorImpl;

/// Union-find over the value table: values that must share a dim order.
class LayoutClasses {
 public:
  explicit LayoutClasses(size_t n)
      : parent_(n), pinned_(n, 0), preferred_(n, 0) {
    for (size_t v = 0; v < n; ++v) {
      parent_[v] = static_cast<uint32_t>(v);
    }
  }

  /// Keeps value v (and its class) contiguous; ignores indices out of range.
  void pin(int64_t v) {
    if (in_range(v)) {
      pinned_[static_cast<size_t>(v)] = 1;
    }
  }
  void prefer(int64_t v) {
    if (in_range(v)) {
      preferred_[static_cast<size_t>(v)] = 1;
    }
  }
  void tie(int64_t a, int64_t b) {
    if (in_range(a) && in_range(b)) {
      parent_[root(static_cast<uint32_t>(a))] = root(static_cast<uint32_t>(b));
    }
  }

  /// After every tie: a class is pinned (preferred) when one member is.
  void settle() {
    for (size_t v = 0; v < parent_.size(); ++v) {
      const uint32_t r = root(static_cast<uint32_t>(v));
      pinned_[r] |= pinned_[v];
      preferred_[r] |= preferred_[v];
    }
  }
  bool switches(size_t v) {
    const uint32_t r = root(static_cast<uint32_t>(v));
    return preferred_[r] && !pinned_[r];
  }

 private:
  bool in_range(int64_t v) const {
    return v >= 0 && static_cast<size_t>(v) < parent_.size();
  }
  uint32_t root(uint32_t v) {
    while (parent_[v] != v) {
      parent_[v] = parent_[parent_[v]];
      v = parent_[v];
    }
    return v;
  }
  std::vector<uint32_t> parent_;
  std::vector<uint8_t> pinned_;
  std::vector<uint8_t> preferred_;
};

/// A value the pass may switch, as far as the value alone tells: a 4-D float
/// (or int64: max pool's indices) tensor of static shape, contiguous now,
/// with planned storage (not a constant of the program).
bool may_switch(const fb::ExecutionPlan* plan, const EValue& value, size_t v) {
  if (!value.isTensor()) {
    return false;
  }
  const executorch::aten::Tensor& t = value.toTensor();
  return t.dim() == 4 &&
         (t.scalar_type() == executorch::aten::ScalarType::Float ||
          t.scalar_type() == executorch::aten::ScalarType::Long) &&
         t.shape_dynamism() == TensorShapeDynamism::STATIC &&
         is_contiguous_dim_order(t.dim_order().data(), 4) &&
         !detail::is_constant_tensor(
             plan->values()->Get(static_cast<flatbuffers::uoffset_t>(v)));
}

/// The items of a tensor list value, or null.
const flatbuffers::Vector<int32_t>* list_items(const fb::EValue* ev) {
  if (const auto* l = ev->val_as_TensorList()) {
    return l->items();
  }
  if (const auto* ol = ev->val_as_OptionalTensorList()) {
    return ol->items();
  }
  return nullptr;
}

/// The value a kernel call returns (its last argument), or -1.
int32_t returned_value(const fb::Instruction* ins, size_t n_values) {
  const auto* k = ins->instr_args_as_KernelCall();
  const auto* args = k != nullptr ? k->args() : nullptr;
  const int32_t last =
      args != nullptr && args->size() > 0 ? args->Get(args->size() - 1) : -1;
  return last >= 0 && static_cast<size_t>(last) < n_values ? last : -1;
}

/// A call's last argument is a list of outputs it also takes one by one (a
/// multi-output operator's returned tuple, e.g. batch norm's): its items
/// are described by the call's rule.
bool returns_its_outputs(
    const fb::ExecutionPlan* plan, const fb::KernelCall* call, int32_t list) {
  const auto* args = call->args();
  if (args->size() == 0 || args->Get(args->size() - 1) != list) {
    return false;
  }
  const auto* items = list_items(
      plan->values()->Get(static_cast<flatbuffers::uoffset_t>(list)));
  if (items == nullptr) {
    return false;
  }
  for (const int32_t item : *items) {
    bool passed = false;
    for (flatbuffers::uoffset_t k = 0; k + 1 < args->size() && !passed; ++k) {
      passed = args->Get(k) == item;
    }
    if (!passed) {
      return false;
    }
  }
  return true;
}

/// Pins every tensor held by a list value (the lists' users see the items
/// through the list, which no rule describes), except a returned list of
/// outputs used nowhere else.
void pin_list_items(const fb::ExecutionPlan* plan, LayoutClasses* classes) {
  const size_t n_values = plan->values()->size();
  const std::vector<uint32_t> uses = count_uses(plan, n_values);
  std::vector<uint32_t> returns(n_values, 0);
  for (const fb::Chain* chain : *plan->chains()) {
    for (const fb::Instruction* ins : *chain->instructions()) {
      const int32_t last = returned_value(ins, n_values);
      if (last >= 0) {
        returns[static_cast<size_t>(last)] +=
            returns_its_outputs(plan, ins->instr_args_as_KernelCall(), last);
      }
    }
  }
  for (size_t v = 0; v < n_values; ++v) {
    const auto* items =
        list_items(plan->values()->Get(static_cast<flatbuffers::uoffset_t>(v)));
    if (items == nullptr || (returns[v] == 1 && uses[v] == 1)) {
      continue;
    }
    for (const int32_t item : *items) {
      classes->pin(item);
    }
  }
}

/// Values written by some instruction or bound as an input: count_writes()
/// plus the items of a multi-output call's returned list.
std::vector<uint8_t> written_values(
    const fb::ExecutionPlan* plan, const Writes& writes, size_t n_values) {
  std::vector<uint8_t> written(n_values, 0);
  for (size_t v = 0; v < n_values; ++v) {
    written[v] = writes.of(static_cast<int64_t>(v)) > 0;
  }
  for (const fb::Chain* chain : *plan->chains()) {
    for (const fb::Instruction* ins : *chain->instructions()) {
      const int32_t last = returned_value(ins, n_values);
      const auto* items = last >= 0
                              ? list_items(plan->values()->Get(
                                    static_cast<flatbuffers::uoffset_t>(last)))
                              : nullptr;
      if (items != nullptr) {
        for (const int32_t item : *items) {
          if (item >= 0 && static_cast<size_t>(item) < n_values) {
            written[static_cast<size_t>(item)] = 1;
          }
        }
      }
    }
  }
  return written;
}

/// Per value: the first and last instruction (counted over the chains in
/// order) that names it, directly or as a list item; inputs count as named
/// before the first instruction, outputs after the last.
struct Lifetimes {
  std::vector<int64_t> first, last;
};

Lifetimes lifetimes(const fb::ExecutionPlan* plan, size_t n_values) {
  Lifetimes life{
      std::vector<int64_t>(n_values, INT64_MAX),
      std::vector<int64_t>(n_values, -1)};
  auto touch = [&](int64_t v, int64_t when) {
    if (v < 0 || static_cast<size_t>(v) >= n_values) {
      return;
    }
    const size_t i = static_cast<size_t>(v);
    life.first[i] = when < life.first[i] ? when : life.first[i];
    life.last[i] = when > life.last[i] ? when : life.last[i];
    const auto* items =
        list_items(plan->values()->Get(static_cast<flatbuffers::uoffset_t>(v)));
    if (items != nullptr) {
      for (const int32_t item : *items) {
        if (item >= 0 && static_cast<size_t>(item) < n_values) {
          const size_t j = static_cast<size_t>(item);
          life.first[j] = when < life.first[j] ? when : life.first[j];
          life.last[j] = when > life.last[j] ? when : life.last[j];
        }
      }
    }
  };
  for (const int32_t v : *plan->inputs()) {
    touch(v, 0);
  }
  int64_t when = 1;
  for (const fb::Chain* chain : *plan->chains()) {
    for (const fb::Instruction* ins : *chain->instructions()) {
      if (const auto* k = ins->instr_args_as_KernelCall()) {
        for (const int32_t a : *k->args()) {
          touch(a, when);
        }
      } else if (const auto* d = ins->instr_args_as_DelegateCall()) {
        for (const int32_t a : *d->args()) {
          touch(a, when);
        }
      } else if (const auto* m = ins->instr_args_as_MoveCall()) {
        touch(m->move_from(), when);
        touch(m->move_to(), when);
      }
      ++when;
    }
  }
  for (const int32_t v : *plan->outputs()) {
    touch(v, when);
  }
  return life;
}

bool shares_storage(const EValue& a, const EValue& b) {
  if (!a.isTensor() || !b.isTensor()) {
    return false;
  }
  const executorch::aten::Tensor& ta = a.toTensor();
  const executorch::aten::Tensor& tb = b.toTensor();
  const char* pa = static_cast<const char*>(ta.const_data_ptr());
  const char* pb = static_cast<const char*>(tb.const_data_ptr());
  return pa != nullptr && pb != nullptr && ta.nbytes() > 0 && tb.nbytes() > 0 &&
         pa < pb + tb.nbytes() && pb < pa + ta.nbytes();
}

/// Pins the values a view reads: a planned tensor nothing writes is another
/// value's bytes seen with its own shape (the export turns a view into a
/// second tensor in the same planned place), which assumes the program's dim
/// order. The viewed value is the one in that storage when the view is first
/// used: alive then, or the last one used before.
void pin_viewed_values(
    const fb::ExecutionPlan* plan,
    const EValue* values,
    const std::vector<uint8_t>& written,
    LayoutClasses* classes) {
  const size_t n_values = written.size();
  const Lifetimes life = lifetimes(plan, n_values);
  for (size_t a = 0; a < n_values; ++a) {
    if (written[a] || !values[a].isTensor() || life.last[a] < 0 ||
        detail::is_constant_tensor(
            plan->values()->Get(static_cast<flatbuffers::uoffset_t>(a)))) {
      continue;
    }
    const int64_t used = life.first[a];
    int64_t latest_before = -1;
    for (size_t v = 0; v < n_values; ++v) {
      if (v != a && life.last[v] >= 0 && life.last[v] < used &&
          shares_storage(values[v], values[a])) {
        latest_before =
            life.last[v] > latest_before ? life.last[v] : latest_before;
      }
    }
    for (size_t v = 0; v < n_values; ++v) {
      const bool alive = life.first[v] <= used && used <= life.last[v];
      if ((alive || (life.last[v] == latest_before && latest_before >= 0)) &&
          shares_storage(values[v], values[a])) {
        classes->pin(static_cast<int64_t>(v));
      }
    }
  }
}

/// Applies the layout rule of one kernel call (or pins all its arguments
/// when its operator has none).
void apply_rule(
    const fb::ExecutionPlan* plan,
    const fb::KernelCall* call,
    EValue* values,
    size_t n_values,
    LayoutClasses* classes) {
  const auto* args = call->args();
  char name[128];
  const fb::Operator* op = plan->operators()->Get(
      static_cast<flatbuffers::uoffset_t>(call->op_index()));
  const LayoutRule rule =
      full_op_name(op, name, sizeof name) ? find_layout_rule(name) : nullptr;
  std::vector<EValue*> arg_values;
  bool valid = rule != nullptr;
  for (const int32_t a : *args) {
    valid = valid && a >= 0 && static_cast<size_t>(a) < n_values;
    arg_values.push_back(valid ? &values[a] : nullptr);
  }
  if (!valid) {
    for (const int32_t a : *args) {
      classes->pin(a);
    }
    return;
  }
  std::vector<int32_t> group(args->size(), kLayoutContiguous);
  ArgumentLayouts layout{group.data(), 0};
  rule(Span<EValue*>(arg_values.data(), arg_values.size()), layout);
  for (size_t k = 0; k < group.size(); ++k) {
    const int32_t v = args->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (group[k] == kLayoutContiguous ||
        (group[k] < 0 && group[k] != kLayoutFree)) {
      classes->pin(v);
      continue;
    }
    for (size_t j = 0; j < k && group[k] >= 0; ++j) {
      if (group[j] == group[k]) {
        classes->tie(v, args->Get(static_cast<flatbuffers::uoffset_t>(j)));
        break;
      }
    }
    if (k < 64 && ((layout.prefers_channels_last >> k) & 1u) != 0) {
      classes->prefer(v);
    }
  }
}

/// Gives tensor t the channels-last dim order, with strides to match. The
/// TensorImpl is remade in place (it has no setter for the order); sizes,
/// data and everything else stay as they are.
void make_channels_last(
    executorch::aten::Tensor& t, executorch::aten::DimOrderType* order) {
  TensorImpl* impl = t.unsafeGetTensorImpl();
  const executorch::aten::ScalarType dtype = impl->scalar_type();
  const ssize_t dim = impl->dim();
  auto* sizes = const_cast<TensorImpl::SizesType*>(impl->sizes().data());
  void* data = impl->mutable_data();
  const TensorShapeDynamism dynamism = impl->shape_dynamism();
  const auto device_type = impl->device_type();
  const auto device_index = impl->device_index();
  impl->~TensorImpl();
  // Null strides: the impl computes them from the order into its own
  // storage.
  new (impl) TensorImpl(
      dtype,
      dim,
      sizes,
      data,
      order,
      nullptr,
      dynamism,
      device_type,
      device_index);
}

}  // namespace

size_t switch_to_channels_last(
    const fb::ExecutionPlan* plan,
    EValue* values,
    size_t n_values,
    executorch::aten::DimOrderType* channels_last) {
  LayoutClasses classes(n_values);
  const Writes writes = count_writes(plan, n_values);
  for (size_t v = 0; v < n_values; ++v) {
    if (!may_switch(plan, values[v], v) ||
        writes.of(static_cast<int64_t>(v)) > 1) {
      classes.pin(static_cast<int64_t>(v));
    }
  }
  for (const int32_t v : *plan->inputs()) {
    classes.pin(v);
  }
  for (const int32_t v : *plan->outputs()) {
    classes.pin(v);
  }
  pin_list_items(plan, &classes);
  pin_viewed_values(
      plan, values, written_values(plan, writes, n_values), &classes);
  for (const fb::Chain* chain : *plan->chains()) {
    for (const fb::Instruction* ins : *chain->instructions()) {
      if (const auto* k = ins->instr_args_as_KernelCall()) {
        apply_rule(plan, k, values, n_values, &classes);
      } else if (const auto* d = ins->instr_args_as_DelegateCall()) {
        for (const int32_t a : *d->args()) {
          classes.pin(a);
        }
      } else if (const auto* m = ins->instr_args_as_MoveCall()) {
        classes.pin(m->move_from());
        classes.pin(m->move_to());
      }
    }
  }
  classes.settle();
  size_t n_switched = 0;
  for (size_t v = 0; v < n_values; ++v) {
    if (values[v].isTensor() && classes.switches(v)) {
      make_channels_last(values[v].toTensor(), channels_last);
      ++n_switched;
    }
  }
  return n_switched;
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
