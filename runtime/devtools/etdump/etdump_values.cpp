#include <executorch/devtools/etdump/detail/etdump_values.h>

#include <cstring>
#include <vector>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace etdump {
namespace internal {

using ::executorch::aten::Tensor;
using ::executorch::runtime::ArrayRef;
using ::executorch::runtime::Error;
using ::executorch::runtime::EValue;
using ::executorch::runtime::Result;

Result<size_t> DebugBuffer::write(const void* data, size_t size) {
  const size_t start = (used_ + kAlignment - 1) / kAlignment * kAlignment;
  if (start < used_ || start > buffer_.size() ||
      size > buffer_.size() - start) {
    ET_LOG(
        Error,
        "ETDumpGen: the debug buffer (%zu bytes, %zu used) has no room for "
        "%zu more bytes; value not logged",
        buffer_.size(),
        used_,
        size);
    return Error::OutOfResources;
  }
  std::memset(buffer_.data() + used_, 0, start - used_);
  std::memcpy(buffer_.data() + start, data, size);
  used_ = start + size;
  return start;
}

namespace {

ValueRef make_value(
    flatbuffers::FlatBufferBuilder& fbb,
    ::etdump::ValueType type,
    flatbuffers::Offset<::etdump::Tensor> tensor,
    flatbuffers::Offset<::etdump::TensorList> tensor_list,
    flatbuffers::Offset<::etdump::Int> int_value,
    flatbuffers::Offset<::etdump::Double> double_value,
    flatbuffers::Offset<::etdump::Bool> bool_value,
    bool is_program_output) {
  flatbuffers::Offset<::etdump::Bool> output = 0;
  if (is_program_output) {
    output = ::etdump::CreateBool(fbb, true);
  }
  return ::etdump::CreateValue(
      fbb,
      type,
      tensor,
      tensor_list,
      int_value,
      0,
      double_value,
      bool_value,
      output);
}

Result<flatbuffers::Offset<::etdump::Tensor>> encode_tensor(
    flatbuffers::FlatBufferBuilder& fbb,
    DebugBuffer& debug_buffer,
    const Tensor& t) {
  const auto dtype =
      static_cast<executorch_flatbuffer::ScalarType>(t.scalar_type());
  if (executorch_flatbuffer::EnumNameScalarType(dtype)[0] == '\0') {
    ET_LOG(
        Error,
        "ETDumpGen: dtype %d has no ETDump encoding; value not logged",
        static_cast<int>(t.scalar_type()));
    return Error::InvalidArgument;
  }
  // A tensor without data (no elements) has no blob; upstream marks it with offset -1.
  int64_t offset = -1;
  if (t.nbytes() > 0) {
    if (t.const_data_ptr() == nullptr) {
      ET_LOG(
          Error, "ETDumpGen: a tensor with %zu bytes has no data", t.nbytes());
      return Error::InvalidState;
    }
    if (!debug_buffer.is_set()) {
      ET_LOG(
          Error,
          "ETDumpGen: logging tensor data needs a debug buffer "
          "(set_debug_buffer); value not logged");
      return Error::InvalidArgument;
    }
    Result<size_t> at = debug_buffer.write(t.const_data_ptr(), t.nbytes());
    if (!at.ok()) {
      return at.error();
    }
    offset = static_cast<int64_t>(at.get());
  }
  std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
  std::vector<int64_t> strides(t.strides().begin(), t.strides().end());
  auto sizes_ref = fbb.CreateVector(sizes);
  auto strides_ref = fbb.CreateVector(strides);
  return ::etdump::CreateTensor(fbb, dtype, sizes_ref, strides_ref, offset);
}

Result<ValueRef> encode_tensor_list(
    flatbuffers::FlatBufferBuilder& fbb,
    DebugBuffer& debug_buffer,
    ArrayRef<Tensor> tensors,
    bool is_program_output) {
  const size_t rewind_to = debug_buffer.used();
  std::vector<flatbuffers::Offset<::etdump::Tensor>> refs;
  refs.reserve(tensors.size());
  for (const Tensor& t : tensors) {
    Result<flatbuffers::Offset<::etdump::Tensor>> ref =
        encode_tensor(fbb, debug_buffer, t);
    if (!ref.ok()) {
      debug_buffer.rewind(rewind_to);  // all of the list or none of it
      return ref.error();
    }
    refs.push_back(ref.get());
  }
  auto vec = fbb.CreateVector(refs);
  auto list = ::etdump::CreateTensorList(fbb, vec);
  return make_value(
      fbb,
      ::etdump::ValueType::TensorList,
      0,
      list,
      0,
      0,
      0,
      is_program_output);
}

Result<ValueRef> encode_one_tensor(
    flatbuffers::FlatBufferBuilder& fbb,
    DebugBuffer& debug_buffer,
    const Tensor& t,
    bool is_program_output) {
  Result<flatbuffers::Offset<::etdump::Tensor>> ref =
      encode_tensor(fbb, debug_buffer, t);
  if (!ref.ok()) {
    return ref.error();
  }
  return make_value(
      fbb,
      ::etdump::ValueType::Tensor,
      ref.get(),
      0,
      0,
      0,
      0,
      is_program_output);
}

ValueRef encode_int(
    flatbuffers::FlatBufferBuilder& fbb, int64_t v, bool is_program_output) {
  auto i = ::etdump::CreateInt(fbb, v);
  return make_value(
      fbb, ::etdump::ValueType::Int, 0, 0, i, 0, 0, is_program_output);
}

ValueRef encode_double(
    flatbuffers::FlatBufferBuilder& fbb, double v, bool is_program_output) {
  auto d = ::etdump::CreateDouble(fbb, v);
  return make_value(
      fbb, ::etdump::ValueType::Double, 0, 0, 0, d, 0, is_program_output);
}

ValueRef encode_bool(
    flatbuffers::FlatBufferBuilder& fbb, bool v, bool is_program_output) {
  auto b = ::etdump::CreateBool(fbb, v);
  return make_value(
      fbb, ::etdump::ValueType::Bool, 0, 0, 0, 0, b, is_program_output);
}

}  // namespace

Result<ValueRef> encode_evalue(
    flatbuffers::FlatBufferBuilder& fbb,
    DebugBuffer& debug_buffer,
    const EValue& value,
    bool is_program_output) {
  if (value.isTensor()) {
    return encode_one_tensor(
        fbb, debug_buffer, value.toTensor(), is_program_output);
  }
  if (value.isTensorList()) {
    return encode_tensor_list(
        fbb, debug_buffer, value.toTensorList(), is_program_output);
  }
  if (value.isInt()) {
    return encode_int(fbb, value.toInt(), is_program_output);
  }
  if (value.isDouble()) {
    return encode_double(fbb, value.toDouble(), is_program_output);
  }
  if (value.isBool()) {
    return encode_bool(fbb, value.toBool(), is_program_output);
  }
  return ValueRef(0);
}

Result<ValueRef> encode_value(
    flatbuffers::FlatBufferBuilder& fbb,
    DebugBuffer& debug_buffer,
    const Tensor& value) {
  return encode_one_tensor(fbb, debug_buffer, value, false);
}

Result<ValueRef> encode_value(
    flatbuffers::FlatBufferBuilder& fbb,
    DebugBuffer& debug_buffer,
    ArrayRef<Tensor> value) {
  return encode_tensor_list(fbb, debug_buffer, value, false);
}

Result<ValueRef> encode_value(
    flatbuffers::FlatBufferBuilder& fbb, DebugBuffer&, int value) {
  return encode_int(fbb, value, false);
}

Result<ValueRef> encode_value(
    flatbuffers::FlatBufferBuilder& fbb, DebugBuffer&, bool value) {
  return encode_bool(fbb, value, false);
}

Result<ValueRef> encode_value(
    flatbuffers::FlatBufferBuilder& fbb, DebugBuffer&, double value) {
  return encode_double(fbb, value, false);
}

}  // namespace internal
}  // namespace etdump
}  // namespace executorch
