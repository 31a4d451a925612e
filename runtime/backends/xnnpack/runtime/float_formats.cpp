// fp16/bf16 values and staged external arguments (see float_formats.h).
#include "float_formats.h"

#include <cstring>

#include <executorch/runtime/core/portable_type/bfloat16.h>
#include <executorch/runtime/core/portable_type/half.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace backends {
namespace xnnpack {

using runtime::Error;
using runtime::etensor::ScalarType;
using runtime::etensor::Tensor;
using DT = ::xnnpack_schema::XNNDatatype;
// The runtime's Half/BFloat16 conversions (round to nearest even, NaN kept).
using runtime::etensor::internal::bf16_bits_to_float;
using runtime::etensor::internal::float_to_bf16_bits;
using runtime::etensor::internal::float_to_fp16_bits;
using runtime::etensor::internal::fp16_bits_to_float;

bool float_format_of(DT t, FloatFormat* out) {
  switch (t) {
    case DT::xnn_datatype_fp32:
      *out = FloatFormat::kFp32;
      return true;
    case DT::xnn_datatype_fp16:
      *out = FloatFormat::kFp16;
      return true;
    case DT::xnn_datatype_bf16:
      *out = FloatFormat::kBf16;
      return true;
    default:
      return false;
  }
}

const char* unsupported_datatype_reason(DT t) {
  switch (t) {
    case DT::xnn_datatype_int32:
    case DT::xnn_datatype_pfp32:
    case DT::xnn_datatype_qpint8:
      // XNNPACK-internal datatypes (packed operands, integer tensors of its own operators):
      // upstream's exporter never writes them into a payload.
      return "an XNNPACK-internal datatype upstream's exporter does not emit";
    default:
      return "a quantized datatype needs quantization parameters";
  }
}

size_t element_bytes(FloatFormat f) {
  return f == FloatFormat::kFp16 || f == FloatFormat::kBf16 ? 2 : 4;
}

void decode_elements(
    FloatFormat f, const uint8_t* bytes, size_t numel, float* out) {
  if (f == FloatFormat::kFp16 || f == FloatFormat::kBf16) {
    for (size_t i = 0; i < numel; ++i) {
      uint16_t h;
      std::memcpy(&h, bytes + 2 * i, 2);
      out[i] = f == FloatFormat::kFp16 ? fp16_bits_to_float(h)
                                       : bf16_bits_to_float(h);
    }
    return;
  }
  if (numel > 0) {
    std::memcpy(out, bytes, numel * sizeof(float));
  }
}

namespace {

// Rounds value `id` onto the grid of a 16-bit format: through its bits and back.
template <uint16_t (*to_bits)(float), float (*from_bits)(uint16_t)>
class RoundStep final : public Step {
 public:
  explicit RoundStep(uint32_t id) : id_(id) {}
  void run(Graph& g) override {
    float* x = g.data(id_);
    const size_t n = g.value(id_).numel;
    for (size_t i = 0; i < n; ++i) {
      x[i] = from_bits(to_bits(x[i]));
    }
  }

 private:
  uint32_t id_;
};

bool is_external(const Value& v) {
  return (v.flags & (kFlagExternalInput | kFlagExternalOutput)) != 0;
}

const char* format_name(FloatFormat f) {
  switch (f) {
    case FloatFormat::kFp32:
      return "float32";
    case FloatFormat::kFp16:
      return "float16";
    case FloatFormat::kBf16:
      return "bfloat16";
    case FloatFormat::kIndex:
      return "int64 or int32 (indices)";
  }
  return "?";
}

}  // namespace

std::unique_ptr<Step> make_round_step(const Value& value, uint32_t id) {
  switch (value.format) {
    case FloatFormat::kFp16:
      return std::make_unique<
          RoundStep<&float_to_fp16_bits, &fp16_bits_to_float>>(id);
    case FloatFormat::kBf16:
      return std::make_unique<
          RoundStep<&float_to_bf16_bits, &bf16_bits_to_float>>(id);
    case FloatFormat::kFp32:
    case FloatFormat::kIndex:
      break;
  }
  return nullptr;
}

Error allocate_staging(Graph& graph) {
  for (uint32_t id = 0; id < graph.values.size(); ++id) {
    Value& v = graph.values[id];
    if (!v.defined || !is_external(v) || v.format == FloatFormat::kFp32) {
      continue;
    }
    v.data = graph.allocate_floats(v.numel);
    if (v.data == nullptr) {
      ET_LOG(
          Error,
          "XnnpackBackend: no memory to stage external value %u (%zu elements)",
          id,
          v.numel);
      return Error::MemoryAllocationFailed;
    }
  }
  return Error::Ok;
}

Error bind_staged(Value& v, Tensor& t, bool is_output) {
  const ScalarType dtype = t.scalar_type();
  bool matches = false;
  switch (v.format) {
    case FloatFormat::kFp32:
      matches = dtype == ScalarType::Float;
      break;
    case FloatFormat::kFp16:
      matches = dtype == ScalarType::Half;
      break;
    case FloatFormat::kBf16:
      matches = dtype == ScalarType::BFloat16;
      break;
    case FloatFormat::kIndex:
      matches =
          is_output && (dtype == ScalarType::Long || dtype == ScalarType::Int);
      break;
  }
  if (!matches) {
    ET_LOG(
        Error,
        "XnnpackBackend: argument %u has dtype %d, the graph needs %s",
        v.external_id,
        static_cast<int>(dtype),
        format_name(v.format));
    return Error::InvalidArgument;
  }
  v.external_data = t.mutable_data_ptr();
  v.index_is_int64 = dtype == ScalarType::Long;
  if (is_output || v.format == FloatFormat::kFp32) {
    return Error::Ok;
  }
  decode_elements(
      v.format, static_cast<const uint8_t*>(v.external_data), v.numel, v.data);
  return Error::Ok;
}

void write_back_staged_outputs(Graph& graph) {
  for (uint32_t id : graph.output_values) {
    const Value& v = graph.values[id];
    if (v.format == FloatFormat::kFp32 || v.external_data == nullptr) {
      continue;
    }
    const float* x = v.data;
    switch (v.format) {
      case FloatFormat::kFp16:
      case FloatFormat::kBf16: {
        uint8_t* out = static_cast<uint8_t*>(v.external_data);
        for (size_t i = 0; i < v.numel; ++i) {
          const uint16_t h = v.format == FloatFormat::kFp16
                                 ? float_to_fp16_bits(x[i])
                                 : float_to_bf16_bits(x[i]);
          std::memcpy(out + 2 * i, &h, 2);
        }
        break;
      }
      case FloatFormat::kIndex:
        // The bound tensor's dtype was checked at bind: int64 or int32.
        if (v.index_is_int64) {
          int64_t* out = static_cast<int64_t*>(v.external_data);
          for (size_t i = 0; i < v.numel; ++i) {
            out[i] = static_cast<int64_t>(x[i]);
          }
        } else {
          int32_t* out = static_cast<int32_t*>(v.external_data);
          for (size_t i = 0; i < v.numel; ++i) {
            out[i] = static_cast<int32_t>(x[i]);
          }
        }
        break;
      case FloatFormat::kFp32:
        break;
    }
  }
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
