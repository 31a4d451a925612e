/*
 * Program validation: the one place that decides whether a .pte's
 * flatbuffer is well formed beyond what flatbuffers::Verifier checks.
 *
 * - Program-level tables (this file): execution_plan entries, segments,
 *   constant data, mutable data segments, named data, backend delegate
 *   data. Run by Program::load at every verification level.
 * - One execution plan: required fields, planned buffers, inputs/outputs and
 *   operators (this file), values and tensors (value_validation.cpp),
 *   delegates and instructions (instruction_validation.cpp), storage and
 *   aliasing rules (storage_validation.cpp). Run by Program::load for every
 *   plan under InternalConsistency, by Program::load_method for the loaded
 *   plan under Minimal: either way this code runs before any decoder.
 *
 * The decoders (method.cpp, detail/value_parser.cpp, tensor_parser.cpp,
 * instruction_builder.cpp, delegate.cpp) rely on these rules and only assert
 * them in debug builds.
 */
#include <executorch/runtime/executor/detail/program_validation.h>

#include <algorithm>
#include <cinttypes>
#include <string_view>
#include <vector>

#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/executor/detail/plan_validation.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {
namespace detail {

namespace fb = executorch_flatbuffer;

namespace {

// Sizes in bytes of ScalarType 0..29 (docs/format.md §2).
constexpr uint8_t kElementSizes[30] = {1,  1, 2, 4, 8, 2, 4, 8, 4, 8,
                                       16, 1, 1, 1, 4, 2, 1, 1, 1, 1,
                                       1,  1, 2, 1, 1, 1, 1, 2, 4, 8};

/// The first duplicate of `names` (sorted in place), or end().
std::vector<std::string_view>::const_iterator first_duplicate(
    std::vector<std::string_view>* names) {
  std::sort(names->begin(), names->end());
  return std::adjacent_find(names->cbegin(), names->cend());
}

/// At most 200 characters of a duplicate name, for a "%.*s" message.
int shown_length(std::string_view name) {
  return static_cast<int>(std::min<size_t>(name.size(), 200));
}

Error validate_plan_entries(const fb::Program* program) {
  ET_CHECK_OR_RETURN_ERROR(
      program->execution_plan() != nullptr,
      InvalidProgram,
      "Program.execution_plan is missing");
  const auto* plans = program->execution_plan();
  for (flatbuffers::uoffset_t i = 0; i < plans->size(); ++i) {
    ET_CHECK_OR_RETURN_ERROR(
        plans->Get(i) != nullptr,
        InvalidProgram,
        "%s is null",
        FieldPath::plan(i).c_str());
    ET_CHECK_OR_RETURN_ERROR(
        plans->Get(i)->name() != nullptr,
        InvalidProgram,
        "%s is missing",
        FieldPath::plan(i).field("name").c_str());
    ET_CHECK_OR_RETURN_ERROR(
        elements_aligned(plans->Get(i)->non_const_buffer_sizes()),
        InvalidProgram,
        "%s is misaligned",
        FieldPath::plan(i).field("non_const_buffer_sizes").c_str());
  }
  return Error::Ok;
}

/// Every non-empty segment lies inside the file.
Error validate_segments(
    const fb::Program* program, const ProgramLayout& layout) {
  const auto* segs = program->segments();
  for (flatbuffers::uoffset_t i = 0; i < vsize(segs); ++i) {
    const auto* s = segs->Get(i);
    ET_CHECK_OR_RETURN_ERROR(
        s != nullptr,
        InvalidProgram,
        "%s is null",
        FieldPath("segments").at(i).c_str());
    if (layout.segment_base_offset == 0 || s->size() == 0) {
      continue;  // cannot be loaded (NotFound later) or nothing to read
    }
    uint64_t start = 0;
    ET_CHECK_OR_RETURN_ERROR(
        checked_add<uint64_t>(layout.segment_base_offset, s->offset(), &start),
        InvalidProgram,
        "%s %" PRIu64 " overflows (segment_base_offset %" PRIu64 ")",
        FieldPath("segments").at(i).field("offset").c_str(),
        s->offset(),
        layout.segment_base_offset);
    ET_CHECK_OR_RETURN_ERROR(
        range_within(start, s->size(), layout.file_size),
        InvalidProgram,
        "%s [offset %" PRIu64 ", size %" PRIu64
        "] extends past the end of the file (%" PRIu64 " bytes)",
        FieldPath("segments").at(i).c_str(),
        s->offset(),
        s->size(),
        layout.file_size);
  }
  return Error::Ok;
}

/// constant_segment or the legacy constant_buffer (docs/format.md §1.4).
Error validate_constant_tables(const fb::Program* program) {
  const auto* segs = program->segments();
  const auto* cs = program->constant_segment();
  ET_CHECK_OR_RETURN_ERROR(
      cs == nullptr || elements_aligned(cs->offsets()),
      InvalidProgram,
      "constant_segment.offsets is misaligned");
  if (cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 1) {
    ET_CHECK_OR_RETURN_ERROR(
        vsize(program->constant_buffer()) == 0,
        InvalidProgram,
        "constant_buffer must be empty when constant_segment.offsets is used "
        "(%u entries)",
        static_cast<unsigned>(vsize(program->constant_buffer())));
    ET_CHECK_OR_RETURN_ERROR(
        segs != nullptr,
        InvalidProgram,
        "constant_segment is used but Program.segments is missing");
    ET_CHECK_OR_RETURN_ERROR(
        cs->segment_index() < segs->size(),
        InvalidProgram,
        "constant_segment.segment_index %" PRIu32
        " out of range (%u "
        "segments)",
        cs->segment_index(),
        static_cast<unsigned>(segs->size()));
    const uint64_t seg_size = segs->Get(cs->segment_index())->size();
    for (flatbuffers::uoffset_t k = 0; k < cs->offsets()->size(); ++k) {
      ET_CHECK_OR_RETURN_ERROR(
          cs->offsets()->Get(k) <= seg_size,
          InvalidProgram,
          "%s = %" PRIu64 " exceeds the constant segment size %" PRIu64,
          FieldPath("constant_segment").item("offsets", k).c_str(),
          cs->offsets()->Get(k),
          seg_size);
    }
  }
  const auto* cb = program->constant_buffer();
  for (flatbuffers::uoffset_t k = 0; k < vsize(cb); ++k) {
    ET_CHECK_OR_RETURN_ERROR(
        cb->Get(k) != nullptr,
        InvalidProgram,
        "%s is null",
        FieldPath("constant_buffer").at(k).c_str());
  }
  return Error::Ok;
}

Error validate_mutable_data_segments(const fb::Program* program) {
  const auto* segs = program->segments();
  const auto* mds = program->mutable_data_segments();
  for (flatbuffers::uoffset_t m = 0; m < vsize(mds); ++m) {
    const auto path = [m]() {
      return FieldPath("mutable_data_segments").at(m);
    };
    const auto* sub = mds->Get(m);
    ET_CHECK_OR_RETURN_ERROR(
        sub != nullptr, InvalidProgram, "%s is null", path().c_str());
    ET_CHECK_OR_RETURN_ERROR(
        segs != nullptr && sub->segment_index() < segs->size(),
        InvalidProgram,
        "%s %" PRIu32 " out of range (%zu segments)",
        path().field("segment_index").c_str(),
        sub->segment_index(),
        vsize(segs));
    ET_CHECK_OR_RETURN_ERROR(
        sub->offsets() != nullptr && elements_aligned(sub->offsets()),
        InvalidProgram,
        "%s is missing or misaligned",
        path().field("offsets").c_str());
    const uint64_t seg_size = segs->Get(sub->segment_index())->size();
    for (flatbuffers::uoffset_t k = 0; k < sub->offsets()->size(); ++k) {
      ET_CHECK_OR_RETURN_ERROR(
          sub->offsets()->Get(k) <= seg_size,
          InvalidProgram,
          "%s = %" PRIu64 " exceeds segment size %" PRIu64,
          path().item("offsets", k).c_str(),
          sub->offsets()->Get(k),
          seg_size);
    }
  }
  return Error::Ok;
}

/// Named data: keys present and unique, segments in range.
Error validate_named_data(const fb::Program* program) {
  const auto* nd = program->named_data();
  if (nd == nullptr) {
    return Error::Ok;
  }
  const auto* segs = program->segments();
  ET_CHECK_OR_RETURN_ERROR(
      segs != nullptr,
      InvalidProgram,
      "Program.named_data is present but Program.segments is missing");
  std::vector<std::string_view> keys;
  keys.reserve(nd->size());  // bounded: each entry takes >= 4 file bytes
  for (flatbuffers::uoffset_t i = 0; i < nd->size(); ++i) {
    const auto path = [i]() { return FieldPath("named_data").at(i); };
    const auto* e = nd->Get(i);
    ET_CHECK_OR_RETURN_ERROR(
        e != nullptr, InvalidProgram, "%s is null", path().c_str());
    ET_CHECK_OR_RETURN_ERROR(
        e->key() != nullptr,
        InvalidProgram,
        "%s is missing",
        path().field("key").c_str());
    ET_CHECK_OR_RETURN_ERROR(
        e->segment_index() < segs->size(),
        InvalidProgram,
        "%s %" PRIu32 " out of range (%u segments)",
        path().field("segment_index").c_str(),
        e->segment_index(),
        static_cast<unsigned>(segs->size()));
    keys.emplace_back(e->key()->data(), e->key()->size());
  }
  const auto dup = first_duplicate(&keys);
  ET_CHECK_OR_RETURN_ERROR(
      dup == keys.cend(),
      InvalidProgram,
      "named_data: duplicate key '%.*s'",
      shown_length(*dup),
      dup->data());
  return Error::Ok;
}

Error validate_backend_delegate_data(const fb::Program* program) {
  const auto* bdd = program->backend_delegate_data();
  for (flatbuffers::uoffset_t i = 0; i < vsize(bdd); ++i) {
    ET_CHECK_OR_RETURN_ERROR(
        bdd->Get(i) != nullptr && bdd->Get(i)->data() != nullptr,
        InvalidProgram,
        "%s or its data is missing",
        FieldPath("backend_delegate_data").at(i).c_str());
  }
  return Error::Ok;
}

/// The plan's own required fields.
Error validate_plan_fields(const fb::ExecutionPlan* plan, size_t p) {
  const auto missing = [p](const char* f) {
    return FieldPath::plan(p).field(f);
  };
  ET_CHECK_OR_RETURN_ERROR(
      plan != nullptr,
      InvalidProgram,
      "%s is null",
      FieldPath::plan(p).c_str());
  ET_CHECK_OR_RETURN_ERROR(
      plan->name() != nullptr,
      InvalidProgram,
      "%s is missing",
      missing("name").c_str());
  ET_CHECK_OR_RETURN_ERROR(
      plan->values() != nullptr,
      InvalidProgram,
      "%s is missing",
      missing("values").c_str());
  ET_CHECK_OR_RETURN_ERROR(
      plan->inputs() != nullptr,
      InvalidProgram,
      "%s is missing",
      missing("inputs").c_str());
  ET_CHECK_OR_RETURN_ERROR(
      plan->outputs() != nullptr,
      InvalidProgram,
      "%s is missing",
      missing("outputs").c_str());
  ET_CHECK_OR_RETURN_ERROR(
      plan->chains() != nullptr && plan->chains()->size() > 0,
      InvalidProgram,
      "%s is missing or empty",
      missing("chains").c_str());
  ET_CHECK_OR_RETURN_ERROR(
      plan->non_const_buffer_sizes() != nullptr,
      InvalidProgram,
      "%s is missing",
      missing("non_const_buffer_sizes").c_str());
  return Error::Ok;
}

/// Planned buffers: no negative sizes, the total fits in int64, and every
/// buffer device is known.
Error validate_planned_buffers(const PlanContext& c) {
  const auto* ncbs = c.plan->non_const_buffer_sizes();
  int64_t total = 0;
  for (flatbuffers::uoffset_t i = 0; i < ncbs->size(); ++i) {
    const int64_t s = ncbs->Get(i);
    ET_CHECK_OR_RETURN_ERROR(
        s >= 0,
        InvalidProgram,
        "%s = %" PRId64 " is negative",
        c.path().item("non_const_buffer_sizes", i).c_str(),
        s);
    ET_CHECK_OR_RETURN_ERROR(
        checked_add(total, s, &total),
        InvalidProgram,
        "%s: total overflows",
        c.path().field("non_const_buffer_sizes").c_str());
  }
  const auto* devs = c.plan->non_const_buffer_device();
  for (flatbuffers::uoffset_t i = 0; i < vsize(devs); ++i) {
    const auto* d = devs->Get(i);
    ET_CHECK_OR_RETURN_ERROR(
        d != nullptr && (static_cast<int8_t>(d->device_type()) == 0 ||
                         static_cast<int8_t>(d->device_type()) == 1),
        InvalidProgram,
        "%s is null or has an invalid device_type",
        c.path().item("non_const_buffer_device", i).c_str());
  }
  return Error::Ok;
}

/// plan.inputs or plan.outputs: value indices.
Error validate_io_indices(
    const PlanContext& c,
    const char* field,
    const flatbuffers::Vector<int32_t>* indices) {
  for (flatbuffers::uoffset_t i = 0; i < indices->size(); ++i) {
    ET_CHECK_OR_RETURN_ERROR(
        index_in_range(indices->Get(i), c.num_values),
        InvalidProgram,
        "%s = %" PRId32 " is not a value index (%zu values)",
        c.path().item(field, i).c_str(),
        indices->Get(i),
        c.num_values);
  }
  return Error::Ok;
}

Error validate_operators(const PlanContext& c) {
  const auto* ops = c.plan->operators();
  for (flatbuffers::uoffset_t i = 0; i < vsize(ops); ++i) {
    ET_CHECK_OR_RETURN_ERROR(
        ops->Get(i) != nullptr && ops->Get(i)->name() != nullptr,
        InvalidProgram,
        "%s is missing",
        c.path().item("operators", i).field("name").c_str());
  }
  return Error::Ok;
}

}  // namespace

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
    const fb::Program* program, const ProgramLayout& layout) {
  ET_CHECK_OK_OR_RETURN_ERROR(validate_plan_entries(program));
  ET_CHECK_OK_OR_RETURN_ERROR(validate_segments(program, layout));
  ET_CHECK_OK_OR_RETURN_ERROR(validate_constant_tables(program));
  ET_CHECK_OK_OR_RETURN_ERROR(validate_mutable_data_segments(program));
  ET_CHECK_OK_OR_RETURN_ERROR(validate_named_data(program));
  ET_CHECK_OK_OR_RETURN_ERROR(validate_backend_delegate_data(program));
  return Error::Ok;
}

