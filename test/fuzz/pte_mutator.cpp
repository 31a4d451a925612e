// The structure-aware mutator of the .pte targets (libFuzzer's LLVMFuzzerCustomMutator).
//
// Most byte-level mutations of a .pte break the flatbuffer and die in the verifier, so they
// never reach the code that trusts a verified program (method loading, tensor parsing,
// execution). This mutator decodes the input with the generated object API
// (runtime/schema/program.fbs, --gen-object-api), changes one or a few fields of the program
// and re-encodes it with the tests' writer (test/unit/program/pte_writer.h), which re-attaches
// the segments (the "eh00" extended header and the segment data) behind the new flatbuffer.
// Fields get "interesting" values (0, -1, 2^31, 2^32+1, 2^62+1, INT64_MIN/MAX, ...) or small
// steps; some mutations are structural (a value changes kind, an instruction changes kind, an
// operator is renamed, a list grows or shrinks). A quarter of the calls, and every input that
// does not decode, go to libFuzzer's own byte mutator instead.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../unit/program/pte_writer.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

namespace fb = executorch_flatbuffer;
using Rng = std::minstd_rand;

// One mutable scalar field of the decoded program.
struct Slot {
  enum Kind { I8, U8, I32, U32, I64, U64, F64, Flag } kind;
  void* field;
};

// The fields worth changing, gathered from the whole program in groups (tensor fields,
// scalar values and lists, instructions, method-level indices and sizes, segment tables), so
// the few scalars a kernel reads (an arange end, a repeat count) are not drowned out by the
// many tensor sizes of a model.
struct Slots {
  enum Group { Tensors, Values, Instructions, Plan, Segments, NumGroups };
  std::vector<Slot> groups[NumGroups];
  Group current = Plan;
  template <typename T>
  void add(Slot::Kind kind, T* field) {
    groups[current].push_back({kind, field});
  }
  // A slot of a random non-empty group, or null if there is none.
  const Slot* pick(Rng& rng) const {
    std::vector<const std::vector<Slot>*> non_empty;
    for (const auto& g : groups) {
      if (!g.empty())
        non_empty.push_back(&g);
    }
    if (non_empty.empty())
      return nullptr;
    const std::vector<Slot>& g = *non_empty[rng() % non_empty.size()];
    return &g[rng() % g.size()];
  }
  void ints(std::vector<int32_t>& v) {
    for (auto& x : v)
      add(Slot::I32, &x);
  }
  void longs(std::vector<int64_t>& v) {
    for (auto& x : v)
      add(Slot::I64, &x);
  }
};

void gather_tensor(fb::TensorT& t, Slots& s) {
  s.current = Slots::Tensors;
  s.add(Slot::I8, &t.scalar_type);
  s.add(Slot::I32, &t.storage_offset);
  s.ints(t.sizes);
  for (auto& d : t.dim_order)
    s.add(Slot::U8, &d);
  s.add(Slot::U32, &t.data_buffer_idx);
  s.add(Slot::I8, &t.layout);
  s.add(Slot::I8, &t.shape_dynamism);
  if (t.allocation_info) {
    s.add(Slot::U32, &t.allocation_info->memory_id);
    s.add(Slot::U32, &t.allocation_info->memory_offset_low);
    s.add(Slot::U32, &t.allocation_info->memory_offset_high);
  }
  if (t.extra_tensor_info) {
    s.add(Slot::U64, &t.extra_tensor_info->mutable_data_segments_idx);
    s.add(Slot::I8, &t.extra_tensor_info->location);
    s.add(Slot::I8, &t.extra_tensor_info->device_type);
  }
}

void gather_value(fb::EValueT& v, Slots& s) {
  if (auto* t = v.val.AsTensor())
    gather_tensor(*t, s);
  s.current = Slots::Values;
  if (auto* i = v.val.AsInt())
    s.add(Slot::I64, &i->int_val);
  if (auto* b = v.val.AsBool())
    s.add(Slot::Flag, &b->bool_val);
  if (auto* d = v.val.AsDouble())
    s.add(Slot::F64, &d->double_val);
  if (auto* l = v.val.AsIntList())
    s.longs(l->items);
  if (auto* l = v.val.AsDoubleList())
    for (auto& x : l->items)
      s.add(Slot::F64, &x);
  if (auto* l = v.val.AsTensorList())
    s.ints(l->items);
  if (auto* l = v.val.AsOptionalTensorList())
    s.ints(l->items);
}

