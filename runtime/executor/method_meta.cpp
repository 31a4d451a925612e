#include <executorch/runtime/executor/method_meta.h>

#include <cinttypes>
#include <cstring>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/executor/detail/flatbuffer_vectors.h>
#include <executorch/runtime/executor/detail/program_validation.h>
#include <executorch/runtime/platform/log.h>
#include <executorch_schema/program_generated.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

namespace fb = executorch_flatbuffer;
using runtime::detail::checked_nbytes;
using runtime::detail::index_in_range;
using runtime::detail::scalar_type_element_size;
using runtime::detail::vsize;

namespace {

Result<Tag> tag_of(const fb::EValue* v, const char* what, size_t index) {
  if (v == nullptr) {
    ET_LOG(Error, "%s %zu: value is null", what, index);
    return Error::InvalidProgram;
  }
  switch (v->val_type()) {
    case fb::KernelTypes::Null:
      return Tag::None;
    case fb::KernelTypes::Int:
      return Tag::Int;
    case fb::KernelTypes::Double:
      return Tag::Double;
    case fb::KernelTypes::Bool:
      return Tag::Bool;
    case fb::KernelTypes::String:
      return Tag::String;
    case fb::KernelTypes::Tensor:
      return Tag::Tensor;
    default:
      ET_LOG(
          Error,
          "%s %zu: value type %u has no method-meta tag",
          what,
          index,
          static_cast<unsigned>(v->val_type()));
      return Error::Internal;
  }
}

// The value `which`[index] refers to; null and errors already logged.
Result<const fb::EValue*> io_value(
    const fb::ExecutionPlan* plan,
    const flatbuffers::Vector<int32_t>* which,
    const char* what,
    size_t index) {
  const size_t count = vsize(which);
  ET_CHECK_OR_RETURN_ERROR(
      index < count,
      InvalidArgument,
      "%s index %zu out of range (%zu %ss)",
      what,
      index,
      count,
      what);
  const int32_t vi = which->Get(static_cast<flatbuffers::uoffset_t>(index));
  const size_t nvalues = vsize(plan->values());
  ET_CHECK_OR_RETURN_ERROR(
      index_in_range(vi, nvalues),
      InvalidProgram,
      "%s %zu refers to value %" PRId32 ", out of range [0, %zu)",
      what,
      index,
      vi,
      nvalues);
  return plan->values()->Get(static_cast<flatbuffers::uoffset_t>(vi));
}

}  // namespace

// ---- TensorInfo ----

Result<TensorInfo> TensorInfo::create(
    Span<const int32_t> sizes,
    Span<const uint8_t> dim_order,
    executorch::aten::ScalarType scalar_type,
    const bool is_memory_planned,
    std::string_view name) {
  const size_t elem =
      scalar_type_element_size(static_cast<int8_t>(scalar_type));
  ET_CHECK_OR_RETURN_ERROR(
      elem != 0,
      InvalidProgram,
      "invalid scalar_type %d",
      static_cast<int>(scalar_type));
  for (size_t i = 0; i < sizes.size(); ++i) {
    ET_CHECK_OR_RETURN_ERROR(
        sizes[i] >= 0,
        InvalidProgram,
        "sizes[%zu] = %" PRId32 " is negative",
        i,
        sizes[i]);
  }
  size_t numel = 0;
  size_t nbytes = 0;
  ET_CHECK_OR_RETURN_ERROR(
      checked_nbytes(sizes.data(), sizes.size(), elem, &numel, &nbytes),
      InvalidArgument,
      "tensor nbytes overflow");
  return TensorInfo(
      sizes, dim_order, scalar_type, is_memory_planned, name, nbytes);
}

TensorInfo::TensorInfo(
    Span<const int32_t> sizes,
    Span<const uint8_t> dim_order,
    executorch::aten::ScalarType scalar_type,
    const bool is_memory_planned,
    std::string_view name,
    size_t nbytes)
    : sizes_(sizes),
      dim_order_(dim_order),
      name_(name),
      scalar_type_(scalar_type),
      is_memory_planned_(is_memory_planned),
      nbytes_(nbytes) {}

Span<const int32_t> TensorInfo::sizes() const {
  return sizes_;
}

Span<const uint8_t> TensorInfo::dim_order() const {
  return dim_order_;
}

executorch::aten::ScalarType TensorInfo::scalar_type() const {
  return scalar_type_;
}

bool TensorInfo::is_memory_planned() const {
  return is_memory_planned_;
}

size_t TensorInfo::nbytes() const {
  return nbytes_;
}

std::string_view TensorInfo::name() const {
  return name_;
}

