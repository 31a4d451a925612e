/*
 * Tensor parsing for Method load: sizes and strides from the dim order, and
 * the data pointer (planned memory, constants, mutable initial state,
 * external data).
 *
 * The tensor passed program validation (detail/value_validation.cpp) first,
 * so its dtype, rank, dim order, sizes and data ranges are only asserted
 * here in debug builds. What this file still checks is what validation
 * cannot know: unsupported dynamism, int32 strides, this host's address
 * space, and the memory and data maps the caller supplies.
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
#include <executorch/runtime/platform/assert.h>
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

/// The fully qualified name of an EXTERNAL tensor (validation requires it).
const char* external_key(const fb::Tensor* t) {
  const auto* extra = t->extra_tensor_info();
  ET_DCHECK(extra != nullptr && extra->fully_qualified_name() != nullptr);
  return extra->fully_qualified_name()->c_str();
}

/// Checks that an external layout matches the serialized tensor exactly.
Error check_layout(
    const TensorLayout& layout, const fb::Tensor* t, const char* key) {
  const auto* sizes = t->sizes();
  const auto* dim_order = t->dim_order();
  ET_DCHECK(sizes != nullptr && dim_order != nullptr);
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
    if (layout.sizes()[i] !=
        sizes->Get(static_cast<flatbuffers::uoffset_t>(i))) {
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
  ET_DCHECK(memory_id >= 1);  // validation: ids are 1-based
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

/// Bytes per element of `t`'s dtype (0 for a dtype without a size).
size_t element_size_of(const fb::Tensor* t) {
  return elementSize(
      static_cast<ScalarType>(static_cast<int8_t>(t->scalar_type())));
}

/// True if `p` may be read as elements of `elem` bytes.
bool aligned_to(const void* p, size_t elem) {
  return elem == 0 || reinterpret_cast<uintptr_t>(p) % elem == 0;
}

/// True if `t` is not a Bool tensor, or each of its `nbytes` bytes at `data`
/// is 0 or 1. Kernels read Bool tensors as `bool`, which may hold nothing
/// else, so bytes that come from the file (constants, initial values of
/// mutable tensors, external data) are checked once, where they enter.
bool bool_bytes_valid(const fb::Tensor* t, const void* data, size_t nbytes) {
  if (t->scalar_type() != fb::ScalarType::BOOL || data == nullptr) {
    return true;
  }
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < nbytes; ++i) {
    if (bytes[i] > 1) {
      return false;
    }
  }
  return true;
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
    const char* key = external_key(t);
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
          // constants.
          const size_t elem = element_size_of(t);
          if (!aligned_to(buf.data(), elem)) {
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
    Result<const TensorLayout> layout =
        ctx.external_map->get_tensor_layout(key);
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
    // Validation checks that the offsets inside the constant data keep
    // elements aligned; where that data sits in memory depends on the file
    // and its loader (a segment at an odd file offset, an unaligned buffer).
    // Kernels read through typed pointers, so check the address itself.
    if (!aligned_to(data.get(), element_size_of(t))) {
      ET_LOG(
          Error,
          "value %zu: constant data_buffer_idx %u is not aligned to its "
          "element size %zu in memory",
          value_index,
          idx,
          element_size_of(t));
      return Error::InvalidProgram;
    }
    return const_cast<void*>(data.get());
  }

  if (alloc != nullptr) {
    Result<void*> addr = planned_address(ctx, alloc, nbytes, value_index);
    if (!addr.ok()) {
      return addr;
    }
    // The offset is checked by validation; the buffer is the caller's.
    if (!aligned_to(addr.get(), element_size_of(t))) {
      ET_LOG(
          Error,
          "value %zu: planned address is not aligned to its element size "
          "%zu (is a planned buffer misaligned?)",
          value_index,
          element_size_of(t));
      return Error::InvalidArgument;
    }
    if (idx == 0) {
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

/// Sizes, dim order and strides of one tensor, and the bytes it covers.
struct TensorShape {
  size_t rank;
  TensorImpl::SizesType* sizes;
  TensorImpl::DimOrderType* dim_order;
  TensorImpl::StridesType* strides;
  size_t nbytes;
};

/// What program validation (detail/value_validation.cpp) established about
/// the tensor's metadata; asserted in debug builds only.
void assert_validated_header(const fb::Tensor* t) {
  ET_DCHECK(t->storage_offset() == 0);
  ET_DCHECK(
      isValid(static_cast<ScalarType>(static_cast<int8_t>(t->scalar_type()))));
  ET_DCHECK(t->sizes() != nullptr && t->dim_order() != nullptr);
  ET_DCHECK(t->sizes()->size() <= kTensorDimensionLimit);
  ET_DCHECK(t->dim_order()->size() == t->sizes()->size());
  ET_DCHECK(
      t->extra_tensor_info() == nullptr ||
      static_cast<int8_t>(t->extra_tensor_info()->device_type()) <= 1);
  (void)t;
}

/// The tensor's dynamism, if this runtime supports it (validation accepts
/// every valid enum value; DYNAMIC_UNBOUND is not implemented here).
Result<TensorShapeDynamism> supported_dynamism(
    const fb::Tensor* t, size_t value_index) {
  const int8_t dyn = static_cast<int8_t>(t->shape_dynamism());
  if (dyn == static_cast<int8_t>(TensorShapeDynamism::DYNAMIC_UNBOUND)) {
    ET_LOG(
        Error,
        "value %zu: tensor shape_dynamism DYNAMIC_UNBOUND is not supported",
        value_index);
    return Error::NotSupported;
  }
  ET_DCHECK(
      dyn == static_cast<int8_t>(TensorShapeDynamism::STATIC) ||
      dyn == static_cast<int8_t>(TensorShapeDynamism::DYNAMIC_BOUND));
  return static_cast<TensorShapeDynamism>(dyn);
}

/**
 * Sizes and dim order: the flatbuffer's arrays for a static shape, a
 * writable copy of the sizes when a resize may change them.
 *
 * Validation's rule for sizes (check_tensor_sizes in value_validation.cpp):
 * all sizes are >= 0 and the byte size fits, except for a non-static plan
 * input, whose serialized sizes are a placeholder for the shape set_input
 * gives. Such a placeholder (a negative size, or a byte size that does not
 * fit) is loaded as an empty shape (every size 0, no bytes): set_input
 * resizes it within that bound and refuses a larger input.
 */