void gather_instruction(fb::InstructionT& ins, Slots& s) {
  s.current = Slots::Instructions;
  auto& a = ins.instr_args;
  if (auto* k = a.AsKernelCall()) {
    s.add(Slot::I32, &k->op_index);
    s.ints(k->args);
  }
  if (auto* d = a.AsDelegateCall()) {
    s.add(Slot::I32, &d->delegate_index);
    s.ints(d->args);
  }
  if (auto* m = a.AsMoveCall()) {
    s.add(Slot::I32, &m->move_from);
    s.add(Slot::I32, &m->move_to);
  }
  if (auto* j = a.AsJumpFalseCall()) {
    s.add(Slot::I32, &j->cond_value_index);
    s.add(Slot::I32, &j->destination_instruction);
  }
  if (auto* f = a.AsFreeCall())
    s.add(Slot::I32, &f->value_index);
}

void gather_subsegments(fb::SubsegmentOffsetsT& ss, Slots& s) {
  s.current = Slots::Segments;
  s.add(Slot::U32, &ss.segment_index);
  for (auto& o : ss.offsets)
    s.add(Slot::U64, &o);
}

Slots gather(fb::ProgramT& p) {
  Slots s;
  s.add(Slot::U32, &p.version);
  for (auto& plan : p.execution_plan) {
    for (auto& v : plan->values)
      gather_value(*v, s);
    s.current = Slots::Plan;
    s.ints(plan->inputs);
    s.ints(plan->outputs);
    for (auto& c : plan->chains) {
      s.ints(c->inputs);
      s.ints(c->outputs);
      for (auto& ins : c->instructions)
        gather_instruction(*ins, s);
    }
    s.current = Slots::Plan;
    s.longs(plan->non_const_buffer_sizes);
    for (auto& d : plan->non_const_buffer_device)
      s.add(Slot::I32, &d->buffer_idx);
    for (auto& d : plan->delegates) {
      if (d->processed) {
        s.add(Slot::I8, &d->processed->location);
        s.add(Slot::U32, &d->processed->index);
      }
    }
  }
  s.current = Slots::Segments;
  for (auto& seg : p.segments) {
    s.add(Slot::U64, &seg->offset);
    s.add(Slot::U64, &seg->size);
  }
  if (p.constant_segment)
    gather_subsegments(*p.constant_segment, s);
  for (auto& m : p.mutable_data_segments)
    gather_subsegments(*m, s);
  for (auto& n : p.named_data)
    s.add(Slot::U32, &n->segment_index);
  return s;
}

constexpr int64_t kInteresting[] = {
    0,
    1,
    -1,
    2,
    3,
    4,
    7,
    8,
    16,
    17,
    64,
    127,
    128,
    255,
    256,
    4096,
    65535,
    65536,
    int64_t{1} << 31,
    (int64_t{1} << 31) - 1,
    -(int64_t{1} << 31),
    int64_t{1} << 32,
    (int64_t{1} << 32) + 1,
    (int64_t{1} << 32) - 1,
    int64_t{1} << 62,
    (int64_t{1} << 62) + 1,
    std::numeric_limits<int64_t>::min(),
    std::numeric_limits<int64_t>::max(),
};

int64_t pick_int(Rng& rng, int64_t current) {
  // Steps wrap around (unsigned arithmetic): INT64_MAX + 1 is an interesting value too.
  const uint64_t bits = static_cast<uint64_t>(current);
  switch (rng() % 4) {
    case 0:
      return static_cast<int64_t>(bits + 1);
    case 1:
      return static_cast<int64_t>(bits - 1);
    case 2:
      return static_cast<int64_t>(bits << 1);
    default:
      return kInteresting[rng() % (sizeof(kInteresting) / sizeof(kInteresting[0]))];
  }
}

double pick_double(Rng& rng) {
  constexpr double kValues[] = {
      0.0,
      -0.0,
      1.0,
      -1.0,
      0.5,
      1e-310,
      1e308,
      -1e308,
      std::numeric_limits<double>::infinity(),
      -std::numeric_limits<double>::infinity(),
      std::numeric_limits<double>::quiet_NaN(),
      2147483648.0,
      9.3e18,
      -9.3e18,
  };
  return kValues[rng() % (sizeof(kValues) / sizeof(kValues[0]))];
}

