/*
 * Program validation of plan.values: value kinds and union payloads, list
 * items, and tensors (dtype, shape, dim order, and where the data lives:
 * constant data, mutable data segments, planned memory).
 */
#include <cinttypes>

#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/executor/detail/plan_validation.h>
#include <executorch/runtime/executor/detail/program_validation.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {
namespace detail {

namespace fb = executorch_flatbuffer;

namespace {

/// How many bytes a tensor's declared shape covers, when it is known.
struct TensorExtent {
  /// False for the placeholder shape of a dynamic plan input: the ranges
  /// that depend on nbytes are then checked when the caller binds it.
  bool sized;
  size_t nbytes;
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

/// scalar_type, storage_offset, shape_dynamism, and the shape vectors:
/// present, rank <= kMaxTensorRank, dim_order a permutation of 0..rank-1.
Error check_tensor_header(
    const PlanContext& c, size_t vi, const fb::Tensor* t) {
  const auto at = [&](const char* f) { return c.tensor_path(vi).field(f); };
  const int8_t st = static_cast<int8_t>(t->scalar_type());
  ET_CHECK_OR_RETURN_ERROR(
      scalar_type_element_size(st) != 0,
      InvalidProgram,
      "%s %d is not a valid ScalarType",
      at("scalar_type").c_str(),
      static_cast<int>(st));
  ET_CHECK_OR_RETURN_ERROR(
      t->storage_offset() == 0,
      NotSupported,
      "%s %" PRId32 " is not 0",
      at("storage_offset").c_str(),
      t->storage_offset());
  const int8_t dyn = static_cast<int8_t>(t->shape_dynamism());
  ET_CHECK_OR_RETURN_ERROR(
      dyn >= 0 && dyn <= 2,
      InvalidProgram,
      "%s %d is not a valid TensorShapeDynamism",
      at("shape_dynamism").c_str(),
      static_cast<int>(dyn));
  ET_CHECK_OR_RETURN_ERROR(
      t->sizes() != nullptr,
      InvalidProgram,
      "%s is missing",
      at("sizes").c_str());
  ET_CHECK_OR_RETURN_ERROR(
      t->dim_order() != nullptr,
      InvalidProgram,
      "%s is missing",
      at("dim_order").c_str());
  const size_t rank = t->sizes()->size();
  ET_CHECK_OR_RETURN_ERROR(
      rank <= kMaxTensorRank,
      InvalidProgram,
      "%s: rank %zu too large (limit %zu)",
      at("sizes").c_str(),
      rank,
      kMaxTensorRank);
  ET_CHECK_OR_RETURN_ERROR(
      t->dim_order()->size() == rank,
      InvalidProgram,
      "%s has %u entries, rank is %zu",
      at("dim_order").c_str(),
      static_cast<unsigned>(t->dim_order()->size()),
      rank);
  uint32_t seen = 0;
  for (size_t d = 0; d < rank; ++d) {
    const uint8_t o =
        t->dim_order()->Get(static_cast<flatbuffers::uoffset_t>(d));
    ET_CHECK_OR_RETURN_ERROR(
        o < rank && (seen & (1u << o)) == 0,
        InvalidProgram,
        "%s is not a permutation of 0..%zu (entry %zu = %u)",
        at("dim_order").c_str(),
        rank == 0 ? 0 : rank - 1,
        d,
        static_cast<unsigned>(o));
    seen |= 1u << o;
  }
  return Error::Ok;
}

/**
 * The rule for sizes: every size is >= 0 and numel * element size fits in
 * size_t. The one exception is a non-static plan input, whose sizes are a
 * placeholder the caller replaces in set_input (which checks the shape it is
 * given): its negative or overflowing sizes are accepted here and the tensor
 * is treated as unsized. Decoders rely on this rule (tensor_parser.cpp).
 */
Error check_tensor_sizes(
    const PlanContext& c,
    size_t vi,
    const fb::Tensor* t,
    TensorExtent* extent) {
  const auto sizes_path = [&]() { return c.tensor_path(vi).field("sizes"); };
  const bool excused =
      static_cast<int8_t>(t->shape_dynamism()) != 0 && is_plan_input(c, vi);
  const size_t rank = t->sizes()->size();
  *extent = TensorExtent{true, 0};
  for (size_t d = 0; d < rank; ++d) {
    const int32_t s = t->sizes()->Get(static_cast<flatbuffers::uoffset_t>(d));
    if (s < 0) {
      ET_CHECK_OR_RETURN_ERROR(
          excused,
          InvalidProgram,
          "%s = %" PRId32 " is negative",
          sizes_path().at(d).c_str(),
          s);
      extent->sized = false;
    }
  }
  size_t numel = 0;
  if (extent->sized &&
      !checked_nbytes(
          t->sizes()->data(),
          rank,
          scalar_type_element_size(static_cast<int8_t>(t->scalar_type())),
          &numel,
          &extent->nbytes)) {
    ET_CHECK_OR_RETURN_ERROR(
        excused,
        InvalidProgram,
        "%s: numel overflow (numel * element size does not fit)",
        sizes_path().c_str());
    extent->sized = false;
  }
  return Error::Ok;
}

/// extra_tensor_info: enum ranges, and a name for EXTERNAL data.
Error check_extra_tensor_info(
    const PlanContext& c, size_t vi, const fb::Tensor* t, bool* external) {
  *external = false;
  const auto* eti = t->extra_tensor_info();
  if (eti == nullptr) {
    return Error::Ok;
  }
  const auto at = [&](const char* f) {
    return c.tensor_path(vi).field("extra_tensor_info").field(f);
  };
  const int8_t loc = static_cast<int8_t>(eti->location());
  ET_CHECK_OR_RETURN_ERROR(
      loc == 0 || loc == 1,
      InvalidProgram,
      "%s %d is not a valid TensorDataLocation",
      at("location").c_str(),
      static_cast<int>(loc));
  const int8_t dev = static_cast<int8_t>(eti->device_type());
  ET_CHECK_OR_RETURN_ERROR(
      dev == 0 || dev == 1,
      InvalidProgram,
      "%s %d is not a valid DeviceType",
      at("device_type").c_str(),
      static_cast<int>(dev));
  *external = loc == 1;
  ET_CHECK_OR_RETURN_ERROR(
      !*external || eti->fully_qualified_name() != nullptr,
      InvalidProgram,
      "%s is missing for an EXTERNAL tensor",
      at("fully_qualified_name").c_str());
  return Error::Ok;
}

/**
 * Constant data (data_buffer_idx > 0, no allocation_info): the index is in
 * range and the bytes are aligned to the element size and inside the
 * constant segment or constant_buffer entry. Constant data is read in place
 * through typed pointers, and segments and buffers start max-aligned, so
 * each offset must keep elements aligned.
 */
Error check_constant_data(
    const PlanContext& c,
    size_t vi,
    const fb::Tensor* t,
    const TensorExtent& extent) {
  const uint32_t idx = t->data_buffer_idx();
  const size_t elem =
      scalar_type_element_size(static_cast<int8_t>(t->scalar_type()));
  ET_CHECK_OR_RETURN_ERROR(
      idx < c.constants.count,
      InvalidProgram,
      "%s %" PRIu32 " out of range (%zu constant entries)",
      c.tensor_path(vi).field("data_buffer_idx").c_str(),
      idx,
      c.constants.count);
  if (c.constants.segment_path) {
    const uint64_t off = c.program->constant_segment()->offsets()->Get(idx);
    ET_CHECK_OR_RETURN_ERROR(
        off % elem == 0,
        InvalidProgram,
        "%s: constant_segment.offsets[%" PRIu32 "] = %" PRIu64
        " is not aligned to the element size %zu",
        c.tensor_path(vi).c_str(),
        idx,
        off,
        elem);
    ET_CHECK_OR_RETURN_ERROR(
        !extent.sized ||
            range_within(off, extent.nbytes, c.constants.segment_size),
        InvalidProgram,
        "%s: constant_segment.offsets[%" PRIu32 "] %" PRIu64
        " + nbytes %zu exceeds the constant segment size %" PRIu64,
        c.tensor_path(vi).c_str(),
        idx,
        off,
        extent.nbytes,
        c.constants.segment_size);
    return Error::Ok;
  }
  const auto* buf = c.program->constant_buffer()->Get(idx);
  ET_CHECK_OR_RETURN_ERROR(
      buf == nullptr || buf->storage() == nullptr ||
          reinterpret_cast<uintptr_t>(buf->storage()->data()) % elem == 0,
      InvalidProgram,
      "%s: constant_buffer[%" PRIu32
      "].storage is not aligned to the element size %zu",
      c.tensor_path(vi).c_str(),
      idx,
      elem);
  const size_t have = buf == nullptr ? 0 : vsize(buf->storage());
  ET_CHECK_OR_RETURN_ERROR(
      !extent.sized || extent.nbytes <= have,
      InvalidProgram,
      "%s: nbytes %zu exceeds constant_buffer[%" PRIu32 "].storage size %zu",
      c.tensor_path(vi).c_str(),
      extent.nbytes,
      idx,
      have);
  return Error::Ok;
}

/// A planned tensor with an initial value (data_buffer_idx > 0 and
/// allocation_info): the value lies in mutable_data_segments[0].
Error check_mutable_initial_data(
    const PlanContext& c,
    size_t vi,
    const fb::Tensor* t,
    const TensorExtent& extent) {
  const uint32_t idx = t->data_buffer_idx();
  const auto* mds = c.program->mutable_data_segments();
  ET_CHECK_OR_RETURN_ERROR(
      mds != nullptr && mds->size() > 0 && mds->Get(0) != nullptr &&
          mds->Get(0)->offsets() != nullptr,
      InvalidProgram,
      "%s %" PRIu32 " needs mutable_data_segments[0], which is missing",
      c.tensor_path(vi).field("data_buffer_idx").c_str(),
      idx);
  const auto* sub = mds->Get(0);
  ET_CHECK_OR_RETURN_ERROR(
      idx < sub->offsets()->size(),
      InvalidProgram,
      "%s %" PRIu32 " out of range (mutable_data_segments[0] has %u offsets)",
      c.tensor_path(vi).field("data_buffer_idx").c_str(),
      idx,
      static_cast<unsigned>(sub->offsets()->size()));
  // segment_index was range-checked by validate_program_tables.
  const uint64_t seg_size =
      c.program->segments()->Get(sub->segment_index())->size();
  const uint64_t off = sub->offsets()->Get(idx);
  ET_CHECK_OR_RETURN_ERROR(
      !extent.sized || range_within(off, extent.nbytes, seg_size),
      InvalidProgram,
      "%s: mutable_data_segments[0].offsets[%" PRIu32 "] %" PRIu64
      " + nbytes %zu exceeds segment size %" PRIu64,
      c.tensor_path(vi).c_str(),
      idx,
      off,
      extent.nbytes,
      seg_size);
  return Error::Ok;
}

/// allocation_info: a planned buffer that exists, a range inside it, and an
/// offset aligned to the element size (kernels read planned data through
/// typed pointers; the caller allocates the buffer itself aligned).
Error check_planned_allocation(
    const PlanContext& c,
    size_t vi,
    const fb::Tensor* t,
    const TensorExtent& extent) {
  const auto alloc_path = [&]() {
    return c.tensor_path(vi).field("allocation_info");
  };
  const auto* alloc = t->allocation_info();
  const auto* ncbs = c.plan->non_const_buffer_sizes();
  const uint32_t mem_id = alloc->memory_id();
  ET_CHECK_OR_RETURN_ERROR(
      mem_id >= 1 && mem_id < vsize(ncbs),
      InvalidProgram,
      "%s %" PRIu32 " out of range [1, %zu)",
      alloc_path().field("memory_id").c_str(),
      mem_id,
      vsize(ncbs));
  const uint64_t offset =
      (static_cast<uint64_t>(alloc->memory_offset_high()) << 32) |
      alloc->memory_offset_low();
  const int64_t arena = ncbs->Get(mem_id);
  ET_CHECK_OR_RETURN_ERROR(
      !extent.sized ||
          (arena >= 0 &&
           range_within(offset, extent.nbytes, static_cast<uint64_t>(arena))),
      InvalidProgram,
      "%s: offset %" PRIu64
      " + nbytes %zu exceeds non_const_buffer_sizes[%" PRIu32 "] = %" PRId64,
      alloc_path().c_str(),
      offset,
      extent.nbytes,
      mem_id,
      arena);
  const size_t elem =
      scalar_type_element_size(static_cast<int8_t>(t->scalar_type()));
  ET_CHECK_OR_RETURN_ERROR(
      offset % elem == 0,
      InvalidProgram,
      "%s: offset %" PRIu64 " is not aligned to the element size %zu",
      alloc_path().c_str(),
      offset,
      elem);
  return Error::Ok;
}

Error validate_tensor(const PlanContext& c, size_t vi, const fb::Tensor* t) {
  ET_CHECK_OK_OR_RETURN_ERROR(check_tensor_header(c, vi, t));
  TensorExtent extent{};
  ET_CHECK_OK_OR_RETURN_ERROR(check_tensor_sizes(c, vi, t, &extent));
  bool external = false;
  ET_CHECK_OK_OR_RETURN_ERROR(check_extra_tensor_info(c, vi, t, &external));
  const bool has_initial_data = !external && t->data_buffer_idx() > 0;
  const bool planned = t->allocation_info() != nullptr;
  if (has_initial_data && !planned) {
    ET_CHECK_OK_OR_RETURN_ERROR(check_constant_data(c, vi, t, extent));
  }
  if (has_initial_data && planned) {
    ET_CHECK_OK_OR_RETURN_ERROR(check_mutable_initial_data(c, vi, t, extent));
  }
  if (planned) {
    ET_CHECK_OK_OR_RETURN_ERROR(check_planned_allocation(c, vi, t, extent));
  }
  return Error::Ok;
}

/// The items of an IntList are value indices.
Error validate_int_list(const PlanContext& c, size_t vi, const fb::IntList* l) {
  const auto items_path = [&]() {
    return c.value_path(vi).field("IntList").field("items");
  };
  const auto* items = l->items();
  ET_CHECK_OR_RETURN_ERROR(
      items != nullptr && elements_aligned(items),
      InvalidProgram,
      "%s is missing or misaligned",
      items_path().c_str());
  for (flatbuffers::uoffset_t i = 0; i < items->size(); ++i) {
    ET_CHECK_OR_RETURN_ERROR(
        index_in_range(items->Get(i), c.num_values),
        InvalidProgram,
        "%s = %" PRId64 " is not a value index (%zu values)",
        items_path().at(i).c_str(),
        items->Get(i),
        c.num_values);
  }
  return Error::Ok;
}

/// The items of a (Optional)TensorList are indices of Tensor values (or -1
/// and Null values, for an optional list).
Error validate_tensor_list(
    const PlanContext& c,
    size_t vi,
    const char* kind,
    const flatbuffers::Vector<int32_t>* items,
    bool optional) {
  const auto items_path = [&]() {
    return c.value_path(vi).field(kind).field("items");
  };
  ET_CHECK_OR_RETURN_ERROR(
      items != nullptr, InvalidProgram, "%s is missing", items_path().c_str());
  for (flatbuffers::uoffset_t i = 0; i < items->size(); ++i) {
    const int32_t item = items->Get(i);
    if (optional && item == -1) {
      continue;
    }
    ET_CHECK_OR_RETURN_ERROR(
        index_in_range(item, c.num_values),
        InvalidProgram,
        "%s = %" PRId32 " is not a value index (%zu values)",
        items_path().at(i).c_str(),
        item,
        c.num_values);
    const auto et = value_type(c, static_cast<size_t>(item));
    ET_CHECK_OR_RETURN_ERROR(
        et == fb::KernelTypes::Tensor ||
            (optional && et == fb::KernelTypes::Null),
        InvalidProgram,
        "%s = %" PRId32 " refers to a %s value, not a tensor",
        items_path().at(i).c_str(),
        item,
        fb::EnumNameKernelTypes(et));
  }
  return Error::Ok;
}

Error validate_value(const PlanContext& c, size_t vi) {
  const auto* v =
      c.plan->values()->Get(static_cast<flatbuffers::uoffset_t>(vi));
  ET_CHECK_OR_RETURN_ERROR(
      v != nullptr, InvalidProgram, "%s is null", c.value_path(vi).c_str());
  const auto type = v->val_type();
  const unsigned t = static_cast<unsigned>(type);
  ET_CHECK_OR_RETURN_ERROR(
      t >= static_cast<unsigned>(fb::KernelTypes::Null) &&
          t <= static_cast<unsigned>(fb::KernelTypes::MAX),
      InvalidProgram,
      "%s %u is an unknown value type",
      c.value_path(vi).field("val_type").c_str(),
      t);
  if (type == fb::KernelTypes::Null) {
    return Error::Ok;
  }
  ET_CHECK_OR_RETURN_ERROR(
      v->val() != nullptr,
      InvalidProgram,
      "%s (%s) payload is missing",
      c.value_path(vi).field("val").c_str(),
      fb::EnumNameKernelTypes(type));
  const auto items_path = [&](const char* kind) {
    return c.value_path(vi).field(kind).field("items");
  };
  switch (type) {
    case fb::KernelTypes::Tensor:
      return validate_tensor(c, vi, v->val_as_Tensor());
    case fb::KernelTypes::String:
      ET_CHECK_OR_RETURN_ERROR(
          v->val_as_String()->string_val() != nullptr,
          InvalidProgram,
          "%s is missing",
          c.value_path(vi).field("String").field("string_val").c_str());
      return Error::Ok;
    case fb::KernelTypes::IntList:
      return validate_int_list(c, vi, v->val_as_IntList());
    case fb::KernelTypes::DoubleList:
      ET_CHECK_OR_RETURN_ERROR(
          v->val_as_DoubleList()->items() != nullptr &&
              elements_aligned(v->val_as_DoubleList()->items()),
          InvalidProgram,
          "%s is missing or misaligned",
          items_path("DoubleList").c_str());
      return Error::Ok;
    case fb::KernelTypes::BoolList:
      ET_CHECK_OR_RETURN_ERROR(
          v->val_as_BoolList()->items() != nullptr,
          InvalidProgram,
          "%s is missing",
          items_path("BoolList").c_str());
      return Error::Ok;
    case fb::KernelTypes::TensorList:
      return validate_tensor_list(
          c, vi, "TensorList", v->val_as_TensorList()->items(), false);
    case fb::KernelTypes::OptionalTensorList:
      return validate_tensor_list(
          c,
          vi,
          "OptionalTensorList",
          v->val_as_OptionalTensorList()->items(),
          true);
    default:
      return Error::Ok;  // Int, Bool, Double: the payload table is enough.
  }
}

}  // namespace

fb::KernelTypes value_type(const PlanContext& c, size_t index) {
  const auto* v =
      c.plan->values()->Get(static_cast<flatbuffers::uoffset_t>(index));
  return v == nullptr ? fb::KernelTypes::NONE : v->val_type();
}

Error validate_values(const PlanContext& c) {
  for (size_t vi = 0; vi < c.num_values; ++vi) {
    ET_CHECK_OK_OR_RETURN_ERROR(validate_value(c, vi));
  }
  return Error::Ok;
}

}  // namespace detail
}  // namespace runtime
}  // namespace executorch