Error read_shape(
    const LoadContext& ctx,
    const fb::Tensor* t,
    TensorShapeDynamism dynamism,
    TensorShape* shape) {
  const int32_t* sizes_in = t->sizes()->data();
  shape->rank = t->sizes()->size();
  shape->dim_order = const_cast<TensorImpl::DimOrderType*>(
      reinterpret_cast<const TensorImpl::DimOrderType*>(
          t->dim_order()->data()));
  size_t numel = 0;
  bool placeholder = false;
  for (size_t i = 0; i < shape->rank; ++i) {
    placeholder = placeholder || sizes_in[i] < 0;
  }
  const size_t elem = elementSize(
      static_cast<ScalarType>(static_cast<int8_t>(t->scalar_type())));
  placeholder =
      placeholder || !detail::checked_nbytes(
                         sizes_in, shape->rank, elem, &numel, &shape->nbytes);
  ET_DCHECK(!placeholder || dynamism != TensorShapeDynamism::STATIC);
  if (dynamism == TensorShapeDynamism::STATIC) {
    shape->sizes = const_cast<TensorImpl::SizesType*>(sizes_in);
    return Error::Ok;
  }
  shape->sizes =
      allocate_array<TensorImpl::SizesType>(ctx.method_allocator, shape->rank);
  if (shape->sizes == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  for (size_t i = 0; i < shape->rank; ++i) {
    shape->sizes[i] = placeholder ? 0 : sizes_in[i];
  }
  if (placeholder) {
    shape->nbytes = 0;
  }
  return Error::Ok;
}

/// Strides from the dim order: the innermost dim has stride 1; walking
/// outward multiply by the size of the next-inner dim (a 0-sized dim counts
/// as 1). Strides are int32, which validation does not bound.
Error compute_strides(
    const LoadContext& ctx, size_t value_index, TensorShape* shape) {
  shape->strides = allocate_array<TensorImpl::StridesType>(
      ctx.method_allocator, shape->rank);
  if (shape->strides == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  int64_t stride = 1;
  for (size_t i = shape->rank; i-- > 0;) {
    const uint8_t d = shape->dim_order[i];
    ET_DCHECK(d < shape->rank);
    shape->strides[d] = static_cast<TensorImpl::StridesType>(stride);
    const int64_t s = shape->sizes[d] == 0 ? 1 : shape->sizes[d];
    if (i > 0 &&
        (__builtin_mul_overflow(stride, s, &stride) || stride > INT32_MAX)) {
      ET_LOG(
          Error,
          "value %zu: tensor strides overflow int32 (sizes)",
          value_index);
      return Error::InvalidProgram;
    }
  }
  return Error::Ok;
}

}  // namespace

bool tensor_is_planned(const fb::Tensor* t) {
  return t->allocation_info() != nullptr || t->data_buffer_idx() != 0;
}

bool tensor_is_external_constant(const fb::Tensor* t) {
  return is_external(t) && t->allocation_info() == nullptr;
}

Result<Tensor> parse_tensor(
    const LoadContext& ctx, const fb::Tensor* t, size_t value_index) {
  assert_validated_header(t);
  Result<TensorShapeDynamism> dynamism = supported_dynamism(t, value_index);
  if (!dynamism.ok()) {
    return dynamism.error();
  }
  TensorShape shape{};
  ET_CHECK_OK_OR_RETURN_ERROR(read_shape(ctx, t, dynamism.get(), &shape));
  ET_CHECK_OK_OR_RETURN_ERROR(compute_strides(ctx, value_index, &shape));

  Result<void*> data = resolve_tensor_data(ctx, t, shape.nbytes, value_index);
  if (!data.ok()) {
    return data.error();
  }
  const bool from_file = t->data_buffer_idx() != 0 || is_external(t);
  if (from_file && !bool_bytes_valid(t, data.get(), shape.nbytes)) {
    ET_LOG(
        Error,
        "value %zu: a Bool tensor whose data holds a byte other than 0 or 1",
        value_index);
    return Error::InvalidProgram;
  }

  TensorImpl* impl = allocate_array<TensorImpl>(ctx.method_allocator, 1);
  if (impl == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  const auto* extra = t->extra_tensor_info();
  new (impl) TensorImpl(
      static_cast<ScalarType>(static_cast<int8_t>(t->scalar_type())),
      static_cast<ssize_t>(shape.rank),
      shape.sizes,
      data.get(),
      shape.dim_order,
      shape.strides,
      dynamism.get(),
      extra == nullptr
          ? executorch::aten::DeviceType::CPU
          : static_cast<executorch::aten::DeviceType>(extra->device_type()),
      extra == nullptr
          ? 0
          : static_cast<executorch::aten::DeviceIndex>(extra->device_index()));
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
  ExternalConstant* list =
      allocate_array<ExternalConstant>(method_allocator, n);
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
    const char* key = external_key(t);
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
          Error, "external constant '%s' is not in the external data map", key);
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

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