template <typename T>
void store(void* field, int64_t v) {
  const T narrowed = static_cast<T>(v);
  std::memcpy(field, &narrowed, sizeof(T));
}

template <typename T>
int64_t load(const void* field) {
  T v;
  std::memcpy(&v, field, sizeof(T));
  return static_cast<int64_t>(v);
}

void mutate_slot(const Slot& s, Rng& rng) {
  switch (s.kind) {
    case Slot::I8:
      store<int8_t>(s.field, pick_int(rng, load<int8_t>(s.field)));
      break;
    case Slot::U8:
      store<uint8_t>(s.field, pick_int(rng, load<uint8_t>(s.field)));
      break;
    case Slot::I32:
      store<int32_t>(s.field, pick_int(rng, load<int32_t>(s.field)));
      break;
    case Slot::U32:
      store<uint32_t>(s.field, pick_int(rng, load<uint32_t>(s.field)));
      break;
    case Slot::I64:
      store<int64_t>(s.field, pick_int(rng, load<int64_t>(s.field)));
      break;
    case Slot::U64:
      store<uint64_t>(s.field, pick_int(rng, load<int64_t>(s.field)));
      break;
    case Slot::F64: {
      const double v = pick_double(rng);
      std::memcpy(s.field, &v, sizeof v);
      break;
    }
    case Slot::Flag:
      *static_cast<bool*>(s.field) = !*static_cast<bool*>(s.field);
      break;
  }
}

template <typename T>
T* pick(std::vector<std::unique_ptr<T>>& v, Rng& rng) {
  return v.empty() ? nullptr : v[rng() % v.size()].get();
}

// A value of another kind in place of `v` (the "tag" of the EValue changes).
void retag_value(fb::EValueT& v, fb::ExecutionPlanT& plan, Rng& rng) {
  const int32_t n = static_cast<int32_t>(plan.values.size());
  switch (rng() % 7) {
    case 0:
      v.val.Set(fb::NullT());
      break;
    case 1: {
      fb::IntT i;
      i.int_val = pick_int(rng, 0);
      v.val.Set(std::move(i));
      break;
    }
    case 2: {
      fb::DoubleT d;
      d.double_val = pick_double(rng);
      v.val.Set(std::move(d));
      break;
    }
    case 3: {
      fb::BoolT b;
      b.bool_val = rng() % 2;
      v.val.Set(std::move(b));
      break;
    }
    case 4: {
      fb::IntListT l;
      for (unsigned k = rng() % 4; k > 0; --k)
        l.items.push_back(n > 0 ? rng() % n : 0);
      v.val.Set(std::move(l));
      break;
    }
    case 5: {
      fb::TensorListT l;
      for (unsigned k = rng() % 4; k > 0; --k)
        l.items.push_back(n > 0 ? rng() % n : 0);
      v.val.Set(std::move(l));
      break;
    }
    default: {
      // A copy of another value (often a tensor where a scalar was, or the reverse).
      fb::EValueT* other = pick(plan.values, rng);
      if (other != nullptr && other != &v) {
        fb::EValueT copy(*other);
        v.val = std::move(copy.val);
      }
      break;
    }
  }
}

// An instruction of another kind in place of `ins`.
void retag_instruction(fb::InstructionT& ins, int32_t num_values, Rng& rng) {
  auto any_value = [&] { return num_values > 0 ? static_cast<int32_t>(rng() % num_values) : 0; };
  switch (rng() % 3) {
    case 0: {
      fb::MoveCallT m;
      m.move_from = any_value();
      m.move_to = any_value();
      ins.instr_args.Set(std::move(m));
      break;
    }
    case 1: {
      fb::FreeCallT f;
      f.value_index = any_value();
      ins.instr_args.Set(std::move(f));
      break;
    }
    default: {
      fb::JumpFalseCallT j;
      j.cond_value_index = any_value();
      j.destination_instruction = static_cast<int32_t>(rng() % 8);
      ins.instr_args.Set(std::move(j));
      break;
    }
  }
}

// Grows or shrinks one list of indices or sizes.
template <typename T>
void resize_list(std::vector<T>& v, Rng& rng) {
  if (!v.empty() && rng() % 2 == 0) {
    v.erase(v.begin() + static_cast<std::ptrdiff_t>(rng() % v.size()));
  } else {
    v.push_back(v.empty() ? T{} : v[rng() % v.size()]);
  }
}

