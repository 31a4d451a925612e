/*
 * Tensor parsing for Method load: metadata checks, strides from the dim
 * order, and the data pointer (planned memory, constants, mutable initial
 * state, external data).
 */
#include <executorch/runtime/executor/detail/tensor_parser.h>

#include <cinttypes>
#include <cstdint>
#include <cstring>
#include <new>

#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_dimension_limit.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/tensor_layout.h>
#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/executor/detail/program_access.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {
namespace internal {

namespace fb = ::executorch_flatbuffer;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;

namespace {

constexpr int8_t kLocationExternal = 1;

bool is_external(const fb::Tensor* t) {
  const auto* extra = t->extra_tensor_info();
  return extra != nullptr &&
      static_cast<int8_t>(extra->location()) == kLocationExternal;
}

/// The fully qualified name of an EXTERNAL tensor, or null (logged).
const char* external_key(const fb::Tensor* t, size_t value_index) {
  const auto* extra = t->extra_tensor_info();
  const auto* fqn = extra ? extra->fully_qualified_name() : nullptr;
  if (fqn == nullptr) {
    ET_LOG(
        Error,
        "value %zu: EXTERNAL tensor has no extra_tensor_info.fully_qualified_name",
        value_index);
    return nullptr;
  }
  return fqn->c_str();
}

/// Checks that an external layout matches the serialized tensor exactly.
Error check_layout(
    const TensorLayout& layout,
    const fb::Tensor* t,
    const char* key) {
  const auto* sizes = t->sizes();
  const auto* dim_order = t->dim_order();
  if (sizes == nullptr || dim_order == nullptr) {
    ET_LOG(Error, "external tensor '%s': missing sizes or dim_order", key);
    return Error::InvalidProgram;
  }
  if (static_cast<int8_t>(layout.scalar_type()) !=
      static_cast<int8_t>(t->scalar_type())) {
    ET_LOG(
        Error,
        "external tensor '%s': dtype %d in the data map, %d in the program",
        key,
        static_cast<int>(layout.scalar_type()),
        static_cast<int>(t->scalar_type()));
    return Error::InvalidExternalData;
  }
  if (layout.sizes().size() != sizes->size() ||
      layout.dim_order().size() != dim_order->size()) {
    ET_LOG(
        Error,
        "external tensor '%s': rank %zu in the data map, %u in the program",
        key,
        layout.sizes().size(),
        sizes->size());
    return Error::InvalidExternalData;
  }
  for (size_t i = 0; i < layout.sizes().size(); ++i) {
    if (layout.sizes()[i] != sizes->Get(static_cast<flatbuffers::uoffset_t>(i))) {
      ET_LOG(Error, "external tensor '%s': size of dim %zu differs", key, i);
      return Error::InvalidExternalData;
    }
  }
  for (size_t i = 0; i < layout.dim_order().size(); ++i) {
    if (layout.dim_order()[i] !=
        dim_order->Get(static_cast<flatbuffers::uoffset_t>(i))) {
      ET_LOG(Error, "external tensor '%s': dim_order[%zu] differs", key, i);
      return Error::InvalidExternalData;
    }
  }
  return Error::Ok;
}

/// The planned address of a tensor with allocation info.
Result<void*> planned_address(
    const LoadContext& ctx,
    const fb::AllocationDetails* alloc,
    size_t nbytes,
    size_t value_index) {
  if (ctx.planned_memory == nullptr) {
    ET_LOG(
        Error,
        "value %zu: tensor is memory-planned but the MemoryManager has no "
        "planned memory",
        value_index);
    return Error::InvalidState;
  }
  const uint64_t offset64 =
      (static_cast<uint64_t>(alloc->memory_offset_high()) << 32) |
      alloc->memory_offset_low();
  size_t offset = 0;
  if (!detail::checked_cast(offset64, &offset)) {
    ET_LOG(
        Error,
        "value %zu: allocation_info offset %" PRIu64
        " does not fit this host's address space",
        value_index,
        offset64);
    return Error::NotSupported;
  }
  const uint32_t memory_id = alloc->memory_id();
  if (memory_id == 0) {
    ET_LOG(
        Error,
        "value %zu: allocation_info.memory_id is 0 (memory ids are 1-based)",
        value_index);
    return Error::InvalidArgument;
  }
  Result<void*> addr =
      ctx.planned_memory->get_offset_address(memory_id - 1, offset, nbytes);
  if (!addr.ok()) {
    ET_LOG(
        Error,
        "value %zu: allocation_info (memory_id %u, offset %zu, %zu bytes) is "
        "outside the planned buffers: error 0x%x",
        value_index,
        memory_id,
        offset,
        nbytes,
        static_cast<unsigned>(addr.error()));
  }
  return addr;
}

/// The data pointer of a tensor (docs/format.md §3.3).
Result<void*> resolve_tensor_data(
    const LoadContext& ctx,
    const fb::Tensor* t,
    size_t nbytes,
    size_t value_index) {
  const fb::AllocationDetails* alloc = t->allocation_info();
  const uint32_t idx = t->data_buffer_idx();

  if (is_external(t)) {
    const char* key = external_key(t, value_index);
    if (key == nullptr) {
      return Error::InvalidExternalData;
    }
    if (alloc == nullptr) {
      for (size_t i = 0; i < ctx.n_external_constants; ++i) {
        if (std::strcmp(ctx.external_constants[i].key, key) == 0) {
          const FreeableBuffer& buf = ctx.external_constants[i].buffer;
          if (buf.size() < nbytes) {
            ET_LOG(
                Error,
                "external tensor '%s': %zu bytes in the data map, %zu needed",
                key,
                buf.size(),
                nbytes);
            return Error::InvalidExternalData;
          }
          // Read in place through typed pointers, like the program's own
          // constants (whose offsets validation checks).
          const size_t elem = elementSize(
              static_cast<ScalarType>(static_cast<int8_t>(t->scalar_type())));
          if (elem > 0 &&
              reinterpret_cast<uintptr_t>(buf.data()) % elem != 0) {
            ET_LOG(
                Error,
                "external tensor '%s': its data is not aligned to the element "
                "size %zu",
                key,
                elem);
            return Error::InvalidExternalData;
          }
          return const_cast<void*>(buf.data());
        }
      }
      ET_LOG(Error, "external tensor '%s' was not loaded", key);
      return Error::InvalidExternalData;
    }
    // External data copied into planned memory (mutable tensor).
    if (ctx.external_map == nullptr) {
      ET_LOG(
          Error,
          "value %zu: tensor '%s' takes its initial data from an external "
          "data map, but none was given",
          value_index,
          key);
      return Error::InvalidExternalData;
    }
    Result<const TensorLayout> layout = ctx.external_map->get_tensor_layout(key);
    if (!layout.ok()) {
      ET_LOG(Error, "external tensor '%s': no layout in the data map", key);
      return layout.error();
    }
    Error err = check_layout(layout.get(), t, key);
    if (err != Error::Ok) {
      return err;
    }
    Result<void*> addr = planned_address(ctx, alloc, nbytes, value_index);
    if (!addr.ok()) {
      return addr.error();
    }
    err = ctx.external_map->load_data_into(key, addr.get(), nbytes);
    if (err != Error::Ok) {
      ET_LOG(Error, "external tensor '%s': loading its data failed", key);
      return err;
    }
    return addr.get();
  }

  if (idx > 0 && alloc == nullptr) {
    Result<const void*> data =
        ctx.program->get_constant_buffer_data(idx, nbytes);
    if (!data.ok()) {
      ET_LOG(
          Error,
          "value %zu: constant data_buffer_idx %u (%zu bytes) is not in the "
          "program",
          value_index,
          idx,
          nbytes);
      return data.error();
    }
    return const_cast<void*>(data.get());
  }

  if (alloc != nullptr) {
    Result<void*> addr = planned_address(ctx, alloc, nbytes, value_index);
    if (!addr.ok() || idx == 0) {
      return addr;
    }
    // Planned tensor with a serialized initial value.
    Error err = ProgramAccess::load_mutable_subsegment_into(
        *ctx.program, 0, idx, nbytes, addr.get());
    if (err != Error::Ok) {
      ET_LOG(
          Error,
          "value %zu: initial value data_buffer_idx %u (%zu bytes) cannot be "
          "loaded from the mutable data segment",
          value_index,
          idx,
          nbytes);
      return err;
    }
    return addr.get();
  }

  // Neither planned nor constant: filled in later (set_input,
  // set_output_data_ptr, a kernel or a delegate).
  return nullptr;
}

} // namespace

bool tensor_is_planned(const fb::Tensor* t) {
  return t->allocation_info() != nullptr || t->data_buffer_idx() != 0;
}

bool tensor_is_external_constant(const fb::Tensor* t) {
  return is_external(t) && t->allocation_info() == nullptr;
}

Result<Tensor> parse_tensor(
    const LoadContext& ctx,
    const fb::Tensor* t,
    size_t value_index) {
  if (t->storage_offset() != 0) {
    ET_LOG(
        Error,
        "value %zu: tensor storage_offset %d is not supported (must be 0)",
        value_index,
        t->storage_offset());
    return Error::NotSupported;
  }
  const int8_t st = static_cast<int8_t>(t->scalar_type());
  const ScalarType dtype = static_cast<ScalarType>(st);
  if (!isValid(dtype)) {
    ET_LOG(
        Error, "value %zu: tensor scalar_type %d is invalid", value_index, st);
    return Error::InvalidProgram;
  }
  const int8_t dyn = static_cast<int8_t>(t->shape_dynamism());
  if (dyn == static_cast<int8_t>(TensorShapeDynamism::DYNAMIC_UNBOUND)) {
    ET_LOG(
        Error,
        "value %zu: tensor shape_dynamism DYNAMIC_UNBOUND is not supported",
        value_index);
    return Error::NotSupported;
  }
  if (dyn != static_cast<int8_t>(TensorShapeDynamism::STATIC) &&
      dyn != static_cast<int8_t>(TensorShapeDynamism::DYNAMIC_BOUND)) {
    ET_LOG(
        Error,
        "value %zu: tensor shape_dynamism %d is invalid",
        value_index,
        dyn);
    return Error::InvalidProgram;
  }
  const TensorShapeDynamism dynamism = static_cast<TensorShapeDynamism>(dyn);

  const auto* s_sizes = t->sizes();
  if (s_sizes == nullptr) {
    ET_LOG(Error, "value %zu: tensor has no sizes", value_index);
    return Error::InvalidProgram;
  }
  const size_t rank = s_sizes->size();
  if (rank > kTensorDimensionLimit) {
    ET_LOG(
        Error,
        "value %zu: tensor rank %zu exceeds the limit of %zu (sizes)",
        value_index,
        rank,
        static_cast<size_t>(kTensorDimensionLimit));
    return Error::InvalidProgram;
  }
  const auto* s_dim_order = t->dim_order();
  if (s_dim_order == nullptr || s_dim_order->size() != rank) {
    ET_LOG(
        Error,
        "value %zu: tensor dim_order is missing or its length differs from "
        "rank %zu",
        value_index,
        rank);
    return Error::InvalidProgram;
  }
  const int32_t* sizes_in = s_sizes->data();
  const uint8_t* dim_order_in = s_dim_order->data();
  for (size_t i = 0; i < rank; ++i) {
    if (sizes_in[i] < 0) {
      ET_LOG(
          Error,
          "value %zu: tensor sizes[%zu] = %d is negative",
          value_index,
          i,
          sizes_in[i]);
      return Error::InvalidProgram;
    }
  }
  // dim_order must be a permutation of 0..rank-1.
  bool seen[kTensorDimensionLimit] = {};
  for (size_t i = 0; i < rank; ++i) {
    const uint8_t d = dim_order_in[i];
    if (d >= rank || seen[d]) {
      ET_LOG(
          Error,
          "value %zu: tensor dim_order is not a permutation of 0..%zu",
          value_index,
          rank == 0 ? 0 : rank - 1);
      return Error::Internal;
    }
    seen[d] = true;
  }
  size_t numel = 0;
  size_t nbytes = 0;
  if (!detail::checked_nbytes(
          sizes_in, rank, elementSize(dtype), &numel, &nbytes)) {
    ET_LOG(
        Error,
        "value %zu: tensor element count or byte size overflows (sizes)",
        value_index);
    return Error::InvalidProgram;
  }

  MemoryAllocator* alloc = ctx.method_allocator;
  // Sizes: the flatbuffer's array for static shapes; a writable copy when a
  // resize may change them.
  TensorImpl::SizesType* sizes =
      const_cast<TensorImpl::SizesType*>(sizes_in);
  TensorImpl::DimOrderType* dim_order =
      const_cast<TensorImpl::DimOrderType*>(dim_order_in);
  if (dynamism != TensorShapeDynamism::STATIC) {
    sizes = allocate_array<TensorImpl::SizesType>(alloc, rank);
    if (sizes == nullptr) {
      return Error::MemoryAllocationFailed;
    }
    if (rank > 0) {
      std::memcpy(sizes, sizes_in, rank * sizeof(*sizes));
    }
  }
  TensorImpl::StridesType* strides =
      allocate_array<TensorImpl::StridesType>(alloc, rank);
  if (strides == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  // Innermost dim has stride 1; walking outward multiply by the size of the
  // next-inner dim (a 0-sized dim counts as 1).
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    const uint8_t d = dim_order_in[i];
    strides[d] = static_cast<TensorImpl::StridesType>(stride);
    const int64_t s = sizes_in[d] == 0 ? 1 : sizes_in[d];
    if (i > 0 &&
        (__builtin_mul_overflow(stride, s, &stride) || stride > INT32_MAX)) {
      ET_LOG(
          Error, "value %zu: tensor strides overflow int32 (sizes)", value_index);
      return Error::InvalidProgram;
    }
  }

  executorch::aten::DeviceType device_type = executorch::aten::DeviceType::CPU;
  executorch::aten::DeviceIndex device_index = 0;
  if (const auto* extra = t->extra_tensor_info()) {
    const int8_t dt = static_cast<int8_t>(extra->device_type());
    if (dt != 0 && dt != 1) {
      ET_LOG(
          Error,
          "value %zu: extra_tensor_info.device_type %d is invalid",
          value_index,
          dt);
      return Error::InvalidProgram;
    }
    device_type = static_cast<executorch::aten::DeviceType>(dt);
    device_index = static_cast<executorch::aten::DeviceIndex>(extra->device_index());
  }

  Result<void*> data = resolve_tensor_data(ctx, t, nbytes, value_index);
  if (!data.ok()) {
    return data.error();
  }

  TensorImpl* impl = allocate_array<TensorImpl>(alloc, 1);
  if (impl == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  new (impl) TensorImpl(
      dtype,
      static_cast<ssize_t>(rank),
      sizes,
      data.get(),
      dim_order,
      strides,
      dynamism,
      device_type,
      device_index);
  return Tensor(impl);
}

Error load_external_constants(
    const fb::ExecutionPlan* plan,
    const NamedDataMap* external_map,
    MemoryAllocator* method_allocator,
    ExternalConstant** out,
    size_t* out_count) {
  *out = nullptr;
  *out_count = 0;
  const auto* values = plan->values();
  if (values == nullptr) {
    return Error::Ok;
  }
  size_t n = 0;
  for (flatbuffers::uoffset_t i = 0; i < values->size(); ++i) {
    const fb::EValue* v = values->Get(i);
    if (v != nullptr && v->val_type() == fb::KernelTypes::Tensor &&
        v->val_as_Tensor() != nullptr &&
        tensor_is_external_constant(v->val_as_Tensor())) {
      ++n;
    }
  }
  if (n == 0) {
    return Error::Ok;
  }
  if (external_map == nullptr) {
    ET_LOG(
        Error,
        "method '%s' has %zu external constant tensor(s) but no external "
        "data map (.ptd) was given",
        plan->name() ? plan->name()->c_str() : "?",
        n);
    return Error::InvalidState;
  }
  ExternalConstant* list = allocate_array<ExternalConstant>(method_allocator, n);
  if (list == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  size_t count = 0;
  Error err = Error::Ok;
  for (flatbuffers::uoffset_t i = 0; i < values->size() && err == Error::Ok;
       ++i) {
    const fb::EValue* v = values->Get(i);
    if (v == nullptr || v->val_type() != fb::KernelTypes::Tensor ||
        v->val_as_Tensor() == nullptr ||
        !tensor_is_external_constant(v->val_as_Tensor())) {
      continue;
    }
    const fb::Tensor* t = v->val_as_Tensor();
    const char* key = external_key(t, i);
    if (key == nullptr) {
      err = Error::InvalidExternalData;
      break;
    }
    bool dup = false;
    for (size_t j = 0; j < count; ++j) {
      if (std::strcmp(list[j].key, key) == 0) {
        dup = true;
        break;
      }
    }
    if (dup) {
      continue;
    }
    Result<const TensorLayout> layout = external_map->get_tensor_layout(key);
    if (!layout.ok()) {
      ET_LOG(
          Error,
          "external constant '%s' is not in the external data map",
          key);
      err = layout.error();
      break;
    }
    err = check_layout(layout.get(), t, key);
    if (err != Error::Ok) {
      break;
    }
    Result<FreeableBuffer> data = external_map->get_data(key);
    if (!data.ok()) {
      ET_LOG(Error, "external constant '%s': fetching its data failed", key);
      err = Error::InvalidExternalData;
      break;
    }
    new (&list[count]) ExternalConstant{key, std::move(data.get())};
    ++count;
  }
  if (err != Error::Ok) {
    for (size_t j = 0; j < count; ++j) {
      list[j].~ExternalConstant();
    }
    return err;
  }
  *out = list;
  *out_count = count;
  return Error::Ok;
}

} // namespace internal
} // namespace runtime
} // namespace executorch