namespace {

Error check_tensor(const fb::Tensor* t, const char* what, size_t index) {
  ET_CHECK_OR_RETURN_ERROR(
      t != nullptr && t->sizes() != nullptr && t->dim_order() != nullptr,
      InvalidProgram,
      "%s %zu: tensor sizes or dim_order missing",
      what,
      index);
  ET_CHECK_OR_RETURN_ERROR(
      t->dim_order()->size() == t->sizes()->size(),
      InvalidProgram,
      "%s %zu: dim_order has %u entries for rank %u",
      what,
      index,
      static_cast<unsigned>(t->dim_order()->size()),
      static_cast<unsigned>(t->sizes()->size()));
  return Error::Ok;
}

Span<const int32_t> sizes_of(const fb::Tensor* t) {
  return Span<const int32_t>(t->sizes()->data(), t->sizes()->size());
}

Span<const uint8_t> dim_order_of(const fb::Tensor* t) {
  return Span<const uint8_t>(t->dim_order()->data(), t->dim_order()->size());
}

executorch::aten::ScalarType dtype_of(const fb::Tensor* t) {
  return static_cast<executorch::aten::ScalarType>(t->scalar_type());
}

// Constants count as planned: they get memory at load.
bool planned(const fb::Tensor* t) {
  return t->allocation_info() != nullptr || t->data_buffer_idx() != 0;
}

const fb::Tensor* attribute_tensor(const fb::EValue* v) {
  if (v == nullptr || v->val_type() != fb::KernelTypes::Tensor) {
    return nullptr;
  }
  const auto* t = v->val_as_Tensor();
  if (t == nullptr || t->extra_tensor_info() == nullptr ||
      t->extra_tensor_info()->fully_qualified_name() == nullptr) {
    return nullptr;
  }
  return t;
}

}  // namespace

// ---- MethodMeta ----

MethodMeta::MethodMeta(const fb::ExecutionPlan* s_plan) : s_plan_(s_plan) {}

const char* MethodMeta::name() const {
  // Program only hands out MethodMeta for plans whose name is present.
  return s_plan_->name() == nullptr ? "" : s_plan_->name()->c_str();
}

size_t MethodMeta::num_inputs() const {
  return vsize(s_plan_->inputs());
}

Result<Tag> MethodMeta::input_tag(size_t index) const {
  auto v = io_value(s_plan_, s_plan_->inputs(), "input", index);
  if (!v.ok()) {
    return v.error();
  }
  return tag_of(v.get(), "input", index);
}

Result<TensorInfo> MethodMeta::input_tensor_meta(size_t index) const {
  auto tag = input_tag(index);
  if (!tag.ok()) {
    return tag.error();
  }
  ET_CHECK_OR_RETURN_ERROR(
      tag.get() == Tag::Tensor,
      InvalidArgument,
      "input %zu is not a tensor (tag %u)",
      index,
      static_cast<unsigned>(tag.get()));
  const auto* t = io_value(s_plan_, s_plan_->inputs(), "input", index)
                      .get()
                      ->val_as_Tensor();
  Error err = check_tensor(t, "input", index);
  if (err != Error::Ok) {
    return err;
  }
  return TensorInfo::create(
      sizes_of(t), dim_order_of(t), dtype_of(t), planned(t), {});
}

size_t MethodMeta::num_outputs() const {
  return vsize(s_plan_->outputs());
}

Result<Tag> MethodMeta::output_tag(size_t index) const {
  auto v = io_value(s_plan_, s_plan_->outputs(), "output", index);
  if (!v.ok()) {
    return v.error();
  }
  return tag_of(v.get(), "output", index);
}

Result<TensorInfo> MethodMeta::output_tensor_meta(size_t index) const {
  auto tag = output_tag(index);
  if (!tag.ok()) {
    return tag.error();
  }
  ET_CHECK_OR_RETURN_ERROR(
      tag.get() == Tag::Tensor,
      InvalidArgument,
      "output %zu is not a tensor (tag %u)",
      index,
      static_cast<unsigned>(tag.get()));
  const auto* t = io_value(s_plan_, s_plan_->outputs(), "output", index)
                      .get()
                      ->val_as_Tensor();
  Error err = check_tensor(t, "output", index);
  if (err != Error::Ok) {
    return err;
  }
  return TensorInfo::create(
      sizes_of(t), dim_order_of(t), dtype_of(t), planned(t), {});
}

size_t MethodMeta::num_attributes() const {
  size_t count = 0;
  const auto* values = s_plan_->values();
  for (flatbuffers::uoffset_t i = 0; i < vsize(values); ++i) {
    if (attribute_tensor(values->Get(i)) != nullptr) {
      ++count;
    }
  }
  return count;
}