void mutate_structure(fb::ProgramT& p, Rng& rng) {
  fb::ExecutionPlanT* plan = pick(p.execution_plan, rng);
  if (plan == nullptr)
    return;
  const int32_t num_values = static_cast<int32_t>(plan->values.size());
  fb::ChainT* chain = pick(plan->chains, rng);
  fb::InstructionT* ins = chain != nullptr ? pick(chain->instructions, rng) : nullptr;
  switch (rng() % 6) {
    case 0:
      if (fb::EValueT* v = pick(plan->values, rng))
        retag_value(*v, *plan, rng);
      break;
    case 1:
      if (ins != nullptr)
        retag_instruction(*ins, num_values, rng);
      break;
    case 2: {
      // Another operator's name (the kernel gets arguments of a different schema).
      fb::OperatorT* a = pick(plan->operators, rng);
      fb::OperatorT* b = pick(plan->operators, rng);
      if (a != nullptr && b != nullptr) {
        a->name = b->name;
        a->overload = b->overload;
      }
      break;
    }
    case 3:
      if (ins != nullptr) {
        if (auto* k = ins->instr_args.AsKernelCall())
          resize_list(k->args, rng);
      }
      break;
    case 4: {
      fb::EValueT* v = pick(plan->values, rng);
      if (v != nullptr) {
        if (auto* t = v->val.AsTensor()) {
          if (rng() % 4 == 0) {
            // Past the ranks kernels keep in fixed arrays (16): rank 17 to 20, all ones.
            const size_t rank = 17 + rng() % 4;
            t->sizes.assign(rank, 1);
            t->dim_order.resize(rank);
            for (size_t d = 0; d < rank; ++d)
              t->dim_order[d] = static_cast<uint8_t>(d);
          } else if (rng() % 2) {
            resize_list(t->sizes, rng);
          } else {
            resize_list(t->dim_order, rng);
          }
        } else if (auto* l = v->val.AsIntList()) {
          resize_list(l->items, rng);
        } else if (auto* tl = v->val.AsTensorList()) {
          resize_list(tl->items, rng);
        }
      }
      break;
    }
    default:
      if (rng() % 2)
        resize_list(plan->inputs, rng);
      else
        resize_list(plan->outputs, rng);
      break;
  }
}

// A verified flatbuffer may name a union member without storing it (type set, value absent);
// the object API then holds a null value that Pack() would dereference. Such entries become
// Null values and FreeCall instructions, which re-encode.
void make_packable(fb::ProgramT& p) {
  for (auto& plan : p.execution_plan) {
    for (auto& v : plan->values) {
      if (v->val.type != fb::KernelTypes::NONE && v->val.value == nullptr)
        v->val.Set(fb::NullT());
    }
    for (auto& c : plan->chains) {
      for (auto& ins : c->instructions) {
        auto& a = ins->instr_args;
        if (a.type != fb::InstructionArguments::NONE && a.value == nullptr)
          a.Set(fb::FreeCallT());
      }
    }
  }
}

void mutate_program(fb::ProgramT& p, Rng& rng) {
  make_packable(p);
  const unsigned rounds = 1 + rng() % 3;
  for (unsigned r = 0; r < rounds; ++r) {
    if (rng() % 4 == 0) {
      mutate_structure(p, rng);
      continue;
    }
    const Slots slots = gather(p);
    if (const Slot* slot = slots.pick(rng))
      mutate_slot(*slot, rng);
  }
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  Rng rng(seed);
  if (rng() % 4 == 0) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  fb::ProgramT program;
  std::vector<std::vector<uint8_t>> segments;
  if (!et_test::read_pte(std::vector<uint8_t>(data, data + size), &program, &segments)) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  et_test::WriteOptions options;
  // The mutation runs after the writer lays out the segment table, so table entries can be
  // mutated too (the segment bytes stay where the writer put them).
  options.after_layout = [&rng](fb::ProgramT& p) { mutate_program(p, rng); };
  options.segment_alignment = rng() % 8 == 0 ? 16 : 128;
  const et_test::PteFile out = et_test::write_pte(std::move(program), segments, options);
  if (out.bytes.size() > max_size) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  std::memcpy(data, out.bytes.data(), out.bytes.size());
  return out.bytes.size();
}
