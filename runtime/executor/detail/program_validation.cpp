#include <executorch/runtime/executor/detail/program_validation.h>

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <string_view>
#include <vector>

#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/executor/detail/flatbuffer_vectors.h>
#include <executorch/runtime/executor/detail/validation_log.h>
#include <executorch/runtime/platform/log.h>
#include <executorch_schema/program_generated.h>

namespace executorch {
namespace runtime {
namespace detail {

namespace fb = executorch_flatbuffer;


namespace {

constexpr size_t kMaxRank = 16;

// Sizes in bytes of ScalarType 0..29 (docs/format.md §2).
constexpr uint8_t kElementSizes[30] = {
    1, 1, 2, 4, 8, 2, 4, 8, 4, 8, 16, 1, 1, 1, 4,
    2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2, 4, 8};

// The Verifier checks a vector's length word for 4-byte alignment but not
// its elements: a vector of 8-byte scalars can sit at a 4-aligned address,
// and reading it through the generated accessors would be a misaligned
// load. Every such vector the runtime reads is checked here.
template <typename T>
bool elements_aligned(const flatbuffers::Vector<T>* v) {
  return v == nullptr ||
      reinterpret_cast<uintptr_t>(v->data()) % alignof(T) == 0;
}

// What the program offers for `data_buffer_idx` of constant tensors.
struct ConstantTable {
  bool segment_path; // constant_segment with more than the reserved offset
  size_t count; // valid indices are [1, count)
  uint64_t segment_size; // size of the constant segment (segment path)
};

ConstantTable constant_table(const fb::Program* program) {
  ConstantTable t{false, 0, 0};
  const auto* cs = program->constant_segment();
  if (cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 1) {
    t.segment_path = true;
    t.count = cs->offsets()->size();
    const auto* segs = program->segments();
    if (segs != nullptr && cs->segment_index() < segs->size() &&
        segs->Get(cs->segment_index()) != nullptr) {
      t.segment_size = segs->Get(cs->segment_index())->size();
    }
    return t;
  }
  t.count = vsize(program->constant_buffer());
  return t;
}

struct PlanContext {
  const fb::Program* program;
  const fb::ExecutionPlan* plan;
  size_t p; // plan index, for messages
  size_t num_values;
  ConstantTable constants;
};

bool is_plan_input(const PlanContext& c, size_t value_index) {
  const auto* inputs = c.plan->inputs();
  for (flatbuffers::uoffset_t i = 0; i < inputs->size(); ++i) {
    if (inputs->Get(i) >= 0 &&
        static_cast<size_t>(inputs->Get(i)) == value_index) {
      return true;
    }
  }
  return false;
}

Error validate_tensor(const PlanContext& c, size_t vi, const fb::Tensor* t) {
  const size_t p = c.p;
  const int8_t st = static_cast<int8_t>(t->scalar_type());
  const size_t elem = scalar_type_element_size(st);
  ET_VALIDATE(
      elem != 0,
      InvalidProgram,
      "execution_plan[%zu].values[%zu].Tensor.scalar_type %d is not a valid "
      "ScalarType",
      p,
      vi,
      static_cast<int>(st));
  ET_VALIDATE(
      t->storage_offset() == 0,
      NotSupported,
      "execution_plan[%zu].values[%zu].Tensor.storage_offset %" PRId32
      " is not 0",
      p,
      vi,
      t->storage_offset());
  const int8_t dyn = static_cast<int8_t>(t->shape_dynamism());
  ET_VALIDATE(
      dyn >= 0 && dyn <= 2,
      InvalidProgram,
      "execution_plan[%zu].values[%zu].Tensor.shape_dynamism %d is not a valid "
      "TensorShapeDynamism",
      p,
      vi,
      static_cast<int>(dyn));
  ET_VALIDATE(
      t->sizes() != nullptr,
      InvalidProgram,
      "execution_plan[%zu].values[%zu].Tensor.sizes is missing",
      p,
      vi);
  ET_VALIDATE(
      t->dim_order() != nullptr,
      InvalidProgram,
      "execution_plan[%zu].values[%zu].Tensor.dim_order is missing",
      p,
      vi);
  const size_t rank = t->sizes()->size();
  ET_VALIDATE(
      rank <= kMaxRank,
      InvalidProgram,
      "execution_plan[%zu].values[%zu].Tensor.sizes: rank %zu too large "
      "(limit %zu)",
      p,
      vi,
      rank,
      kMaxRank);
  ET_VALIDATE(
      t->dim_order()->size() == rank,
      InvalidProgram,
      "execution_plan[%zu].values[%zu].Tensor.dim_order has %u entries, "
      "rank is %zu",
      p,
      vi,
      static_cast<unsigned>(t->dim_order()->size()),
      rank);
  uint32_t seen = 0;
  for (size_t d = 0; d < rank; ++d) {
    const uint8_t o = t->dim_order()->Get(static_cast<flatbuffers::uoffset_t>(d));
    ET_VALIDATE(
        o < rank && (seen & (1u << o)) == 0,
        InvalidProgram,
        "execution_plan[%zu].values[%zu].Tensor.dim_order is not a "
        "permutation of 0..%zu (entry %zu = %u)",
        p,
        vi,
        rank == 0 ? 0 : rank - 1,
        d,
        static_cast<unsigned>(o));
    seen |= 1u << o;
  }

  // Non-static user inputs may carry placeholder sizes; their shape is
  // checked when the caller supplies the tensor (set_input).
  const bool excused = dyn != 0 && is_plan_input(c, vi);
  size_t numel = 0;
  size_t nbytes = 0;
  bool sized = true;
  for (size_t d = 0; d < rank; ++d) {
    const int32_t s = t->sizes()->Get(static_cast<flatbuffers::uoffset_t>(d));
    if (s < 0) {
      ET_VALIDATE(
          excused,
          InvalidProgram,
          "execution_plan[%zu].values[%zu].Tensor.sizes[%zu] = %" PRId32
          " is negative",
          p,
          vi,
          d,
          s);
      sized = false;
    }
  }
  if (sized &&
      !checked_nbytes(t->sizes()->data(), rank, elem, &numel, &nbytes)) {
    ET_VALIDATE(
        excused,
        InvalidProgram,
        "execution_plan[%zu].values[%zu].Tensor.sizes: numel overflow "
        "(numel * element size does not fit)",
        p,
        vi);
    sized = false;
  }

  const auto* eti = t->extra_tensor_info();
  bool external = false;
  if (eti != nullptr) {
    const int8_t loc = static_cast<int8_t>(eti->location());
    ET_VALIDATE(
        loc == 0 || loc == 1,
        InvalidProgram,
        "execution_plan[%zu].values[%zu].Tensor.extra_tensor_info.location %d "
        "is not a valid TensorDataLocation",
        p,
        vi,
        static_cast<int>(loc));
    const int8_t dev = static_cast<int8_t>(eti->device_type());
    ET_VALIDATE(
        dev == 0 || dev == 1,
        InvalidProgram,
        "execution_plan[%zu].values[%zu].Tensor.extra_tensor_info.device_type "
        "%d is not a valid DeviceType",
        p,
        vi,
        static_cast<int>(dev));
    external = loc == 1;
    ET_VALIDATE(
        !external || eti->fully_qualified_name() != nullptr,
        InvalidProgram,
        "execution_plan[%zu].values[%zu].Tensor.extra_tensor_info."
        "fully_qualified_name is missing for an EXTERNAL tensor",
        p,
        vi);
  }

  const uint32_t idx = t->data_buffer_idx();
  const auto* alloc = t->allocation_info();
  if (!external && idx > 0 && alloc == nullptr) {
    // Constant data.
    ET_VALIDATE(
        idx < c.constants.count,
        InvalidProgram,
        "execution_plan[%zu].values[%zu].Tensor.data_buffer_idx %" PRIu32
        " out of range (%zu constant entries)",
        p,
        vi,
        idx,
        c.constants.count);
    // Constant data is read in place through typed pointers, and segments
    // and buffers start max-aligned: each offset must keep elements aligned.
    if (c.constants.segment_path) {
      const uint64_t off = c.program->constant_segment()->offsets()->Get(idx);
      ET_VALIDATE(
          off % elem == 0,
          InvalidProgram,
          "execution_plan[%zu].values[%zu].Tensor: constant_segment.offsets[%"
          PRIu32 "] = %" PRIu64 " is not aligned to the element size %zu",
          p,
          vi,
          idx,
          off,
          elem);
    } else {
      const auto* buf = c.program->constant_buffer()->Get(idx);
      ET_VALIDATE(
          buf == nullptr || buf->storage() == nullptr ||
              reinterpret_cast<uintptr_t>(buf->storage()->data()) % elem == 0,
          InvalidProgram,
          "execution_plan[%zu].values[%zu].Tensor: constant_buffer[%" PRIu32
          "].storage is not aligned to the element size %zu",
          p,
          vi,
          idx,
          elem);
    }
    if (sized) {
      if (c.constants.segment_path) {
        const uint64_t off =
            c.program->constant_segment()->offsets()->Get(idx);
        ET_VALIDATE(
            range_within(off, nbytes, c.constants.segment_size),
            InvalidProgram,
            "execution_plan[%zu].values[%zu].Tensor: constant_segment."
            "offsets[%" PRIu32 "] %" PRIu64 " + nbytes %zu exceeds the "
            "constant segment size %" PRIu64,
            p,
            vi,
            idx,
            off,
            nbytes,
            c.constants.segment_size);
      } else {
        const auto* buf = c.program->constant_buffer()->Get(idx);
        const size_t have =
            buf == nullptr ? 0 : vsize(buf->storage());
        ET_VALIDATE(
            nbytes <= have,
            InvalidProgram,
            "execution_plan[%zu].values[%zu].Tensor: nbytes %zu exceeds "
            "constant_buffer[%" PRIu32 "].storage size %zu",
            p,
            vi,
            nbytes,
            idx,
            have);
      }
    }
  }
  if (!external && idx > 0 && alloc != nullptr) {
    // Planned tensor with an initial value in mutable_data_segments[0].
    const auto* mds = c.program->mutable_data_segments();
    ET_VALIDATE(
        mds != nullptr && mds->size() > 0 && mds->Get(0) != nullptr &&
            mds->Get(0)->offsets() != nullptr,
        InvalidProgram,
        "execution_plan[%zu].values[%zu].Tensor.data_buffer_idx %" PRIu32
        " needs mutable_data_segments[0], which is missing",
        p,
        vi,
        idx);
    const auto* sub = mds->Get(0);
    ET_VALIDATE(
        idx < sub->offsets()->size(),
        InvalidProgram,
        "execution_plan[%zu].values[%zu].Tensor.data_buffer_idx %" PRIu32
        " out of range (mutable_data_segments[0] has %u offsets)",
        p,
        vi,
        idx,
        static_cast<unsigned>(sub->offsets()->size()));
    // segment_index was range-checked by validate_program_tables.
    const uint64_t seg_size =
        c.program->segments()->Get(sub->segment_index())->size();
    const uint64_t off = sub->offsets()->Get(idx);
    ET_VALIDATE(
        !sized || range_within(off, nbytes, seg_size),
        InvalidProgram,
        "execution_plan[%zu].values[%zu].Tensor: mutable_data_segments[0]."
        "offsets[%" PRIu32 "] %" PRIu64 " + nbytes %zu exceeds segment size "
        "%" PRIu64,
        p,
        vi,
        idx,
        off,
        nbytes,
        seg_size);
  }
  if (alloc != nullptr) {
    const auto* ncbs = c.plan->non_const_buffer_sizes();
    const uint32_t mem_id = alloc->memory_id();
    ET_VALIDATE(
        mem_id >= 1 && mem_id < vsize(ncbs),
        InvalidProgram,
        "execution_plan[%zu].values[%zu].Tensor.allocation_info.memory_id "
        "%" PRIu32 " out of range [1, %zu)",
        p,
        vi,
        mem_id,
        vsize(ncbs));
    const uint64_t offset =
        (static_cast<uint64_t>(alloc->memory_offset_high()) << 32) |
        alloc->memory_offset_low();
    const int64_t arena = ncbs->Get(mem_id);
    ET_VALIDATE(
        !sized ||
            (arena >= 0 &&
             range_within(offset, nbytes, static_cast<uint64_t>(arena))),
        InvalidProgram,
        "execution_plan[%zu].values[%zu].Tensor.allocation_info: offset "
        "%" PRIu64 " + nbytes %zu exceeds non_const_buffer_sizes[%" PRIu32
        "] = %" PRId64,
        p,
        vi,
        offset,
        nbytes,
        mem_id,
        arena);
    // Kernels read planned data through typed pointers: with an offset that
    // is a multiple of the element size, every element is aligned as long as
    // the planned buffer itself is (the caller allocates it).
    ET_VALIDATE(
        offset % elem == 0,
        InvalidProgram,
        "execution_plan[%zu].values[%zu].Tensor.allocation_info: offset "
        "%" PRIu64 " is not aligned to the element size %zu",
        p,
        vi,
        offset,
        elem);
  }
  return Error::Ok;
}

fb::KernelTypes value_type(const PlanContext& c, size_t index) {
  const auto* v = c.plan->values()->Get(static_cast<flatbuffers::uoffset_t>(index));
  return v == nullptr ? fb::KernelTypes::NONE : v->val_type();
}

Error validate_value(const PlanContext& c, size_t vi) {
  const size_t p = c.p;
  const size_t n = c.num_values;
  const auto* v = c.plan->values()->Get(static_cast<flatbuffers::uoffset_t>(vi));
  ET_VALIDATE(
      v != nullptr,
      InvalidProgram,
      "execution_plan[%zu].values[%zu] is null",
      p,
      vi);
  const auto type = v->val_type();
  const unsigned t = static_cast<unsigned>(type);
  ET_VALIDATE(
      t >= static_cast<unsigned>(fb::KernelTypes::Null) &&
          t <= static_cast<unsigned>(fb::KernelTypes::MAX),
      InvalidProgram,
      "execution_plan[%zu].values[%zu].val_type %u is an unknown value type",
      p,
      vi,
      t);
  if (type == fb::KernelTypes::Null) {
    return Error::Ok;
  }
  ET_VALIDATE(
      v->val() != nullptr,
      InvalidProgram,
      "execution_plan[%zu].values[%zu].val (%s) payload is missing",
      p,
      vi,
      fb::EnumNameKernelTypes(type));
  switch (type) {
    case fb::KernelTypes::Tensor:
      return validate_tensor(c, vi, v->val_as_Tensor());
    case fb::KernelTypes::String:
      ET_VALIDATE(
          v->val_as_String()->string_val() != nullptr,
          InvalidProgram,
          "execution_plan[%zu].values[%zu].String.string_val is missing",
          p,
          vi);
      return Error::Ok;
    case fb::KernelTypes::IntList: {
      const auto* items = v->val_as_IntList()->items();
      ET_VALIDATE(
          items != nullptr && elements_aligned(items),
          InvalidProgram,
          "execution_plan[%zu].values[%zu].IntList.items is missing or "
          "misaligned",
          p,
          vi);
      for (flatbuffers::uoffset_t i = 0; i < items->size(); ++i) {
        ET_VALIDATE(
            index_in_range(items->Get(i), n),
            InvalidProgram,
            "execution_plan[%zu].values[%zu].IntList.items[%u] = %" PRId64
            " is not a value index (%zu values)",
            p,
            vi,
            static_cast<unsigned>(i),
            items->Get(i),
            n);
      }
      return Error::Ok;
    }
    case fb::KernelTypes::DoubleList:
      ET_VALIDATE(
          v->val_as_DoubleList()->items() != nullptr &&
              elements_aligned(v->val_as_DoubleList()->items()),
          InvalidProgram,
          "execution_plan[%zu].values[%zu].DoubleList.items is missing or "
          "misaligned",
          p,
          vi);
      return Error::Ok;
    case fb::KernelTypes::BoolList:
      ET_VALIDATE(
          v->val_as_BoolList()->items() != nullptr,
          InvalidProgram,
          "execution_plan[%zu].values[%zu].BoolList.items is missing",
          p,
          vi);
      return Error::Ok;
    case fb::KernelTypes::TensorList:
    case fb::KernelTypes::OptionalTensorList: {
      const bool optional = type == fb::KernelTypes::OptionalTensorList;
      const char* kind = optional ? "OptionalTensorList" : "TensorList";
      const auto* items = optional ? v->val_as_OptionalTensorList()->items()
                                   : v->val_as_TensorList()->items();
      ET_VALIDATE(
          items != nullptr,
          InvalidProgram,
          "execution_plan[%zu].values[%zu].%s.items is missing",
          p,
          vi,
          kind);
      for (flatbuffers::uoffset_t i = 0; i < items->size(); ++i) {
        const int32_t item = items->Get(i);
        if (optional && item == -1) {
          continue;
        }
        ET_VALIDATE(
            index_in_range(item, n),
            InvalidProgram,
            "execution_plan[%zu].values[%zu].%s.items[%u] = %" PRId32
            " is not a value index (%zu values)",
            p,
            vi,
            kind,
            static_cast<unsigned>(i),
            item,
            n);
        const auto et = value_type(c, static_cast<size_t>(item));
        ET_VALIDATE(
            et == fb::KernelTypes::Tensor ||
                (optional && et == fb::KernelTypes::Null),
            InvalidProgram,
            "execution_plan[%zu].values[%zu].%s.items[%u] = %" PRId32
            " refers to a %s value, not a tensor",
            p,
            vi,
            kind,
            static_cast<unsigned>(i),
            item,
            fb::EnumNameKernelTypes(et));
      }
      return Error::Ok;
    }
    default:
      return Error::Ok; // Int, Bool, Double: the payload table is enough.
  }
}

Error validate_args(
    const PlanContext& c,
    size_t ci,
    size_t ii,
    const char* kind,
    const flatbuffers::Vector<int32_t>* args) {
  ET_VALIDATE(
      args != nullptr,
      InvalidProgram,
      "execution_plan[%zu].chains[%zu].instructions[%zu].%s.args is missing",
      c.p,
      ci,
      ii,
      kind);
  for (flatbuffers::uoffset_t a = 0; a < args->size(); ++a) {
    ET_VALIDATE(
        index_in_range(args->Get(a), c.num_values),
        InvalidProgram,
        "execution_plan[%zu].chains[%zu].instructions[%zu].%s.args[%u] = "
        "%" PRId32 " is not a value index (%zu values)",
        c.p,
        ci,
        ii,
        kind,
        static_cast<unsigned>(a),
        args->Get(a),
        c.num_values);
  }
  return Error::Ok;
}

#define ET_VALIDATE_INDEX(_idx, _what)                                      \
  ET_VALIDATE(                                                              \
      index_in_range((_idx), c.num_values),                                 \
      InvalidProgram,                                                       \
      "execution_plan[%zu].chains[%zu].instructions[%zu].%s = %" PRId32     \
      " is not a value index (%zu values)",                                 \
      c.p,                                                                  \
      ci,                                                                   \
      ii,                                                                   \
      _what,                                                                \
      (_idx),                                                               \
      c.num_values)

Error validate_instruction(
    const PlanContext& c,
    size_t ci,
    size_t ii,
    size_t chain_length,
    const fb::Instruction* ins) {
  const size_t p = c.p;
  ET_VALIDATE(
      ins != nullptr,
      InvalidProgram,
      "execution_plan[%zu].chains[%zu].instructions[%zu] is null",
      p,
      ci,
      ii);
  const unsigned t = static_cast<unsigned>(ins->instr_args_type());
  ET_VALIDATE(
      t >= static_cast<unsigned>(fb::InstructionArguments::KernelCall) &&
          t <= static_cast<unsigned>(fb::InstructionArguments::MAX),
      InvalidProgram,
      "execution_plan[%zu].chains[%zu].instructions[%zu].instr_args_type %u "
      "is an unknown instruction",
      p,
      ci,
      ii,
      t);
  ET_VALIDATE(
      ins->instr_args() != nullptr,
      InvalidProgram,
      "execution_plan[%zu].chains[%zu].instructions[%zu].instr_args is "
      "missing",
      p,
      ci,
      ii);
  switch (ins->instr_args_type()) {
    case fb::InstructionArguments::KernelCall: {
      const auto* k = ins->instr_args_as_KernelCall();
      const size_t nops = vsize(c.plan->operators());
      ET_VALIDATE(
          index_in_range(k->op_index(), nops),
          InvalidProgram,
          "execution_plan[%zu].chains[%zu].instructions[%zu].KernelCall."
          "op_index %" PRId32 " out of range (%zu operators)",
          p,
          ci,
          ii,
          k->op_index(),
          nops);
      return validate_args(c, ci, ii, "KernelCall", k->args());
    }
    case fb::InstructionArguments::DelegateCall: {
      const auto* d = ins->instr_args_as_DelegateCall();
      const size_t nd = vsize(c.plan->delegates());
      ET_VALIDATE(
          index_in_range(d->delegate_index(), nd),
          InvalidProgram,
          "execution_plan[%zu].chains[%zu].instructions[%zu].DelegateCall."
          "delegate_index %" PRId32 " out of range (%zu delegates)",
          p,
          ci,
          ii,
          d->delegate_index(),
          nd);
      return validate_args(c, ci, ii, "DelegateCall", d->args());
    }
    case fb::InstructionArguments::MoveCall: {
      const auto* m = ins->instr_args_as_MoveCall();
      ET_VALIDATE_INDEX(m->move_from(), "MoveCall.move_from");
      ET_VALIDATE_INDEX(m->move_to(), "MoveCall.move_to");
      return Error::Ok;
    }
    case fb::InstructionArguments::JumpFalseCall: {
      const auto* j = ins->instr_args_as_JumpFalseCall();
      ET_VALIDATE_INDEX(j->cond_value_index(), "JumpFalseCall.cond_value_index");
      const int32_t dst = j->destination_instruction();
      ET_VALIDATE(
          dst >= 0 && static_cast<size_t>(dst) <= chain_length,
          InvalidProgram,
          "execution_plan[%zu].chains[%zu].instructions[%zu].JumpFalseCall."
          "destination_instruction %" PRId32 " out of range [0, %zu]",
          p,
          ci,
          ii,
          dst,
          chain_length);
      return Error::Ok;
    }
    case fb::InstructionArguments::FreeCall: {
      const auto* f = ins->instr_args_as_FreeCall();
      ET_VALIDATE_INDEX(f->value_index(), "FreeCall.value_index");
      const auto vt = value_type(c, static_cast<size_t>(f->value_index()));
      ET_VALIDATE(
          vt == fb::KernelTypes::Tensor,
          InvalidProgram,
          "execution_plan[%zu].chains[%zu].instructions[%zu].FreeCall."
          "value_index %" PRId32 " refers to a %s value, not a tensor",
          p,
          ci,
          ii,
          f->value_index(),
          fb::EnumNameKernelTypes(vt));
      return Error::Ok;
    }
    default:
      return Error::InvalidProgram; // unreachable: range-checked above
  }
}

#undef ET_VALIDATE_INDEX

} // namespace

size_t scalar_type_element_size(int8_t scalar_type) {
  if (scalar_type < 0 ||
      static_cast<size_t>(scalar_type) >= sizeof(kElementSizes)) {
    return 0;
  }
  return kElementSizes[scalar_type];
}

bool tensor_capacity_bytes(const fb::Tensor* t, size_t* out) {
  const auto* sizes = t->sizes();
  for (flatbuffers::uoffset_t d = 0; d < sizes->size(); ++d) {
    if (sizes->Get(d) < 0) {
      return false;
    }
  }
  size_t numel = 0;
  return checked_nbytes(
      sizes->data(),
      sizes->size(),
      scalar_type_element_size(static_cast<int8_t>(t->scalar_type())),
      &numel,
      out);
}

Error validate_program_tables(
    const fb::Program* program,
    const ProgramLayout& layout) {
  ET_VALIDATE(
      program->execution_plan() != nullptr,
      InvalidProgram,
      "Program.execution_plan is missing");
  const auto* plans = program->execution_plan();
  for (flatbuffers::uoffset_t i = 0; i < plans->size(); ++i) {
    ET_VALIDATE(
        plans->Get(i) != nullptr,
        InvalidProgram,
        "execution_plan[%u] is null",
        static_cast<unsigned>(i));
    ET_VALIDATE(
        plans->Get(i)->name() != nullptr,
        InvalidProgram,
        "execution_plan[%u].name is missing",
        static_cast<unsigned>(i));
    ET_VALIDATE(
        elements_aligned(plans->Get(i)->non_const_buffer_sizes()),
        InvalidProgram,
        "execution_plan[%u].non_const_buffer_sizes is misaligned",
        static_cast<unsigned>(i));
  }

  // Segments: every non-empty one must lie inside the file.
  const auto* segs = program->segments();
  for (flatbuffers::uoffset_t i = 0; i < vsize(segs); ++i) {
    const auto* s = segs->Get(i);
    ET_VALIDATE(
        s != nullptr, InvalidProgram, "segments[%u] is null",
        static_cast<unsigned>(i));
    if (layout.segment_base_offset == 0 || s->size() == 0) {
      continue; // cannot be loaded (NotFound later) or nothing to read
    }
    uint64_t start = 0;
    ET_VALIDATE(
        checked_add<uint64_t>(layout.segment_base_offset, s->offset(), &start),
        InvalidProgram,
        "segments[%u].offset %" PRIu64 " overflows (segment_base_offset "
        "%" PRIu64 ")",
        static_cast<unsigned>(i),
        s->offset(),
        layout.segment_base_offset);
    ET_VALIDATE(
        range_within(start, s->size(), layout.file_size),
        InvalidProgram,
        "segments[%u] [offset %" PRIu64 ", size %" PRIu64 "] extends past the "
        "end of the file (%" PRIu64 " bytes)",
        static_cast<unsigned>(i),
        s->offset(),
        s->size(),
        layout.file_size);
  }

  // Constant data (docs/format.md §1.4).
  const auto* cs = program->constant_segment();
  ET_VALIDATE(
      cs == nullptr || elements_aligned(cs->offsets()),
      InvalidProgram,
      "constant_segment.offsets is misaligned");
  if (cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 1) {
    ET_VALIDATE(
        vsize(program->constant_buffer()) == 0,
        InvalidProgram,
        "constant_buffer must be empty when constant_segment.offsets is used "
        "(%u entries)",
        static_cast<unsigned>(vsize(program->constant_buffer())));
    ET_VALIDATE(
        segs != nullptr,
        InvalidProgram,
        "constant_segment is used but Program.segments is missing");
    ET_VALIDATE(
        cs->segment_index() < segs->size(),
        InvalidProgram,
        "constant_segment.segment_index %" PRIu32 " out of range (%u "
        "segments)",
        cs->segment_index(),
        static_cast<unsigned>(segs->size()));
    const uint64_t seg_size = segs->Get(cs->segment_index())->size();
    for (flatbuffers::uoffset_t k = 0; k < cs->offsets()->size(); ++k) {
      ET_VALIDATE(
          cs->offsets()->Get(k) <= seg_size,
          InvalidProgram,
          "constant_segment.offsets[%u] = %" PRIu64 " exceeds the constant "
          "segment size %" PRIu64,
          static_cast<unsigned>(k),
          cs->offsets()->Get(k),
          seg_size);
    }
  }
  const auto* cb = program->constant_buffer();
  for (flatbuffers::uoffset_t k = 0; k < vsize(cb); ++k) {
    ET_VALIDATE(
        cb->Get(k) != nullptr,
        InvalidProgram,
        "constant_buffer[%u] is null",
        static_cast<unsigned>(k));
  }

  // Mutable data segments.
  const auto* mds = program->mutable_data_segments();
  for (flatbuffers::uoffset_t m = 0; m < vsize(mds); ++m) {
    const auto* sub = mds->Get(m);
    ET_VALIDATE(
        sub != nullptr,
        InvalidProgram,
        "mutable_data_segments[%u] is null",
        static_cast<unsigned>(m));
    ET_VALIDATE(
        segs != nullptr && sub->segment_index() < segs->size(),
        InvalidProgram,
        "mutable_data_segments[%u].segment_index %" PRIu32
        " out of range (%zu segments)",
        static_cast<unsigned>(m),
        sub->segment_index(),
        vsize(segs));
    ET_VALIDATE(
        sub->offsets() != nullptr && elements_aligned(sub->offsets()),
        InvalidProgram,
        "mutable_data_segments[%u].offsets is missing or misaligned",
        static_cast<unsigned>(m));
    const uint64_t seg_size = segs->Get(sub->segment_index())->size();
    for (flatbuffers::uoffset_t k = 0; k < sub->offsets()->size(); ++k) {
      ET_VALIDATE(
          sub->offsets()->Get(k) <= seg_size,
          InvalidProgram,
          "mutable_data_segments[%u].offsets[%u] = %" PRIu64
          " exceeds segment size %" PRIu64,
          static_cast<unsigned>(m),
          static_cast<unsigned>(k),
          sub->offsets()->Get(k),
          seg_size);
    }
  }

  // Named data: keys present and unique, segments in range.
  const auto* nd = program->named_data();
  if (nd != nullptr) {
    ET_VALIDATE(
        segs != nullptr,
        InvalidProgram,
        "Program.named_data is present but Program.segments is missing");
    std::vector<std::string_view> keys;
    keys.reserve(nd->size()); // bounded: each entry takes >= 4 file bytes
    for (flatbuffers::uoffset_t i = 0; i < nd->size(); ++i) {
      const auto* e = nd->Get(i);
      ET_VALIDATE(
          e != nullptr, InvalidProgram, "named_data[%u] is null",
          static_cast<unsigned>(i));
      ET_VALIDATE(
          e->key() != nullptr,
          InvalidProgram,
          "named_data[%u].key is missing",
          static_cast<unsigned>(i));
      ET_VALIDATE(
          e->segment_index() < segs->size(),
          InvalidProgram,
          "named_data[%u].segment_index %" PRIu32 " out of range (%u "
          "segments)",
          static_cast<unsigned>(i),
          e->segment_index(),
          static_cast<unsigned>(segs->size()));
      keys.emplace_back(e->key()->data(), e->key()->size());
    }
    std::sort(keys.begin(), keys.end());
    const auto dup = std::adjacent_find(keys.begin(), keys.end());
    ET_VALIDATE(
        dup == keys.end(),
        InvalidProgram,
        "named_data: duplicate key '%.*s'",
        dup == keys.end() ? 0 : static_cast<int>(std::min<size_t>(dup->size(), 200)),
        dup == keys.end() ? "" : dup->data());
  }

  const auto* bdd = program->backend_delegate_data();
  for (flatbuffers::uoffset_t i = 0; i < vsize(bdd); ++i) {
    ET_VALIDATE(
        bdd->Get(i) != nullptr && bdd->Get(i)->data() != nullptr,
        InvalidProgram,
        "backend_delegate_data[%u] or its data is missing",
        static_cast<unsigned>(i));
  }
  return Error::Ok;
}

Error validate_execution_plan(const fb::Program* program, size_t p) {
  const auto* plans = program->execution_plan();
  ET_VALIDATE(
      plans != nullptr && p < plans->size(),
      InvalidArgument,
      "execution_plan[%zu] does not exist",
      p);
  const auto* plan = plans->Get(static_cast<flatbuffers::uoffset_t>(p));
  ET_VALIDATE(
      plan != nullptr, InvalidProgram, "execution_plan[%zu] is null", p);
  ET_VALIDATE(
      plan->name() != nullptr,
      InvalidProgram,
      "execution_plan[%zu].name is missing",
      p);
  ET_VALIDATE(
      plan->values() != nullptr,
      InvalidProgram,
      "execution_plan[%zu].values is missing",
      p);
  ET_VALIDATE(
      plan->inputs() != nullptr,
      InvalidProgram,
      "execution_plan[%zu].inputs is missing",
      p);
  ET_VALIDATE(
      plan->outputs() != nullptr,
      InvalidProgram,
      "execution_plan[%zu].outputs is missing",
      p);
  ET_VALIDATE(
      plan->chains() != nullptr && plan->chains()->size() > 0,
      InvalidProgram,
      "execution_plan[%zu].chains is missing or empty",
      p);
  ET_VALIDATE(
      plan->non_const_buffer_sizes() != nullptr,
      InvalidProgram,
      "execution_plan[%zu].non_const_buffer_sizes is missing",
      p);

  PlanContext c{program, plan, p, plan->values()->size(), constant_table(program)};

  // Planned arenas: no negative sizes, and the total fits in int64.
  const auto* ncbs = plan->non_const_buffer_sizes();
  int64_t total = 0;
  for (flatbuffers::uoffset_t i = 0; i < ncbs->size(); ++i) {
    const int64_t s = ncbs->Get(i);
    ET_VALIDATE(
        s >= 0,
        InvalidProgram,
        "execution_plan[%zu].non_const_buffer_sizes[%u] = %" PRId64
        " is negative",
        p,
        static_cast<unsigned>(i),
        s);
    ET_VALIDATE(
        checked_add(total, s, &total),
        InvalidProgram,
        "execution_plan[%zu].non_const_buffer_sizes: total overflows",
        p);
  }
  const auto* devs = plan->non_const_buffer_device();
  for (flatbuffers::uoffset_t i = 0; i < vsize(devs); ++i) {
    const auto* d = devs->Get(i);
    ET_VALIDATE(
        d != nullptr &&
            (static_cast<int8_t>(d->device_type()) == 0 ||
             static_cast<int8_t>(d->device_type()) == 1),
        InvalidProgram,
        "execution_plan[%zu].non_const_buffer_device[%u] is null or has an "
        "invalid device_type",
        p,
        static_cast<unsigned>(i));
  }

  for (size_t vi = 0; vi < c.num_values; ++vi) {
    Error e = validate_value(c, vi);
    if (e != Error::Ok) {
      return e;
    }
  }

  const auto* inputs = plan->inputs();
  for (flatbuffers::uoffset_t i = 0; i < inputs->size(); ++i) {
    ET_VALIDATE(
        index_in_range(inputs->Get(i), c.num_values),
        InvalidProgram,
        "execution_plan[%zu].inputs[%u] = %" PRId32
        " is not a value index (%zu values)",
        p,
        static_cast<unsigned>(i),
        inputs->Get(i),
        c.num_values);
  }
  const auto* outputs = plan->outputs();
  for (flatbuffers::uoffset_t i = 0; i < outputs->size(); ++i) {
    ET_VALIDATE(
        index_in_range(outputs->Get(i), c.num_values),
        InvalidProgram,
        "execution_plan[%zu].outputs[%u] = %" PRId32
        " is not a value index (%zu values)",
        p,
        static_cast<unsigned>(i),
        outputs->Get(i),
        c.num_values);
  }

  const auto* ops = plan->operators();
  for (flatbuffers::uoffset_t i = 0; i < vsize(ops); ++i) {
    ET_VALIDATE(
        ops->Get(i) != nullptr && ops->Get(i)->name() != nullptr,
        InvalidProgram,
        "execution_plan[%zu].operators[%u].name is missing",
        p,
        static_cast<unsigned>(i));
  }

  const auto* dels = plan->delegates();
  for (flatbuffers::uoffset_t i = 0; i < vsize(dels); ++i) {
    const auto* d = dels->Get(i);
    ET_VALIDATE(
        d != nullptr && d->id() != nullptr,
        InvalidProgram,
        "execution_plan[%zu].delegates[%u].id is missing",
        p,
        static_cast<unsigned>(i));
    ET_VALIDATE(
        d->processed() != nullptr,
        InvalidProgram,
        "execution_plan[%zu].delegates[%u].processed is missing",
        p,
        static_cast<unsigned>(i));
    const auto loc = d->processed()->location();
    const uint32_t idx = d->processed()->index();
    if (loc == fb::DataLocation::INLINE) {
      ET_VALIDATE(
          idx < vsize(program->backend_delegate_data()),
          InvalidProgram,
          "execution_plan[%zu].delegates[%u].processed.index %" PRIu32
          " out of range (%zu backend_delegate_data entries)",
          p,
          static_cast<unsigned>(i),
          idx,
          vsize(program->backend_delegate_data()));
    } else if (loc == fb::DataLocation::SEGMENT) {
      ET_VALIDATE(
          idx < vsize(program->segments()),
          InvalidProgram,
          "execution_plan[%zu].delegates[%u].processed.index %" PRIu32
          " out of range (%zu segments)",
          p,
          static_cast<unsigned>(i),
          idx,
          vsize(program->segments()));
    } else {
      ET_LOG(
          Error,
          "execution_plan[%zu].delegates[%u].processed.location %d is not a "
          "valid DataLocation",
          p,
          static_cast<unsigned>(i),
          static_cast<int>(loc));
      return Error::InvalidProgram;
    }
    const auto* specs = d->compile_specs();
    for (flatbuffers::uoffset_t s = 0; s < vsize(specs); ++s) {
      ET_VALIDATE(
          specs->Get(s) != nullptr && specs->Get(s)->key() != nullptr,
          InvalidProgram,
          "execution_plan[%zu].delegates[%u].compile_specs[%u].key is missing",
          p,
          static_cast<unsigned>(i),
          static_cast<unsigned>(s));
    }
  }

  const auto* chains = plan->chains();
  for (flatbuffers::uoffset_t ci = 0; ci < chains->size(); ++ci) {
    const auto* chain = chains->Get(ci);
    ET_VALIDATE(
        chain != nullptr && chain->instructions() != nullptr,
        InvalidProgram,
        "execution_plan[%zu].chains[%u].instructions is missing",
        p,
        static_cast<unsigned>(ci));
    const auto* ins = chain->instructions();
    for (flatbuffers::uoffset_t ii = 0; ii < ins->size(); ++ii) {
      Error e = validate_instruction(c, ci, ii, ins->size(), ins->Get(ii));
      if (e != Error::Ok) {
        return e;
      }
    }
  }
  return validate_storage_rules(plan, p);
}

Error validate_all_execution_plans(const fb::Program* program) {
  const auto* plans = program->execution_plan();
  ET_VALIDATE(
      plans != nullptr,
      InvalidProgram,
      "Program.execution_plan is missing");
  std::vector<std::string_view> names;
  names.reserve(plans->size());
  for (flatbuffers::uoffset_t p = 0; p < plans->size(); ++p) {
    Error e = validate_execution_plan(program, p);
    if (e != Error::Ok) {
      return e;
    }
    names.emplace_back(
        plans->Get(p)->name()->data(), plans->Get(p)->name()->size());
  }
  std::sort(names.begin(), names.end());
  const auto dup = std::adjacent_find(names.begin(), names.end());
  ET_VALIDATE(
      dup == names.end(),
      InvalidProgram,
      "execution_plan: duplicate method name '%.*s'",
      dup == names.end() ? 0 : static_cast<int>(std::min<size_t>(dup->size(), 200)),
      dup == names.end() ? "" : dup->data());
  return Error::Ok;
}

} // namespace detail
} // namespace runtime
} // namespace executorch