Result<TensorInfo> MethodMeta::attribute_tensor_meta(size_t index) const {
  size_t count = 0;
  const auto* values = s_plan_->values();
  for (flatbuffers::uoffset_t i = 0; i < vsize(values); ++i) {
    const auto* t = attribute_tensor(values->Get(i));
    if (t == nullptr) {
      continue;
    }
    if (count == index) {
      const auto* fqn = t->extra_tensor_info()->fully_qualified_name();
      Error err = check_tensor(t, "attribute", index);
      if (err != Error::Ok) {
        return err;
      }
      return TensorInfo::create(
          sizes_of(t),
          dim_order_of(t),
          dtype_of(t),
          planned(t),
          std::string_view(fqn->data(), fqn->size()));
    }
    ++count;
  }
  ET_LOG(
      Error, "attribute index %zu out of range (%zu attributes)", index, count);
  return Error::InvalidArgument;
}

size_t MethodMeta::num_memory_planned_buffers() const {
  const size_t n = vsize(s_plan_->non_const_buffer_sizes());
  return n > 0 ? n - 1 : 0;
}

Result<int64_t> MethodMeta::memory_planned_buffer_size(size_t index) const {
  const size_t n = num_memory_planned_buffers();
  ET_CHECK_OR_RETURN_ERROR(
      index < n,
      InvalidArgument,
      "planned buffer index %zu out of range (%zu buffers)",
      index,
      n);
  const int64_t size = s_plan_->non_const_buffer_sizes()->Get(
      static_cast<flatbuffers::uoffset_t>(index + 1));
  ET_CHECK_OR_RETURN_ERROR(
      size >= 0,
      InvalidProgram,
      "non_const_buffer_sizes[%zu] = %" PRId64 " is negative",
      index + 1,
      size);
  return size;
}

Result<etensor::Device> MethodMeta::memory_planned_buffer_device(
    size_t index) const {
  const size_t n = num_memory_planned_buffers();
  ET_CHECK_OR_RETURN_ERROR(
      index < n,
      InvalidArgument,
      "planned buffer index %zu out of range (%zu buffers)",
      index,
      n);
  const auto* devs = s_plan_->non_const_buffer_device();
  for (flatbuffers::uoffset_t i = 0; i < vsize(devs); ++i) {
    const auto* d = devs->Get(i);
    if (d == nullptr || d->buffer_idx() < 0 ||
        static_cast<size_t>(d->buffer_idx()) != index + 1) {
      continue;
    }
    const int8_t type = static_cast<int8_t>(d->device_type());
    ET_CHECK_OR_RETURN_ERROR(
        type == 0 || type == 1,
        InvalidProgram,
        "non_const_buffer_device[%u].device_type %d is invalid",
        static_cast<unsigned>(i),
        static_cast<int>(type));
    return etensor::Device(
        static_cast<etensor::DeviceType>(type),
        static_cast<etensor::DeviceIndex>(d->device_index()));
  }
  return etensor::Device(etensor::DeviceType::CPU, 0);
}

bool MethodMeta::uses_backend(const char* backend_name) const {
  if (backend_name == nullptr) {
    return false;
  }
  const auto* dels = s_plan_->delegates();
  for (flatbuffers::uoffset_t i = 0; i < vsize(dels); ++i) {
    const auto* d = dels->Get(i);
    if (d != nullptr && d->id() != nullptr &&
        std::strcmp(d->id()->c_str(), backend_name) == 0) {
      return true;
    }
  }
  return false;
}

size_t MethodMeta::num_backends() const {
  return vsize(s_plan_->delegates());
}

Result<const char*> MethodMeta::get_backend_name(size_t index) const {
  const size_t n = num_backends();
  ET_CHECK_OR_RETURN_ERROR(
      index < n,
      InvalidArgument,
      "backend index %zu out of range (%zu backends)",
      index,
      n);
  const auto* d =
      s_plan_->delegates()->Get(static_cast<flatbuffers::uoffset_t>(index));
  ET_CHECK_OR_RETURN_ERROR(
      d != nullptr && d->id() != nullptr,
      InvalidProgram,
      "delegates[%zu].id is missing",
      index);
  return d->id()->c_str();
}

size_t MethodMeta::num_instructions() const {
  size_t total = 0;
  const auto* chains = s_plan_->chains();
  for (flatbuffers::uoffset_t i = 0; i < vsize(chains); ++i) {
    const auto* c = chains->Get(i);
    if (c != nullptr) {
      total += vsize(c->instructions());
    }
  }
  return total;
}

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch
