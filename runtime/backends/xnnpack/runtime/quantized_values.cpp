// read_quantized() and the quantize steps (see quantized_values.h).
#include "quantized_values.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <executorch/runtime/kernels/compute/conv_nhwc.h>
#include <executorch/runtime/kernels/compute/qd8_qb4w.h>
#include <executorch/runtime/core/portable_type/bfloat16.h>
#include <executorch/runtime/platform/log.h>

#include "constants.h"

namespace executorch {
namespace backends {
namespace xnnpack {

using runtime::Error;
using runtime::FreeableBuffer;
using runtime::NamedDataMap;
namespace fb = ::xnnpack_schema;
using DT = fb::XNNDatatype;

namespace {

#define QFAIL(error, ...)                                    \
  do {                                                       \
    ET_LOG(Error, "XnnpackBackend: value %u: " __VA_ARGS__); \
    return Error::error;                                     \
  } while (0)

// How the integers of a datatype are stored.
enum class Storage { kInt8, kUInt8, kInt32, kInt4 };

bool storage_of(DT t, Storage* s, int32_t* qmin, int32_t* qmax) {
  switch (t) {
    case DT::xnn_datatype_qint8:
    case DT::xnn_datatype_qcint8:
    case DT::xnn_datatype_qdint8:
      *s = Storage::kInt8, *qmin = -128, *qmax = 127;
      return true;
    case DT::xnn_datatype_quint8:
      *s = Storage::kUInt8, *qmin = 0, *qmax = 255;
      return true;
    case DT::xnn_datatype_qint32:
    case DT::xnn_datatype_qcint32:
      *s = Storage::kInt32, *qmin = std::numeric_limits<int32_t>::min();
      *qmax = std::numeric_limits<int32_t>::max();
      return true;
    case DT::xnn_datatype_qcint4:
    case DT::xnn_datatype_qbint4:
      // Unsigned nibbles holding q + 8 (zero point 8), two per byte, low nibble first, rows
      // padded to whole bytes (upstream's exporter, convert_to_qc4w).
      *s = Storage::kInt4, *qmin = 0, *qmax = 15;
      return true;
    default:
      return false;
  }
}

bool valid_scale(float s) {
  return std::isfinite(s) && s > 0.0f;
}

// Bytes of `numel` elements of storage s; rank-2 [rows, cols] for 4-bit.
size_t storage_bytes(Storage s, const Value& v) {
  switch (s) {
    case Storage::kInt8:
    case Storage::kUInt8:
      return v.numel;
    case Storage::kInt32:
      return v.numel * 4;
    case Storage::kInt4:
      return v.dims.size() == 2 ? v.dims[0] * ((v.dims[1] + 1) / 2) : 0;
  }
  return 0;
}

// Integer i (logical row-major order) of the stored constant.
int32_t stored_int(Storage s, const uint8_t* bytes, const Value& v, size_t i) {
  switch (s) {
    case Storage::kInt8:
      return static_cast<int8_t>(bytes[i]);
    case Storage::kUInt8:
      return bytes[i];
    case Storage::kInt32: {
      int32_t x;
      std::memcpy(&x, bytes + i * 4, 4);
      return x;
    }
    case Storage::kInt4: {
      const size_t cols = v.dims[1], row = i / cols, col = i % cols;
      const uint8_t b = bytes[row * ((cols + 1) / 2) + col / 2];
      return (col % 2 == 0) ? (b & 0x0F) : (b >> 4);
    }
  }
  return 0;
}

// The per-channel (or per-block) scales: the inline float vector, or a constant of
// `count` floats (or bf16 when `bf16`).
Error read_scales(
    const fb::XNNGraph* g,
    const PayloadRegions& regions,
    const NamedDataMap* named_data,
    uint32_t id,
    const flatbuffers::Vector<float>* inline_scales,
    uint32_t buffer_idx,
    uint32_t num_scales,
    size_t count,
    bool bf16,
    std::vector<float>* out) {
  out->clear();
  if (buffer_idx != 0) {
    if (num_scales != count) {
      QFAIL(
          InvalidProgram,
          "num_scales %u, the shape needs %zu",
          id,
          num_scales,
          count);
    }
    FreeableBuffer holder;
    const uint8_t* bytes = nullptr;
    Error err = locate_constant(
        g,
        regions,
        named_data,
        id,
        buffer_idx,
        count * (bf16 ? 2 : 4),
        holder,
        &bytes);
    if (err != Error::Ok) {
      return err;
    }
    for (size_t i = 0; i < count; ++i) {
      if (bf16) {
        uint16_t h;
        std::memcpy(&h, bytes + i * 2, 2);
        out->push_back(runtime::etensor::internal::bf16_bits_to_float(h));
      } else {
        float f;
        std::memcpy(&f, bytes + i * 4, 4);
        out->push_back(f);
      }
    }
    holder.Free();
  } else {
    if (inline_scales == nullptr || inline_scales->size() != count) {
      QFAIL(
          InvalidProgram,
          "has %u scales, the shape needs %zu",
          id,
          inline_scales != nullptr ? inline_scales->size() : 0,
          count);
    }
    out->assign(inline_scales->begin(), inline_scales->end());
  }
  for (size_t i = 0; i < out->size(); ++i) {
    if (!valid_scale((*out)[i])) {
      QFAIL(
          InvalidProgram,
          "scale %zu (%g) is not a positive finite number",
          id,
          i,
          (*out)[i]);
    }
  }
  return Error::Ok;
}

// Decodes constant value `id`: element i is (q_i - zero_point) * scale_of(i). The stored bytes
// are also copied to *stored_bytes when given.
template <typename ScaleOf>
Error decode_constant(
    Graph& graph,
    const fb::XNNGraph* g,
    const PayloadRegions& regions,
    const NamedDataMap* named_data,
    uint32_t id,
    uint32_t buffer_idx,
    Storage storage,
    int32_t zero_point,
    ScaleOf scale_of,
    std::vector<uint8_t>* stored_bytes = nullptr) {
  Value& v = graph.values[id];
  const size_t nbytes = storage_bytes(storage, v);
  if (nbytes == 0 && v.numel != 0) {
    QFAIL(InvalidProgram, "4-bit constants must be 2-D", id);
  }
  FreeableBuffer holder;
  const uint8_t* bytes = nullptr;
  Error err = locate_constant(
      g, regions, named_data, id, buffer_idx, nbytes, holder, &bytes);
  if (err != Error::Ok) {
    return err;
  }
  v.data = graph.allocate_floats(v.numel);
  if (v.data == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  for (size_t i = 0; i < v.numel; ++i) {
    v.data[i] = static_cast<float>(
                    static_cast<double>(stored_int(storage, bytes, v, i)) -
                    zero_point) *
                scale_of(i);
  }
  v.is_constant = true;
  if (stored_bytes != nullptr) {
    stored_bytes->assign(bytes, bytes + nbytes);
  }
  holder.Free();
  return Error::Ok;
}

// Per-channel scale of element i along channel_dim.
struct ChannelScale {
  const std::vector<float>* scales;
  size_t inner;     // product of the dims after channel_dim
  size_t channels;  // dims[channel_dim]
  float operator()(size_t i) const {
    return (*scales)[(i / inner) % channels];
  }
};

}  // namespace

Error read_quantized(
    Graph& graph,
    const fb::XNNGraph* g,
    const PayloadRegions& regions,
    const NamedDataMap* named_data,
    uint32_t id,
    const fb::XNNQuantizedTensorValue* qv) {
  Value& v = graph.values[id];
  const fb::XNNTensorValue* tv = qv->tensor_value();
  const DT dtype = tv->datatype();
  const char* params = fb::EnumNameXNNQuantParams(qv->quant_params_type());
  Storage storage;
  int32_t qmin = 0, qmax = 0;
  if (!storage_of(dtype, &storage, &qmin, &qmax)) {
    QFAIL(
        NotSupported,
        "quantized datatype %s (%s) is not supported by this backend",
        id,
        datatype_name(dtype),
        params);
  }
  if ((v.flags & (kFlagExternalInput | kFlagExternalOutput)) != 0) {
    QFAIL(
        NotSupported,
        "quantized external values (%s) are not supported: arguments are "
        "float32",
        id,
        datatype_name(dtype));
  }
  const uint32_t buffer_idx = tv->constant_buffer_idx();
  // The verifier accepts a union whose table is absent: no parameters to read.
  if (qv->quant_params() == nullptr) {
    QFAIL(InvalidProgram, "has no quantization parameters", id);
  }
  switch (qv->quant_params_type()) {
    case fb::XNNQuantParams::PerTensorQuant: {
      const auto* p = qv->quant_params_as_PerTensorQuant();
      const bool per_tensor_type = dtype == DT::xnn_datatype_qint8 ||
                                   dtype == DT::xnn_datatype_quint8 ||
                                   dtype == DT::xnn_datatype_qint32;
      if (!per_tensor_type) {
        QFAIL(
            NotSupported,
            "%s with per-tensor parameters is not supported",
            id,
            datatype_name(dtype));
      }
      if (!valid_scale(p->scale()) || p->zero_point() < qmin ||
          p->zero_point() > qmax ||
          (dtype == DT::xnn_datatype_qint32 && p->zero_point() != 0)) {
        QFAIL(
            InvalidProgram,
            "per-tensor scale %g / zero point %d are invalid for %s",
            id,
            p->scale(),
            p->zero_point(),
            datatype_name(dtype));
      }
      if (buffer_idx != 0) {
        const float scale = p->scale();
        if (dtype == DT::xnn_datatype_qint8 && p->zero_point() == 0) {
          v.int8_scales.assign(1, scale);
        }
        return decode_constant(
            graph,
            g,
            regions,
            named_data,
            id,
            buffer_idx,
            storage,
            p->zero_point(),
            [scale](size_t) { return scale; });
      }
      if (dtype == DT::xnn_datatype_qint32) {
        QFAIL(NotSupported, "qint32 activations are not supported", id);
      }
      v.quant.kind = Quant::Kind::kPerTensor;
      v.quant.scale = p->scale();
      v.quant.zero_point = p->zero_point();
      v.quant.qmin = qmin;
      v.quant.qmax = qmax;
      return Error::Ok;
    }
    case fb::XNNQuantParams::PerChannelQuant: {
      const auto* p = qv->quant_params_as_PerChannelQuant();
      if (dtype != DT::xnn_datatype_qcint8 &&
          dtype != DT::xnn_datatype_qcint32 &&
          dtype != DT::xnn_datatype_qcint4) {
        QFAIL(
            NotSupported,
            "%s with per-channel parameters is not supported",
            id,
            datatype_name(dtype));
      }
      if (buffer_idx == 0) {
        QFAIL(
            NotSupported,
            "per-channel quantized activations are not supported",
            id);
      }
      const int channel_dim = p->channel_dim();
      if (channel_dim < 0 ||
          static_cast<size_t>(channel_dim) >= v.dims.size() ||
          (dtype == DT::xnn_datatype_qcint4 && channel_dim != 0)) {
        QFAIL(
            InvalidProgram,
            "channel_dim %d is invalid for rank %zu (%s)",
            id,
            channel_dim,
            v.dims.size(),
            datatype_name(dtype));
      }
      const size_t channels = v.dims[channel_dim];
      std::vector<float> scales;
      Error err = read_scales(
          g,
          regions,
          named_data,
          id,
          p->scale(),
          p->scale_buffer_idx(),
          p->num_scales(),
          channels,
          false,
          &scales);
      if (err != Error::Ok) {
        return err;
      }
      size_t inner = 1;
      for (size_t d = channel_dim + 1; d < v.dims.size(); ++d)
        inner *= v.dims[d];
      const int32_t zero_point = dtype == DT::xnn_datatype_qcint4 ? 8 : 0;
      if (dtype == DT::xnn_datatype_qcint8) {
        v.int8_scales = scales;
        v.int8_channel_dim = channel_dim;
      }
      return decode_constant(
          graph,
          g,
          regions,
          named_data,
          id,
          buffer_idx,
          storage,
          zero_point,
          ChannelScale{&scales, inner == 0 ? 1 : inner, channels});
    }
    case fb::XNNQuantParams::PerChannelGroupQuant: {
      const auto* p = qv->quant_params_as_PerChannelGroupQuant();
      if (dtype != DT::xnn_datatype_qbint4) {
        QFAIL(
            NotSupported,
            "%s with blockwise parameters is not supported",
            id,
            datatype_name(dtype));
      }
      if (buffer_idx == 0) {
        QFAIL(
            NotSupported,
            "blockwise quantized activations are not supported",
            id);
      }
      const int64_t group = p->group_size();
      if (v.dims.size() != 2 || p->channel_dim() != 0 || group <= 0 ||
          v.dims[1] % static_cast<size_t>(group) != 0) {
        QFAIL(
            InvalidProgram,
            "blockwise [%zu dims], channel_dim %d, group size %lld are invalid",
            id,
            v.dims.size(),
            p->channel_dim(),
            static_cast<long long>(group));
      }
      const size_t blocks_per_row = v.dims[1] / static_cast<size_t>(group);
      std::vector<float> scales;
      // Serialized as bf16 in scale_buffer_idx, or (older) as inline floats.
      Error err = read_scales(
          g,
          regions,
          named_data,
          id,
          p->scale(),
          p->scale_buffer_idx(),
          p->num_scales(),
          v.dims[0] * blocks_per_row,
          true,
          &scales);
      if (err != Error::Ok) {
        return err;
      }
      const size_t cols = v.dims[1], gs = static_cast<size_t>(group);
      // The nibbles and scales stay too, for the integer fully connected.
      auto kept = std::make_shared<Int4Blockwise>();
      kept->scales = scales;
      kept->block = gs;
      err = decode_constant(
          graph,
          g,
          regions,
          named_data,
          id,
          buffer_idx,
          storage,
          8,
          [&scales, cols, gs, blocks_per_row](size_t i) {
            return scales[(i / cols) * blocks_per_row + (i % cols) / gs];
          },
          &kept->nibbles);
      if (err == Error::Ok) {
        v.int4_blockwise = std::move(kept);
      }
      return err;
    }
    case fb::XNNQuantParams::PerTokenDynamicQuant: {
      const auto* p = qv->quant_params_as_PerTokenDynamicQuant();
      if (dtype != DT::xnn_datatype_qdint8 || buffer_idx != 0) {
        QFAIL(
            NotSupported,
            "dynamic quantization of %s%s is not supported",
            id,
            datatype_name(dtype),
            buffer_idx != 0 ? " constants" : "");
      }
      const int nonbatch = p->num_nonbatch_dims();
      if (nonbatch < 1 || static_cast<size_t>(nonbatch) > v.dims.size()) {
        QFAIL(
            InvalidProgram,
            "num_nonbatch_dims %d is invalid for rank %zu",
            id,
            nonbatch,
            v.dims.size());
      }
      size_t row = 1;
      for (size_t d = v.dims.size() - nonbatch; d < v.dims.size(); ++d)
        row *= v.dims[d];
      v.quant.kind = Quant::Kind::kDynamicPerRow;
      v.quant.row_size = row;
      v.quant.row_dims = static_cast<size_t>(nonbatch);
      v.quant.qmin = qmin;
      v.quant.qmax = qmax;
      // The integers and row parameters are sized for the exported (largest) shape (a
      // reshape checks that its rows fit) and allocated once the whole graph has been read
      // (allocate_dynamic_quant_buffers).
      v.quant.max_rows = row == 0 ? 0 : v.numel / row;
      return Error::Ok;
    }
    default:
      QFAIL(
          InvalidProgram,
          "unknown quantization parameters type %u",
          id,
          static_cast<unsigned>(qv->quant_params_type()));
  }
}

namespace {

class PerTensorQuantizeStep final : public Step {
 public:
  PerTensorQuantizeStep(uint32_t id, const Quant& q) : id_(id), q_(q) {}
  void run(Graph& g) override {
    // The compute core's vectorized rounding onto the grid: the value of
    // clamp(nearbyint(x / scale) + zp, qmin, qmax); the grid is 8-bit (qint8/quint8, zero point
    // inside it), which read_quantized checked.
    kernels::compute::quantize_to_grid(
        g.data(id_),
        static_cast<int64_t>(g.value(id_).numel),
        q_.scale,
        static_cast<float>(q_.zero_point),
        static_cast<float>(q_.qmin),
        static_cast<float>(q_.qmax));
  }

 private:
  uint32_t id_;
  Quant q_;
};

// Asymmetric int8 per row, as XNNPACK quantizes (compute/qd8_qb4w.h): the integers and each
// row's parameters go to the value's side buffers (for the integer fully connected), the floats
// they stand for, (q - zero point) * scale, to the value itself (for any other reader).
class DynamicQuantizeStep final : public Step {
 public:
  DynamicQuantizeStep(uint32_t id, const Quant& q) : id_(id), q_(q) {}
  // A row spans the value's innermost row_dims dims, which may follow a new shape too.
  Error reshape(Graph& g) override {
    const Value& v = g.value(id_);
    q_.row_size = 1;
    for (size_t d = v.dims.size() - q_.row_dims; d < v.dims.size(); ++d)
      q_.row_size *= v.dims[d];
    if (q_.row_size != 0 && v.numel / q_.row_size > q_.max_rows) {
      return fail(
          Error::InvalidArgument,
          "value %u: %zu rows of dynamic quantization, more than the %zu "
          "exported",
          id_,
          v.numel / q_.row_size,
          q_.max_rows);
    }
    return Error::Ok;
  }
  void run(Graph& g) override {
    float* x = g.data(id_);
    // The side buffers are the value's (allocated after this step was made).
    const Quant& buffers = g.value(id_).quant;
    const size_t n = g.value(id_).numel, row = q_.row_size;
    for (size_t start = 0, r = 0; row > 0 && start < n; start += row, ++r) {
      uint8_t* codes = buffers.codes + start;
      kernels::compute::qd8_quantize_row(
          static_cast<int64_t>(row),
          x + start,
          codes,
          &buffers.row_zero_point[r],
          &buffers.row_scale[r]);
      const int32_t zp = buffers.row_zero_point[r];
      const float scale = buffers.row_scale[r];
      for (size_t i = 0; i < row; ++i)
        x[start + i] = static_cast<float>(codes[i] - zp) * scale;
    }
  }

