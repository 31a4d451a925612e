/*
 * Method inputs, outputs, attributes and metadata (docs/format.md §4.2, §4.3).
 */
#include <executorch/runtime/executor/method.h>

#include <cmath>
#include <cstring>

#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/executor/detail/method_internal.h>
#include <executorch/runtime/executor/detail/program_validation.h>
#include <executorch/runtime/executor/detail/tensor_parser.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/log.h>

#include <executorch_schema/program_generated.h>

// The experimental/deprecated members are defined here.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace executorch {
namespace runtime {

namespace fb = ::executorch_flatbuffer;
using executorch::aten::Tensor;

namespace {

/// Traced-double equality for prim inputs: NaN matches NaN, infinities
/// match by sign, otherwise |a - b| <= atol + rtol * |b|.
bool doubles_match(double given, double traced) {
  if (std::isnan(given) || std::isnan(traced)) {
    return std::isnan(given) && std::isnan(traced);
  }
  if (std::isinf(given) || std::isinf(traced)) {
    return given == traced;
  }
  constexpr double kAtol = 1e-4;
  constexpr double kRtol = 1e-5;
  return std::fabs(given - traced) <= kAtol + kRtol * std::fabs(traced);
}

const fb::Tensor* serialized_tensor(
    const fb::ExecutionPlan* plan, size_t value_index) {
  const fb::EValue* v =
      plan->values()->Get(static_cast<flatbuffers::uoffset_t>(value_index));
  return v->val_as_Tensor();
}

/**
 * A tensor input: same dtype, a shape the method's tensor can take (resize
 * within its bound), then the data: copied into a planned input, bound by
 * pointer otherwise.
 */
Error set_tensor_input(
    Tensor dst,
    const Tensor& src,
    bool planned,
    size_t min_bound_bytes,
    size_t input_idx) {
  if (dst.scalar_type() != src.scalar_type()) {
    ET_LOG(
        Error,
        "set_input: input %zu has dtype %d, got %d",
        input_idx,
        static_cast<int>(dst.scalar_type()),
        static_cast<int>(src.scalar_type()));
    return Error::InvalidArgument;
  }
  size_t src_numel = 0;
  size_t src_nbytes = 0;
  if (!detail::checked_nbytes(
          src.sizes().data(),
          src.sizes().size(),
          static_cast<size_t>(src.element_size()),
          &src_numel,
          &src_nbytes)) {
    ET_LOG(Error, "set_input: input %zu: bad sizes", input_idx);
    return Error::InvalidArgument;
  }
  Error err = resize_tensor(dst, src.sizes());
  if (err != Error::Ok) {
    ET_LOG(
        Error,
        "set_input: input %zu cannot take the given shape (error 0x%x)",
        input_idx,
        static_cast<unsigned>(err));
    return err;
  }
  if (dst.nbytes() != src_nbytes) {
    ET_LOG(
        Error,
        "set_input: input %zu holds %zu bytes, got %zu",
        input_idx,
        dst.nbytes(),
        src_nbytes);
    return Error::InvalidArgument;
  }
  if (!planned && src_nbytes < min_bound_bytes) {
    ET_LOG(
        Error,
        "set_input: input %zu is written in place by the method and may grow "
        "to %zu bytes (its capacity), but the given tensor holds %zu bytes",
        input_idx,
        min_bound_bytes,
        src_nbytes);
    return Error::InvalidArgument;
  }
  if (src_nbytes > 0 && src.const_data_ptr() == nullptr) {
    ET_LOG(Error, "set_input: input %zu has no data", input_idx);
    return Error::InvalidArgument;
  }
  if (planned) {
    if (dst.device_type() != executorch::aten::DeviceType::CPU ||
        src.device_type() != executorch::aten::DeviceType::CPU) {
      ET_LOG(Error, "set_input: input %zu is not on the CPU", input_idx);
      return Error::NotSupported;
    }
    if (src_nbytes > 0) {
      if (dst.mutable_data_ptr() == nullptr) {
        ET_LOG(Error, "set_input: input %zu has no planned storage", input_idx);
        return Error::InvalidState;
      }
      if (dst.const_data_ptr() != src.const_data_ptr()) {
        std::memmove(dst.mutable_data_ptr(), src.const_data_ptr(), src_nbytes);
      }
    }
  } else {
    dst.unsafeGetTensorImpl()->set_data(
        src_nbytes > 0 ? src.mutable_data_ptr() : nullptr);
  }
  return Error::Ok;
}

/// A prim input (Int, Bool, Double, String) must match the traced value.
Error check_traced_input(
    const EValue& slot, const EValue& input_evalue, size_t input_idx) {
  if (slot.isInt()) {
    if (slot.toInt() != input_evalue.toInt()) {
      ET_LOG(
          Error,
          "set_input: input %zu was traced as %lld, got %lld",
          input_idx,
          static_cast<long long>(slot.toInt()),
          static_cast<long long>(input_evalue.toInt()));
      return Error::InvalidArgument;
    }
  } else if (slot.isBool()) {
    if (slot.toBool() != input_evalue.toBool()) {
      ET_LOG(
          Error,
          "set_input: input %zu was traced as %s",
          input_idx,
          slot.toBool() ? "true" : "false");
      return Error::InvalidArgument;
    }
  } else if (slot.isDouble()) {
    if (!doubles_match(input_evalue.toDouble(), slot.toDouble())) {
      ET_LOG(
          Error,
          "set_input: input %zu was traced as %g, got %g",
          input_idx,
          slot.toDouble(),
          input_evalue.toDouble());
      return Error::InvalidArgument;
    }
  } else if (slot.isString()) {
    if (slot.toString() != input_evalue.toString()) {
      ET_LOG(
          Error,
          "set_input: input %zu differs from the traced string",
          input_idx);
      return Error::InvalidArgument;
    }
  }
  return Error::Ok;
}

}  // namespace

size_t Method::get_input_index(size_t i) const {
  return static_cast<size_t>(env_.serialization_plan->inputs()->Get(
      static_cast<flatbuffers::uoffset_t>(i)));
}

size_t Method::get_output_index(size_t i) const {
  return static_cast<size_t>(env_.serialization_plan->outputs()->Get(
      static_cast<flatbuffers::uoffset_t>(i)));
}

const EValue& Method::get_value(size_t i) const {
  ET_CHECK_MSG(i < owned_.n_value, "value index %zu >= %zu", i, owned_.n_value);
  return owned_.values[i];
}

EValue& Method::mutable_value(size_t i) {
  ET_CHECK_MSG(i < owned_.n_value, "value index %zu >= %zu", i, owned_.n_value);
  return owned_.values[i];
}

size_t Method::inputs_size() const {
  return env_.serialization_plan && env_.serialization_plan->inputs()
             ? env_.serialization_plan->inputs()->size()
             : 0;
}

size_t Method::outputs_size() const {
  return env_.serialization_plan && env_.serialization_plan->outputs()
             ? env_.serialization_plan->outputs()->size()
             : 0;
}

MethodMeta Method::method_meta() const {
  return MethodMeta(env_.serialization_plan);
}

EventTracer* Method::get_event_tracer() {
  return env_.event_tracer;
}

Error Method::set_input(const EValue& input_evalue, size_t input_idx) {
  if (!initialized()) {
    ET_LOG(Error, "set_input: the method is not loaded");
    return Error::InvalidState;
  }
  if (step_state_.chain_idx != 0 || step_state_.instr_idx != 0) {
    ET_LOG(Error, "set_input: an execution is in progress");
    return Error::InvalidState;
  }
  if (input_idx >= inputs_size()) {
    ET_LOG(
        Error,
        "set_input: index %zu is out of range (%zu inputs)",
        input_idx,
        inputs_size());
    return Error::InvalidArgument;
  }
  const size_t vi = get_input_index(input_idx);
  EValue& slot = mutable_value(vi);
  if (!(slot.isNone() || slot.isTensor() || slot.isScalar() ||
        slot.isString())) {
    ET_LOG(
        Error,
        "set_input: input %zu has kind %u, which cannot be set",
        input_idx,
        static_cast<unsigned>(slot.tag));
    return Error::InvalidArgument;
  }
  if (slot.tag != input_evalue.tag) {
    ET_LOG(
        Error,
        "set_input: input %zu expects kind %u, got %u",
        input_idx,
        static_cast<unsigned>(slot.tag),
        static_cast<unsigned>(input_evalue.tag));
    return Error::InvalidArgument;
  }

  internal::InputWrite& write = owned_.input_writes[input_idx];
  Error err = Error::Ok;
  if (slot.isTensor()) {
    const fb::Tensor* s_tensor = serialized_tensor(env_.serialization_plan, vi);
    size_t min_bound_bytes = 0;
    if (write.written &&
        !detail::tensor_capacity_bytes(s_tensor, &min_bound_bytes)) {
      ET_LOG(Error, "set_input: input %zu has no finite capacity", input_idx);
      return Error::InvalidArgument;
    }
    err = set_tensor_input(
        slot.toTensor(),
        input_evalue.toTensor(),
        internal::tensor_is_planned(s_tensor),
        min_bound_bytes,
        input_idx);
  } else {
    err = check_traced_input(slot, input_evalue, input_idx);
  }
  if (err != Error::Ok) {
    return err;
  }
  if (write.written) {
    write.bound_data = slot.toTensor().const_data_ptr();
  }
  owned_.input_set[input_idx] = true;
  return Error::Ok;
}

bool Method::input_is_written(size_t input_idx) const {
  return initialized() && input_idx < inputs_size() &&
         owned_.input_writes[input_idx].written;
}

Error Method::set_inputs(
    const executorch::aten::ArrayRef<EValue>& input_evalues) {
  if (!initialized()) {
    ET_LOG(Error, "set_inputs: the method is not loaded");
    return Error::InvalidState;
  }
  if (input_evalues.size() != inputs_size()) {
    ET_LOG(
        Error,
        "set_inputs: %zu values given, the method takes %zu",
        input_evalues.size(),
        inputs_size());
    return Error::InvalidArgument;
  }
  for (size_t i = 0; i < input_evalues.size(); ++i) {
    Error err = set_input(input_evalues[i], i);
    if (err != Error::Ok) {
      return err;
    }
  }
  return Error::Ok;
}

Error Method::set_output_data_ptr(
    void* buffer, size_t size, size_t output_idx) {
  if (!initialized()) {
    ET_LOG(Error, "set_output_data_ptr: the method is not loaded");
    return Error::InvalidState;
  }
  if (output_idx >= outputs_size()) {
    ET_LOG(
        Error,
        "set_output_data_ptr: index %zu is out of range (%zu outputs)",
        output_idx,
        outputs_size());
    return Error::InvalidArgument;
  }
  const size_t vi = get_output_index(output_idx);
  EValue& slot = mutable_value(vi);
  if (!slot.isTensor()) {
    ET_LOG(
        Error, "set_output_data_ptr: output %zu is not a tensor", output_idx);
    return Error::InvalidArgument;
  }
  if (internal::tensor_is_planned(
          serialized_tensor(env_.serialization_plan, vi))) {
    ET_LOG(
        Error,
        "set_output_data_ptr: output %zu has planned or constant storage",
        output_idx);
    return Error::InvalidState;
  }
  Tensor t = slot.toTensor();
  // Kernels may resize a dynamic output up to its capacity, whatever its
  // current shape: the buffer must hold that much.
  size_t capacity = 0;
  if (!detail::tensor_capacity_bytes(
          serialized_tensor(env_.serialization_plan, vi), &capacity) ||
      size < capacity) {
    ET_LOG(
        Error,
        "set_output_data_ptr: output %zu needs %zu bytes (its capacity), "
        "buffer has %zu",
        output_idx,
        capacity,
        size);
    return Error::InvalidArgument;
  }
  if (buffer == nullptr && capacity > 0) {
    ET_LOG(
        Error, "set_output_data_ptr: null buffer for output %zu", output_idx);
    return Error::InvalidArgument;
  }
  t.unsafeGetTensorImpl()->set_data(buffer);
  return Error::Ok;
}

Error Method::get_outputs(EValue* output_evalues, size_t length) {
  if (!initialized()) {
    ET_LOG(Error, "get_outputs: the method is not loaded");
    return Error::InvalidState;
  }
  const size_t n = outputs_size();
  if (output_evalues == nullptr || length < n) {
    ET_LOG(
        Error,
        "get_outputs: room for %zu values, the method has %zu outputs",
        output_evalues == nullptr ? 0 : length,
        n);
    return Error::InvalidArgument;
  }
  for (size_t i = 0; i < n; ++i) {
    output_evalues[i] = owned_.values[get_output_index(i)];
  }
  for (size_t i = n; i < length; ++i) {
    output_evalues[i] = EValue();
  }
  return Error::Ok;
}

Error Method::get_inputs(EValue* input_evalues, size_t length) {
  if (!initialized()) {
    ET_LOG(Error, "get_inputs: the method is not loaded");
    return Error::InvalidState;
  }
  const size_t n = inputs_size();
  if (input_evalues == nullptr || length < n) {
    ET_LOG(
        Error,
        "get_inputs: room for %zu values, the method has %zu inputs",
        input_evalues == nullptr ? 0 : length,
        n);
    return Error::InvalidArgument;
  }
  for (size_t i = 0; i < n; ++i) {
    input_evalues[i] = owned_.values[get_input_index(i)];
    owned_.input_set[i] = true;
  }
  for (size_t i = n; i < length; ++i) {
    input_evalues[i] = EValue();
  }
  return Error::Ok;
}

const EValue& Method::get_output(size_t i) const {
  ET_CHECK_MSG(
      i < outputs_size(), "output index %zu >= %zu", i, outputs_size());
  return get_value(get_output_index(i));
}

const EValue& Method::get_input(size_t i) const {
  ET_CHECK_MSG(i < inputs_size(), "input index %zu >= %zu", i, inputs_size());
  return get_value(get_input_index(i));
}

EValue& Method::mutable_input(size_t i) {
  ET_CHECK_MSG(i < inputs_size(), "input index %zu >= %zu", i, inputs_size());
  owned_.input_set[i] = true;
  return mutable_value(get_input_index(i));
}

EValue& Method::mutable_output(size_t i) {
  ET_CHECK_MSG(
      i < outputs_size(), "output index %zu >= %zu", i, outputs_size());
  return mutable_value(get_output_index(i));
}

Result<Tensor> Method::get_attribute(std::string_view name) {
  if (!initialized()) {
    ET_LOG(Error, "get_attribute: the method is not loaded");
    return Error::InvalidState;
  }
  const auto* values = env_.serialization_plan->values();
  for (size_t i = 0; i < owned_.n_value; ++i) {
    const fb::EValue* v = values->Get(static_cast<flatbuffers::uoffset_t>(i));
    const fb::Tensor* t = v->val_as_Tensor();
    if (t == nullptr || t->extra_tensor_info() == nullptr ||
        t->extra_tensor_info()->fully_qualified_name() == nullptr) {
      continue;
    }
    const auto* fqn = t->extra_tensor_info()->fully_qualified_name();
    if (std::string_view(fqn->c_str(), fqn->size()) == name &&
        owned_.values[i].isTensor()) {
      return owned_.values[i].toTensor();
    }
  }
  ET_LOG(
      Error,
      "get_attribute: no tensor named '%.*s'",
      static_cast<int>(name.size()),
      name.data());
  return Error::NotFound;
}

}  // namespace runtime
}  // namespace executorch
