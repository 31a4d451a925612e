// Helpers of the XnnpackBackend tests: a small writer for XNNGraph payloads (the layout the
// upstream exporter writes: "XH00" header, flatbuffer, constant region), and a way to run a
// payload through the registered backend exactly as a Method would (init, execute, destroy).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <flatbuffers/flatbuffers.h>
#include <xnnpack_schema/schema_generated.h>

#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/evalue.h>

namespace xnn_test {

namespace fb = ::xnnpack_schema;
using executorch::runtime::Error;

constexpr uint32_t kNone = 0xFFFFFFFFu;

class GraphWriter {
 public:
  GraphWriter() {
    graph.version = "0";
    // Entry 0 of constant_data is reserved for "not constant".
    graph.constant_data.push_back(std::make_unique<fb::ConstantDataOffsetT>());
  }

  // A value; returns its id. external_id >= 0 makes it an external input (or output).
  uint32_t value(std::vector<uint32_t> dims, int external_id = -1, bool output = false,
                 fb::XNNDatatype dtype = fb::XNNDatatype::xnn_datatype_fp32) {
    auto tv = std::make_unique<fb::XNNTensorValueT>();
    tv->datatype = dtype;
    tv->num_dims = static_cast<uint32_t>(dims.size());
    tv->dims = dims;
    tv->id_out = static_cast<uint32_t>(graph.xvalues.size());
    tv->external_id = external_id >= 0 ? static_cast<uint32_t>(external_id) : kNone;
    if (external_id >= 0) {
      tv->flags = output ? 2u : 1u;
      graph.num_externs =
          std::max<uint32_t>(graph.num_externs, static_cast<uint32_t>(external_id) + 1);
    }
    auto v = std::make_unique<fb::XValueT>();
    v->xvalue_union.type = fb::XValueUnion::XNNTensorValue;
    v->xvalue_union.value = tv.release();
    graph.xvalues.push_back(std::move(v));
    return static_cast<uint32_t>(graph.xvalues.size() - 1);
  }

  // A constant value holding `data` in the payload's constant region.
  uint32_t constant(std::vector<uint32_t> dims, const std::vector<float>& data) {
    const uint32_t id = value(dims);
    auto entry = std::make_unique<fb::ConstantDataOffsetT>();
    entry->offset = constants.size();
    entry->size = data.size() * sizeof(float);
    const size_t at = constants.size();
    constants.resize(at + (entry->size + 15) / 16 * 16);
    std::memcpy(constants.data() + at, data.data(), entry->size);
    graph.constant_data.push_back(std::move(entry));
    tensor(id)->constant_buffer_idx = static_cast<uint32_t>(graph.constant_data.size() - 1);
    return id;
  }

  fb::XNNTensorValueT* tensor(uint32_t id) {
    auto& u = graph.xvalues[id]->xvalue_union;
    return u.type == fb::XValueUnion::XNNTensorValue
               ? u.AsXNNTensorValue()
               : u.AsXNNQuantizedTensorValue()->tensor_value.get();
  }

  // Raw constant bytes in the constant region; returns the constant_data index.
  uint32_t add_bytes(const void* data, size_t size) {
    auto entry = std::make_unique<fb::ConstantDataOffsetT>();
    entry->offset = constants.size();
    entry->size = size;
    constants.resize(constants.size() + (size + 15) / 16 * 16);
    std::memcpy(constants.data() + entry->offset, data, size);
    graph.constant_data.push_back(std::move(entry));
    return static_cast<uint32_t>(graph.constant_data.size() - 1);
  }

  // Makes value `id` quantized with `dtype` and the parameters `params` of type `type`
  // (ownership taken).
  template <typename P>
  void quantize(uint32_t id, fb::XNNDatatype dtype, fb::XNNQuantParams type, P* params) {
    auto q = std::make_unique<fb::XNNQuantizedTensorValueT>();
    q->tensor_value = std::make_unique<fb::XNNTensorValueT>(*tensor(id));
    q->tensor_value->datatype = dtype;
    q->quant_params.type = type;
    q->quant_params.value = params;
    graph.xvalues[id]->xvalue_union.Reset();
    graph.xvalues[id]->xvalue_union.type = fb::XValueUnion::XNNQuantizedTensorValue;
    graph.xvalues[id]->xvalue_union.value = q.release();
  }
  void per_tensor(uint32_t id, fb::XNNDatatype dtype, float scale, int32_t zero_point) {
    auto* p = new fb::PerTensorQuantT();
    p->scale = scale;
    p->zero_point = zero_point;
    quantize(id, dtype, fb::XNNQuantParams::PerTensorQuant, p);
  }