 private:
  uint32_t id_;
  Quant q_;
};

}  // namespace

Error allocate_dynamic_quant_buffers(Graph& graph) {
  for (uint32_t id = 0; id < graph.values.size(); ++id) {
    Quant& q = graph.values[id].quant;
    if (q.kind != Quant::Kind::kDynamicPerRow) {
      continue;
    }
    const size_t words = (graph.values[id].numel + 3) / 4 + 2 * q.max_rows + 1;
    float* block = graph.allocate_floats(words);
    if (block == nullptr) {
      ET_LOG(
          Error,
          "XnnpackBackend: no memory for the dynamic quantization of value %u "
          "(%zu bytes)",
          id,
          words * sizeof(float));
      return Error::MemoryAllocationFailed;
    }
    q.row_scale = block;
    q.row_zero_point = reinterpret_cast<int32_t*>(block + q.max_rows);
    q.codes = reinterpret_cast<uint8_t*>(block + 2 * q.max_rows);
  }
  return Error::Ok;
}

std::unique_ptr<Step> make_quantize_step(const Value& value, uint32_t id) {
  switch (value.quant.kind) {
    case Quant::Kind::kPerTensor:
      return std::make_unique<PerTensorQuantizeStep>(id, value.quant);
    case Quant::Kind::kDynamicPerRow:
      return std::make_unique<DynamicQuantizeStep>(id, value.quant);
    case Quant::Kind::kNone:
      break;
  }
  return nullptr;
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