Error validate_execution_plan(const fb::Program* program, size_t p) {
  const auto* plans = program->execution_plan();
  ET_CHECK_OR_RETURN_ERROR(
      plans != nullptr && p < plans->size(),
      InvalidArgument,
      "%s does not exist",
      FieldPath::plan(p).c_str());
  const auto* plan = plans->Get(static_cast<flatbuffers::uoffset_t>(p));
  ET_CHECK_OK_OR_RETURN_ERROR(validate_plan_fields(plan, p));

  const PlanContext c{
      program, plan, p, plan->values()->size(), constant_table(program)};
  ET_CHECK_OK_OR_RETURN_ERROR(validate_planned_buffers(c));
  ET_CHECK_OK_OR_RETURN_ERROR(validate_values(c));
  ET_CHECK_OK_OR_RETURN_ERROR(validate_io_indices(c, "inputs", plan->inputs()));
  ET_CHECK_OK_OR_RETURN_ERROR(
      validate_io_indices(c, "outputs", plan->outputs()));
  ET_CHECK_OK_OR_RETURN_ERROR(validate_operators(c));
  ET_CHECK_OK_OR_RETURN_ERROR(validate_delegates(c));
  ET_CHECK_OK_OR_RETURN_ERROR(validate_chains(c));
  return validate_storage_rules(plan, p);
}

Error validate_all_execution_plans(const fb::Program* program) {
  const auto* plans = program->execution_plan();
  ET_CHECK_OR_RETURN_ERROR(
      plans != nullptr, InvalidProgram, "Program.execution_plan is missing");
  std::vector<std::string_view> names;
  names.reserve(plans->size());
  for (flatbuffers::uoffset_t p = 0; p < plans->size(); ++p) {
    ET_CHECK_OK_OR_RETURN_ERROR(validate_execution_plan(program, p));
    names.emplace_back(
        plans->Get(p)->name()->data(), plans->Get(p)->name()->size());
  }
  const auto dup = first_duplicate(&names);
  ET_CHECK_OR_RETURN_ERROR(
      dup == names.cend(),
      InvalidProgram,
      "execution_plan: duplicate method name '%.*s'",
      shown_length(*dup),
      dup->data());
  return Error::Ok;
}

}  // namespace detail
}  // namespace runtime
}  // namespace executorch
