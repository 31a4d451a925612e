/*
 * Value-table parsing for Method load (docs/format.md §3.1).
 *
 * The plan passed program validation (detail/value_validation.cpp) first:
 * every entry exists with a known kind and its payload, list items are
 * value indices of the right kind. Those facts are only asserted here in
 * debug builds. What this file still checks is what validation does not
 * cover: list elements read at load must come earlier in the table,
 * BoolList bytes must be 0 or 1, and IntList items must be Ints.
 */
#include <executorch/runtime/executor/detail/value_parser.h>

#include <cinttypes>
#include <cstdint>
#include <new>
#include <optional>

#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/executor/detail/tensor_parser.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {
namespace internal {

namespace fb = ::executorch_flatbuffer;
using executorch::aten::ArrayRef;
using executorch::aten::Tensor;

namespace {

template <typename T>
T* new_object(MemoryAllocator* alloc, const T& init) {
  T* p = allocate_array<T>(alloc, 1);
  if (p != nullptr) {
    new (p) T(init);
  }
  return p;
}

/// IntList: boxed list of pointers to Int values (forward references are
/// fine; element kinds are checked once every value is parsed).
Error parse_int_list(
    const LoadContext& ctx, const fb::IntList* list, EValue* out) {
  const auto* items = list->items();
  ET_DCHECK(items != nullptr);
  const size_t n = items->size();
  EValue** ptrs = allocate_array<EValue*>(ctx.method_allocator, n);
  int64_t* scratch = allocate_array<int64_t>(ctx.method_allocator, n);
  if (ptrs == nullptr || scratch == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  for (size_t k = 0; k < n; ++k) {
    const int64_t idx = items->Get(static_cast<flatbuffers::uoffset_t>(k));
    ET_DCHECK(detail::index_in_range(idx, ctx.n_values));
    ptrs[k] = &ctx.values[idx];
    scratch[k] = 0;
  }
  auto* boxed = new_object(
      ctx.method_allocator,
      BoxedEvalueList<int64_t>(ptrs, scratch, static_cast<int>(n)));
  if (boxed == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  *out = EValue(boxed);
  return Error::Ok;
}

Error parse_tensor_list(
    const LoadContext& ctx, const fb::TensorList* list, size_t i, EValue* out) {
  const auto* items = list->items();
  ET_DCHECK(items != nullptr);
  const size_t n = items->size();
  EValue** ptrs = allocate_array<EValue*>(ctx.method_allocator, n);
  Tensor* scratch = allocate_array<Tensor>(ctx.method_allocator, n);
  if (ptrs == nullptr || scratch == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  for (size_t k = 0; k < n; ++k) {
    const int32_t idx = items->Get(static_cast<flatbuffers::uoffset_t>(k));
    // Elements are read now, so they must be parsed already.
    if (!detail::index_in_range(idx, i)) {
      ET_LOG(
          Error,
          "value %zu: TensorList items[%zu] = %d is not an earlier value index",
          i,
          k,
          idx);
      return Error::InvalidProgram;
    }
    ET_DCHECK(ctx.values[idx].isTensor());
    ptrs[k] = &ctx.values[idx];
    new (&scratch[k]) Tensor(ctx.values[idx].toTensor());
  }
  auto* boxed = new_object(
      ctx.method_allocator,
      BoxedEvalueList<Tensor>(ptrs, scratch, static_cast<int>(n)));
  if (boxed == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  *out = EValue(boxed);
  return Error::Ok;
}

Error parse_optional_tensor_list(
    const LoadContext& ctx,
    const fb::OptionalTensorList* list,
    size_t i,
    EValue* out) {
  const auto* items = list->items();
  ET_DCHECK(items != nullptr);
  const size_t n = items->size();
  EValue** ptrs = allocate_array<EValue*>(ctx.method_allocator, n);
  auto* scratch =
      allocate_array<std::optional<Tensor>>(ctx.method_allocator, n);
  if (ptrs == nullptr || scratch == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  for (size_t k = 0; k < n; ++k) {
    const int32_t idx = items->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (idx == -1) {
      ptrs[k] = nullptr;
      new (&scratch[k]) std::optional<Tensor>();
      continue;
    }
    if (!detail::index_in_range(idx, i)) {
      ET_LOG(
          Error,
          "value %zu: OptionalTensorList items[%zu] = %d is not an earlier "
          "value index",
          i,
          k,
          idx);
      return Error::InvalidProgram;
    }
    const EValue& elem = ctx.values[idx];
    ET_DCHECK(elem.isNone() || elem.isTensor());
    if (elem.isTensor()) {
      new (&scratch[k]) std::optional<Tensor>(elem.toTensor());
    } else {
      new (&scratch[k]) std::optional<Tensor>();
    }
    ptrs[k] = &ctx.values[idx];
  }
  auto* boxed = new_object(
      ctx.method_allocator,
      BoxedEvalueList<std::optional<Tensor>>(
          ptrs, scratch, static_cast<int>(n)));
  if (boxed == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  *out = EValue(boxed);
  return Error::Ok;
}

Error parse_one(const LoadContext& ctx, const fb::EValue* v, size_t i) {
  EValue* out = &ctx.values[i];
  switch (v->val_type()) {
    case fb::KernelTypes::Null:
      *out = EValue();
      return Error::Ok;
    case fb::KernelTypes::Int:
      *out = EValue(static_cast<int64_t>(v->val_as_Int()->int_val()));
      return Error::Ok;
    case fb::KernelTypes::Bool:
      *out = EValue(static_cast<bool>(v->val_as_Bool()->bool_val()));
      return Error::Ok;
    case fb::KernelTypes::Double:
      *out = EValue(static_cast<double>(v->val_as_Double()->double_val()));
      return Error::Ok;
    case fb::KernelTypes::String: {
      const auto* s = v->val_as_String()->string_val();
      ET_DCHECK(s != nullptr);
      auto* ref = new_object(
          ctx.method_allocator, ArrayRef<char>(s->c_str(), s->size()));
      if (ref == nullptr) {
        return Error::MemoryAllocationFailed;
      }
      *out = EValue(ref);
      return Error::Ok;
    }
    case fb::KernelTypes::DoubleList: {
      const auto* items = v->val_as_DoubleList()->items();
      ET_DCHECK(items != nullptr);
      auto* ref = new_object(
          ctx.method_allocator,
          ArrayRef<double>(
              reinterpret_cast<const double*>(items->data()), items->size()));
      if (ref == nullptr) {
        return Error::MemoryAllocationFailed;
      }
      *out = EValue(ref);
      return Error::Ok;
    }
    case fb::KernelTypes::BoolList: {
      const auto* items = v->val_as_BoolList()->items();
      ET_DCHECK(items != nullptr);
      // Viewed as bool in place: every byte must be 0 or 1.
      const uint8_t* raw = reinterpret_cast<const uint8_t*>(items->data());
      for (size_t k = 0; k < items->size(); ++k) {
        if (raw[k] > 1) {
          ET_LOG(
              Error,
              "value %zu: BoolList items[%zu] = %u is not a bool",
              i,
              k,
              raw[k]);
          return Error::InvalidProgram;
        }
      }
      auto* ref = new_object(
          ctx.method_allocator,
          ArrayRef<bool>(
              reinterpret_cast<const bool*>(items->data()), items->size()));
      if (ref == nullptr) {
        return Error::MemoryAllocationFailed;
      }
      *out = EValue(ref);
      return Error::Ok;
    }
    case fb::KernelTypes::IntList:
      return parse_int_list(ctx, v->val_as_IntList(), out);
    case fb::KernelTypes::TensorList:
      return parse_tensor_list(ctx, v->val_as_TensorList(), i, out);
    case fb::KernelTypes::OptionalTensorList:
      return parse_optional_tensor_list(
          ctx, v->val_as_OptionalTensorList(), i, out);
    case fb::KernelTypes::Tensor: {
      Result<Tensor> t = parse_tensor(ctx, v->val_as_Tensor(), i);
      if (!t.ok()) {
        return t.error();
      }
      *out = EValue(t.get());
      return Error::Ok;
    }
    default:
      // Validation refuses unknown value kinds.
      ET_DCHECK_MSG(false, "value %zu: unknown val_type", i);
      return Error::Internal;
  }
}

}  // namespace

Error parse_values(const LoadContext& ctx, const fb::ExecutionPlan* plan) {
  const auto* values = plan->values();
  for (size_t i = 0; i < ctx.n_values; ++i) {
    const fb::EValue* v = values->Get(static_cast<flatbuffers::uoffset_t>(i));
    ET_DCHECK(
        v != nullptr &&
        (v->val_type() == fb::KernelTypes::Null || v->val() != nullptr));
    Error err = parse_one(ctx, v, i);
    if (err != Error::Ok) {
      return err;
    }
  }
  // IntList elements are re-read on every use: they must be Ints.
  for (size_t i = 0; i < ctx.n_values; ++i) {
    const fb::EValue* v = values->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (v->val_type() != fb::KernelTypes::IntList) {
      continue;
    }
    const auto* items = v->val_as_IntList()->items();
    for (size_t k = 0; k < items->size(); ++k) {
      const int64_t idx = items->Get(static_cast<flatbuffers::uoffset_t>(k));
      if (!ctx.values[idx].isInt()) {
        ET_LOG(
            Error,
            "value %zu: IntList items[%zu] = value %" PRId64 " is not an Int",
            i,
            k,
            idx);
        return Error::InvalidType;
      }
    }
  }
  return Error::Ok;
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
