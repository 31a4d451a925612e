// build_graph(): checks the payload once and builds the plan (graph.h).
#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>

#include <flatbuffers/flatbuffers.h>

#include <executorch/runtime/platform/log.h>

#include "graph.h"
#include "node_context.h"
#include "constants.h"
#include "float_formats.h"
#include "payload_header.h"
#include "quantized_values.h"

namespace executorch {
namespace backends {
namespace xnnpack {

using runtime::Error;
using runtime::FreeableBuffer;
using runtime::NamedDataMap;
using runtime::Result;

// Any buffer larger than this is a corrupt payload, not a model (and keeps every byte count
// computed from dims far from overflow).
constexpr size_t kMaxValueElements = size_t{1} << 36;
// At most this many arguments: a payload claiming more is corrupt.
constexpr uint32_t kMaxExternals = 4096;

float* Graph::allocate_floats(size_t count) {
  // On a 64-byte boundary (a cache line, an AVX-512 vector): the buffer planner keeps every
  // intermediate's offset on one too, and the compute core's vector loads and stores that do
  // not straddle two lines ran the depthwise convolutions a quarter faster.
  constexpr size_t kAlignFloats = 16;
  std::unique_ptr<float[]> block(
      new (std::nothrow) float[(count == 0 ? 1 : count) + kAlignFloats - 1]);
  if (!block) {
    return nullptr;
  }
  const uintptr_t at = reinterpret_cast<uintptr_t>(block.get());
  const uintptr_t line = kAlignFloats * sizeof(float);
  float* p = reinterpret_cast<float*>((at + line - 1) / line * line);
  storage_.push_back(std::move(block));
  return p;
}

void Graph::release_floats(const float* block) {
  for (auto& owned : storage_) {
    if (owned.get() == block) {
      owned.reset();
      return;
    }
  }
}

size_t numel_of(const std::vector<size_t>& dims) {
  size_t n = 1;
  for (size_t d : dims) {
    n *= d;
  }
  return n;
}

namespace {

#define XNN_FAIL(error, ...)                       \
  do {                                             \
    ET_LOG(Error, "XnnpackBackend: " __VA_ARGS__); \
    return Error::error;                           \
  } while (0)

// Reads one XValue into graph.values[id_out].
Error read_value(
    Graph& graph,
    const fb::XNNGraph* g,
    const PayloadRegions& regions,
    const NamedDataMap* named_data,
    uint32_t position,
    const fb::XValue* xvalue) {
  if (xvalue == nullptr) {
    XNN_FAIL(InvalidProgram, "xvalues[%u] is null", position);
  }
  const fb::XNNTensorValue* tv = nullptr;
  const fb::XNNQuantizedTensorValue* qv = nullptr;
  switch (xvalue->xvalue_union_type()) {
    case fb::XValueUnion::XNNTensorValue:
      tv = xvalue->xvalue_union_as_XNNTensorValue();
      break;
    case fb::XValueUnion::XNNQuantizedTensorValue:
      qv = xvalue->xvalue_union_as_XNNQuantizedTensorValue();
      tv = qv != nullptr ? qv->tensor_value() : nullptr;
      break;
    default:
      XNN_FAIL(
          InvalidProgram,
          "xvalues[%u] has an unknown value type %u",
          position,
          static_cast<unsigned>(xvalue->xvalue_union_type()));
  }
  if (tv == nullptr) {
    XNN_FAIL(InvalidProgram, "xvalues[%u] has no tensor value", position);
  }
  const uint32_t id = tv->id_out();
  if (id >= graph.values.size()) {
    XNN_FAIL(
        InvalidProgram,
        "xvalues[%u]: id_out %u is not below the value count %zu",
        position,
        id,
        graph.values.size());
  }
  Value& v = graph.values[id];
  if (v.defined) {
    XNN_FAIL(
        InvalidProgram,
        "xvalues[%u]: value id %u is defined twice",
        position,
        id);
  }
  if (qv == nullptr && !float_format_of(tv->datatype(), &v.format)) {
    XNN_FAIL(
        NotSupported,
        "value %u: datatype %s is not supported by this backend (%s)",
        id,
        datatype_name(tv->datatype()),
        unsupported_datatype_reason(tv->datatype()));
  }
  if (tv->dq_datatype() != fb::XNNDatatype::xnn_datatype_invalid) {
    XNN_FAIL(
        NotSupported,
        "value %u: dynamic quantization to %s is not supported by this backend",
        id,
        datatype_name(tv->dq_datatype()));
  }
  if ((tv->flags() & ~(kFlagExternalInput | kFlagExternalOutput)) != 0) {
    XNN_FAIL(
        InvalidProgram, "value %u: unknown flag bits 0x%x", id, tv->flags());
  }
  const auto* dims = tv->dims();
  const size_t rank = dims != nullptr ? dims->size() : 0;
  if (rank != tv->num_dims()) {
    XNN_FAIL(
        InvalidProgram,
        "value %u: num_dims %u but %zu dims",
        id,
        tv->num_dims(),
        rank);
  }
  if (rank > kMaxDims) {
    XNN_FAIL(
        InvalidProgram, "value %u: rank %zu exceeds %zu", id, rank, kMaxDims);
  }
  v.dims.clear();
  // The limit applies to the product of the dims with each 0 counted as 1: a value with a 0
  // dim holds nothing, but its other dims still size loops, plans and products of a subset of
  // them (a resize's rows, a reshape's entries), which must stay as bounded as a full value's.
  size_t numel = 1, extent = 1;
  for (size_t i = 0; i < rank; ++i) {
    const size_t d = dims->Get(static_cast<flatbuffers::uoffset_t>(i));
    const size_t counted = d == 0 ? 1 : d;
    if (extent > kMaxValueElements / counted) {
      XNN_FAIL(
          InvalidProgram,
          "value %u: element count overflows (dim %zu = %zu)",
          id,
          i,
          d);
    }
    extent *= counted;
    numel *= d;
    v.dims.push_back(d);
  }
  v.numel = numel;
  v.flags = tv->flags();
  v.external_id = tv->external_id();
  v.defined = true;

  const bool external =
      (v.flags & (kFlagExternalInput | kFlagExternalOutput)) != 0;
  if (external) {
    if (v.external_id >= g->num_externs()) {
      XNN_FAIL(
          InvalidProgram,
          "value %u: external_id %u is not below num_externs %u",
          id,
          v.external_id,
          g->num_externs());
    }
    auto& table = (v.flags & kFlagExternalInput) ? graph.input_values
                                                 : graph.output_values;
    if ((v.flags & kFlagExternalInput) && (v.flags & kFlagExternalOutput)) {
      XNN_FAIL(
          NotSupported, "value %u is both an external input and output", id);
    }
    (void)table;
  }
  if (tv->constant_buffer_idx() != 0 && external) {
    XNN_FAIL(InvalidProgram, "value %u is both external and constant", id);
  }
  if (qv != nullptr) {
    return read_quantized(graph, g, regions, named_data, id, qv);
  }
  if (tv->constant_buffer_idx() != 0) {
    FreeableBuffer holder;
    const uint8_t* bytes = nullptr;
    Error err = locate_constant(
        g,
        regions,
        named_data,
        id,
        tv->constant_buffer_idx(),
        numel * element_bytes(v.format),
        holder,
        &bytes);
    if (err != Error::Ok) {
      return err;
    }
    v.data = graph.allocate_floats(numel);
    if (v.data == nullptr) {
      XNN_FAIL(
          MemoryAllocationFailed,
          "value %u: no memory for %zu constant elements",
          id,
          numel);
    }
    decode_elements(v.format, bytes, numel, v.data);
    v.is_constant = true;
    holder.Free();
  }
  return Error::Ok;
}

// Fills input_values / output_values by external id: each external id used once.
Error bind_externals(Graph& graph, uint32_t num_externs) {
  graph.num_args = num_externs;
  std::vector<uint8_t> used(num_externs, 0);
  for (uint32_t id = 0; id < graph.values.size(); ++id) {
    const Value& v = graph.values[id];
    if (!v.defined ||
        (v.flags & (kFlagExternalInput | kFlagExternalOutput)) == 0) {
      continue;
    }
    if (used[v.external_id]) {
      XNN_FAIL(
          InvalidProgram,
          "value %u: external_id %u is used by two values",
          id,
          v.external_id);
    }
    used[v.external_id] = 1;
    ((v.flags & kFlagExternalInput) ? graph.input_values : graph.output_values)
        .push_back(id);
  }
  return Error::Ok;
}

}  // namespace

const char* datatype_name(fb::XNNDatatype t) {
  const char* name = fb::EnumNameXNNDatatype(t);
  return (name != nullptr && name[0] != '\0') ? name : "unknown datatype";
}

Error locate_constant(
    const fb::XNNGraph* g,
    const PayloadRegions& regions,
    const NamedDataMap* named_data,
    uint32_t value_id,
    uint32_t index,
    size_t nbytes,
    FreeableBuffer& holder,
    const uint8_t** out) {
  const auto* table = g->constant_data();
  if (table != nullptr && table->size() > 0) {
    if (index >= table->size()) {
      XNN_FAIL(
          InvalidProgram,
          "value %u: constant_buffer_idx %u is past constant_data (%u entries)",
          value_id,
          index,
          table->size());
    }
    const fb::ConstantDataOffset* entry = table->Get(index);
    if (entry == nullptr) {
      XNN_FAIL(
          InvalidProgram,
          "value %u: constant_data[%u] is null",
          value_id,
          index);
    }
    if (entry->size() != nbytes) {
      XNN_FAIL(
          InvalidProgram,
          "value %u: constant_data[%u] holds %" PRIu64
          " bytes, its shape needs %zu",
          value_id,
          index,
          entry->size(),
          nbytes);
    }
    const bool named =
        entry->named_key() != nullptr && entry->named_key()->size() > 0;
    if (named) {
      if (named_data == nullptr) {
        XNN_FAIL(
            InvalidExternalData,
            "value %u: constant '%s' needs named data, the program has none",
            value_id,
            entry->named_key()->c_str());
      }
      Result<FreeableBuffer> data =
          named_data->get_data(entry->named_key()->c_str());
      if (!data.ok()) {
        XNN_FAIL(
            InvalidExternalData,
            "value %u: named constant '%s' not found",
            value_id,
            entry->named_key()->c_str());
      }
      if (data->size() < nbytes) {
        XNN_FAIL(
            InvalidExternalData,
            "value %u: named constant '%s' has %zu bytes, needs %zu",
            value_id,
            entry->named_key()->c_str(),
            data->size(),
            nbytes);
      }
      holder = std::move(data.get());
      *out = static_cast<const uint8_t*>(holder.data());
      return Error::Ok;
    }
    const uint64_t offset = entry->offset();
    if (regions.constant_data == nullptr ||
        offset > regions.constant_data_size ||
        nbytes > regions.constant_data_size - offset) {
      XNN_FAIL(
          InvalidProgram,
          "value %u: constant_data[%u] [%" PRIu64
          ", +%zu) is outside the payload's %" PRIu64 "-byte constant region",
          value_id,
          index,
          offset,
          nbytes,
          regions.constant_data_size);
    }
    *out = regions.constant_data + offset;
    return Error::Ok;
  }
  // The older layout: constants inline in the flatbuffer.
  const auto* buffers = g->constant_buffer();
  if (buffers == nullptr || index >= buffers->size() ||
      buffers->Get(index) == nullptr ||
      buffers->Get(index)->storage() == nullptr) {
    XNN_FAIL(
        InvalidProgram,
        "value %u: constant_buffer_idx %u names no constant",
        value_id,
        index);
  }
  const auto* storage = buffers->Get(index)->storage();
  if (storage->size() != nbytes) {
    XNN_FAIL(
        InvalidProgram,
        "value %u: constant_buffer[%u] holds %u bytes, its shape needs %zu",
        value_id,
        index,
        storage->size(),
        nbytes);
  }
  *out = storage->data();
  return Error::Ok;
}

NodeContext::NodeContext(
    Graph& graph,
    std::vector<uint8_t>& written,
    uint32_t index,
    const fb::XNode* node)
    : graph_(graph), written_(written), index_(index), node_(node) {}

const char* NodeContext::type_name() const {
  const char* name = fb::EnumNameXNodeUnion(node_->xnode_union_type());
  return (name != nullptr && name[0] != '\0') ? name : "unknown node type";
}

Error NodeContext::report(Error error, const char* format, va_list args) {
  char message[256];
  vsnprintf(message, sizeof(message), format, args);
  ET_LOG(
      Error, "XnnpackBackend: node %u (%s): %s", index_, type_name(), message);
  return error;
}

Error NodeContext::invalid(const char* format, ...) {
  va_list args;
  va_start(args, format);
  Error e = report(Error::InvalidProgram, format, args);
  va_end(args);
  return e;
}

Error NodeContext::unsupported(const char* format, ...) {
  va_list args;
  va_start(args, format);
  Error e = report(Error::NotSupported, format, args);
  va_end(args);
  return e;
}

Error NodeContext::out_of_memory(const char* what, size_t bytes) {
  ET_LOG(
      Error,
      "XnnpackBackend: node %u (%s): no memory for %s (%zu bytes)",
      index_,
      type_name(),
      what,
      bytes);
  return Error::MemoryAllocationFailed;
}

Error NodeContext::input(uint32_t id, const char* field, uint32_t* out) {
  if (id >= graph_.values.size() || !graph_.values[id].defined) {
    return invalid("%s %u names no value", field, id);
  }
  const Value& v = graph_.values[id];
  if (!v.is_constant && (v.flags & kFlagExternalInput) == 0 && !written_[id]) {
    return invalid("%s %u is read before any node computes it", field, id);
  }
  inputs_.push_back(id);
  ++graph_.values[id].float_readers;
  *out = id;
  return Error::Ok;
}

Error NodeContext::optional_input(
    uint32_t id, const char* field, uint32_t* out) {
  if (id == kInvalidValueId) {
    *out = kInvalidValueId;
    return Error::Ok;
  }
  return input(id, field, out);
}

Error NodeContext::output(uint32_t id, const char* field, uint32_t* out) {
  if (id >= graph_.values.size() || !graph_.values[id].defined) {
    return invalid("%s %u names no value", field, id);
  }
  const Value& v = graph_.values[id];
  if (v.is_constant || (v.flags & kFlagExternalInput) != 0) {
    return invalid("%s %u is a constant or an external input", field, id);
  }
  if (written_[id]) {
    return invalid("%s %u is computed by an earlier node", field, id);
  }
  for (uint32_t o : outputs_) {
    if (o == id) {
      return invalid("%s %u is written twice by this node", field, id);
    }
  }
  outputs_.push_back(id);
  *out = id;
  return Error::Ok;
}

float NodeContext::output_min() const {
  const auto* mm = node_->output_min_max();
  return mm != nullptr ? mm->output_min()
                       : -std::numeric_limits<float>::infinity();
}

float NodeContext::output_max() const {
  const auto* mm = node_->output_min_max();
  return mm != nullptr ? mm->output_max()
                       : std::numeric_limits<float>::infinity();
}

Error NodeContext::accept(std::unique_ptr<Step> step) {
  if (output_min() > output_max()) {
    return invalid(
        "output_min %g is above output_max %g", output_min(), output_max());
  }
  // Buffers come later, from plan_intermediate_buffers(), once all lifetimes are known.
  for (uint32_t id : outputs_) {
    written_[id] = 1;
  }
  if (!first_step_accepted_) {
    step->node_type_name = type_name();
    step->node_index = index_;
    step->inputs = inputs_;
    step->outputs = outputs_;
    first_step_accepted_ = true;
  }
  const bool rounded = step->rounds_quantized_outputs;
  step->owner_type_name = type_name();
  step->owner_index = index_;
  graph_.steps.push_back(std::move(step));
  // A quantized output is rounded onto its grid right after it is computed.
  for (uint32_t id : outputs_) {
    if (rounded && graph_.values[id].quant.kind == Quant::Kind::kPerTensor) {
      continue;
    }
    std::unique_ptr<Step> quantize = make_quantize_step(graph_.values[id], id);
    if (quantize != nullptr) {
      graph_.steps.push_back(std::move(quantize));
    }
    // So is an fp16/bf16 output onto the half-precision grid.
    std::unique_ptr<Step> round = make_round_step(graph_.values[id], id);
    if (round != nullptr) {
      graph_.steps.push_back(std::move(round));
    }
  }
  return Error::Ok;
}

Error NodeContext::expect_output_dims(
    uint32_t id, const size_t* dims, size_t rank) {
  const Value& v = graph_.value(id);
  if (v.dims.size() == rank && std::equal(dims, dims + rank, v.dims.begin())) {
    return Error::Ok;
  }
  char declared[96], computed[96];
  format_dims(v.dims, declared, sizeof(declared));
  format_dims(
      std::vector<size_t>(dims, dims + rank), computed, sizeof(computed));
  return invalid(
      "output %u is %s, the node computes %s from its inputs",
      id,
      declared,
      computed);
}

bool ShapeError::set(const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  return false;
}

Error check_flags(NodeContext& ctx, uint32_t flags, uint32_t allowed) {
  if ((flags & ~allowed) != 0) {
    return ctx.unsupported(
        "flags 0x%x are not supported (allowed 0x%x)", flags, allowed);
  }
  return Error::Ok;
}

Result<std::unique_ptr<Graph>> build_graph(
    const void* payload, size_t size, const NamedDataMap* named_data) {
  Result<PayloadRegions> regions = parse_payload(payload, size);
  if (!regions.ok()) {
    return regions.error();
  }
  // flatbuffers::Verifier asserts (aborting the process) on a buffer of 2 GiB or more.
  if (regions->flatbuffer_size >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    XNN_FAIL(
        InvalidProgram,
        "the XNNGraph flatbuffer is %zu bytes (at most %zu accepted)",
        regions->flatbuffer_size,
        static_cast<size_t>(FLATBUFFERS_MAX_BUFFER_SIZE) - 1);
  }
  // The verifier checks alignment; a flatbuffer at an odd address in the payload gets an
  // aligned copy (kept only while building: the plan holds no pointer into it).
  std::unique_ptr<uint64_t[]> aligned;
  const uint8_t* fb_data = regions->flatbuffer;
  if (reinterpret_cast<uintptr_t>(fb_data) % 16 != 0) {
    aligned.reset(new (std::nothrow)
                      uint64_t[regions->flatbuffer_size / 8 + 2]);
    if (!aligned) {
      return Error::MemoryAllocationFailed;
    }
    uint8_t* base = reinterpret_cast<uint8_t*>(aligned.get());
    base += (16 - reinterpret_cast<uintptr_t>(base) % 16) % 16;
    if (reinterpret_cast<uintptr_t>(base) % 16 != 0) {
      base = reinterpret_cast<uint8_t*>(aligned.get());
    }
    std::memcpy(base, fb_data, regions->flatbuffer_size);
    fb_data = base;
  }
  const char* ident = flatbuffers::GetBufferIdentifier(fb_data);
  if (std::memcmp(ident, "XN00", 4) != 0 &&
      std::memcmp(ident, "XN01", 4) != 0) {
    XNN_FAIL(
        DelegateInvalidCompatibility,
        "payload identifier '%.4s' is not an XNNGraph this backend reads "
        "(XN00, XN01)",
        ident);
  }
  flatbuffers::Verifier verifier(fb_data, regions->flatbuffer_size);
  if (!verifier.VerifyBuffer<fb::XNNGraph>(nullptr)) {
    XNN_FAIL(
        InvalidProgram,
        "payload flatbuffer fails verification (truncated or corrupt)");
  }
  const fb::XNNGraph* g = fb::GetXNNGraph(fb_data);
  if (g->xvalues() == nullptr || g->xnodes() == nullptr) {
    XNN_FAIL(InvalidProgram, "payload graph has no xvalues or no xnodes");
  }
  if (g->num_externs() > kMaxExternals) {
    XNN_FAIL(
        InvalidProgram,
        "num_externs %u exceeds %u",
        g->num_externs(),
        kMaxExternals);
  }

  std::unique_ptr<Graph> graph(new (std::nothrow) Graph());
  if (!graph) {
    return Error::MemoryAllocationFailed;
  }
  const uint32_t num_values = g->xvalues()->size();
  graph->values.resize(num_values);
  for (uint32_t i = 0; i < num_values; ++i) {
    Error err =
        read_value(*graph, g, *regions, named_data, i, g->xvalues()->Get(i));
    if (err != Error::Ok) {
      return err;
    }
  }
  Error err = bind_externals(*graph, g->num_externs());
  if (err != Error::Ok) {
    return err;
  }

  std::vector<uint8_t> written(num_values, 0);
  for (uint32_t i = 0; i < g->xnodes()->size(); ++i) {
    const fb::XNode* node = g->xnodes()->Get(i);
    if (node == nullptr) {
      XNN_FAIL(InvalidProgram, "xnodes[%u] is null", i);
    }
    NodeContext ctx(*graph, written, i, node);
    NodeBuilder builder = find_node_builder(node->xnode_union_type());
    if (builder == nullptr) {
      return ctx.unsupported(
          "node type %s is not supported by this backend", ctx.type_name());
    }
    if (node->xnode_union() == nullptr) {
      return ctx.invalid("node has no parameters");
    }
    err = builder(ctx);
    if (err != Error::Ok) {
      return err;
    }
  }
  err = allocate_staging(*graph);
  if (err != Error::Ok) {
    return err;
  }
  for (uint32_t id : graph->output_values) {
    if (!written[id]) {
      XNN_FAIL(
          InvalidProgram,
          "external output value %u is computed by no node",
          id);
    }
  }
  err = allocate_dynamic_quant_buffers(*graph);
  if (err != Error::Ok) {
    return err;
  }
  // A 4-bit weight that only integer fully connecteds use needs no decoded floats.
  for (Value& v : graph->values) {
    if (v.int4_blockwise != nullptr && v.float_readers == 0 &&
        v.data != nullptr) {
      graph->release_floats(v.data);
      v.data = nullptr;
    }
  }
  // The payload's shapes are the bounds every buffer is sized for.
  for (Value& v : graph->values) {
    v.bound_dims = v.dims;
    v.capacity = v.numel;
  }
  fuse_sigmoid_multiply(*graph);
  fuse_activations(*graph);
  fuse_clamps(*graph);
  fuse_converts(*graph);
  err = plan_intermediate_buffers(*graph);
  if (err != Error::Ok) {
    return err;
  }
  return graph;
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