  // Adds a node of `type` with parameters `params` (ownership taken); returns the node.
  template <typename T>
  fb::XNodeT* node(fb::XNodeUnion type, T* params) {
    auto n = std::make_unique<fb::XNodeT>();
    n->xnode_union.type = type;
    n->xnode_union.value = params;
    graph.xnodes.push_back(std::move(n));
    return graph.xnodes.back().get();
  }
  fb::XNodeT* unary(fb::XNodeUnion type, uint32_t in, uint32_t out) {
    auto* p = new fb::_XNNNode1x1T();
    p->input_id = in;
    p->output_id = out;
    return node(type, p);
  }
  fb::XNodeT* binary(fb::XNodeUnion type, uint32_t a, uint32_t b, uint32_t out) {
    auto* p = new fb::_XNNNode2x1T();
    p->input1_id = a;
    p->input2_id = b;
    p->output_id = out;
    return node(type, p);
  }
  static void clamp(fb::XNodeT* n, float lo, float hi) {
    n->output_min_max = std::make_unique<fb::OutputMinMaxT>();
    n->output_min_max->output_min = lo;
    n->output_min_max->output_max = hi;
  }

  // The payload bytes: header, flatbuffer (16-byte aligned), constants.
  std::vector<uint8_t> payload() const {
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(fb::XNNGraph::Pack(fbb, &graph), "XN00");
    const size_t header = 32;
    const size_t fb_size = fbb.GetSize();
    const size_t cd_offset = header + (fb_size + 15) / 16 * 16;
    std::vector<uint8_t> out(cd_offset + constants.size(), 0);
    std::memcpy(out.data() + 4, "XH00", 4);
    put(out, 8, 30, 2);
    put(out, 10, header, 4);
    put(out, 14, fb_size, 4);
    put(out, 18, cd_offset, 4);
    put(out, 22, constants.size(), 8);
    std::memcpy(out.data() + header, fbb.GetBufferPointer(), fb_size);
    if (!constants.empty()) {
      std::memcpy(out.data() + cd_offset, constants.data(), constants.size());
    }
    return out;
  }

  static void put(std::vector<uint8_t>& b, size_t at, uint64_t v, size_t bytes) {
    for (size_t i = 0; i < bytes; ++i)
      b[at + i] = static_cast<uint8_t>(v >> (8 * i));
  }

  fb::XNNGraphT graph;
  std::vector<uint8_t> constants;
};

inline executorch::runtime::BackendInterface* backend() {
  return executorch::runtime::get_backend_class("XnnpackBackend");
}

// init() on a copy of the payload; the handle (or the error) is returned.
struct Delegate {
  executorch::extension::MallocMemoryAllocator allocator;
  std::vector<uint8_t> bytes;
  executorch::runtime::FreeableBuffer buffer;
  executorch::runtime::DelegateHandle* handle = nullptr;
  Error init_error = Error::Internal;

  explicit Delegate(std::vector<uint8_t> payload,
                    const executorch::runtime::NamedDataMap* named = nullptr)
      : bytes(std::move(payload)), buffer(bytes.data(), bytes.size(), nullptr) {
    executorch::runtime::BackendInitContext ctx(&allocator, nullptr, "forward", named);
    auto r = backend()->init(ctx, &buffer, {});
    init_error = r.error();
    if (r.ok())
      handle = *r;
  }
  ~Delegate() {
    if (handle != nullptr)
      backend()->destroy(handle);
  }
  Error execute(std::vector<executorch::runtime::EValue*> args) {
    executorch::runtime::BackendExecutionContext ctx;
    return backend()->execute(
        ctx, handle,
        executorch::runtime::Span<executorch::runtime::EValue*>(args.data(), args.size()));
  }
};

// Same floats, bit for bit (NaNs and signed zeros included).
inline bool bit_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace xnn_test
