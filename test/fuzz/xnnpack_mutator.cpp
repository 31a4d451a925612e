// The structure-aware mutator of the `xnnpack` target (libFuzzer's LLVMFuzzerCustomMutator).
//
// A byte-level mutation of an XNNPACK delegate payload mostly breaks the "XH00" header's offsets
// or the XNNGraph flatbuffer, and the input dies in the header check or the verifier, short of
// the node builders and the compute code. This mutator splits the payload (header, flatbuffer,
// constant region), decodes the graph with the generated object API
// (runtime/backends/xnnpack/serialization/schema.fbs, built with --gen-object-api), changes one
// to three things and re-encodes it with the tests' payload writer
// (test/unit/backend_xnnpack/xnn_test_util.h), which writes a fresh, consistent header and puts
// the original constant region back behind the new flatbuffer: the constants' offsets still
// hold, so the builders see the mutated field and not a broken constant.
//
// What changes: value ids (node inputs and outputs, id_out, external ids, the graph's
// input/output id lists), tensor dims, flags, datatypes, quantization parameters, the windows
// of convolutions and poolings, the shapes of reshape/slice/pad/concat/transpose/resize nodes,
// output ranges, constant references; or the structure: a node becomes another node type with
// the same ids, a list grows or shrinks, a value is quantized or loses its quantization, nodes
// are duplicated, dropped or swapped. A quarter of the calls, and every input that does not
// decode, go to libFuzzer's own byte mutator instead (it also reaches the header).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include <flatbuffers/flatbuffers.h>

#include "../unit/backend_xnnpack/xnn_test_util.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

namespace fb = xnn_test::fb;
using xnn_test::kNone;
using Rng = std::minstd_rand;
using T = fb::XNodeUnion;

// ---- Decoding ----------------------------------------------------------------------------------

uint64_t get_le(const uint8_t* p, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i)
    v |= uint64_t{p[i]} << (8 * i);
  return v;
}

// The graph and the constant region of a payload; false when it does not decode. Accepts the
// "XH00" layout and a bare flatbuffer (the older layout), as the backend does.
bool decode(const uint8_t* data, size_t size, fb::XNNGraphT* graph,
            std::vector<uint8_t>* constants) {
  const uint8_t* fb_data = data;
  size_t fb_size = size;
  constants->clear();
  if (size >= 30 && std::memcmp(data + 4, "XH00", 4) == 0) {
    const uint64_t fb_offset = get_le(data + 10, 4), fb_len = get_le(data + 14, 4);
    const uint64_t cd_offset = get_le(data + 18, 4), cd_len = get_le(data + 22, 8);
    if (fb_offset > size || fb_len > size - fb_offset)
      return false;
    fb_data = data + fb_offset;
    fb_size = fb_len;
    // A constant region that does not fit is dropped (the re-encoded payload is consistent).
    if (cd_offset <= size && cd_len <= size - cd_offset)
      constants->assign(data + cd_offset, data + cd_offset + cd_len);
  }
  if (fb_size < 8)
    return false;
  // The verifier wants the buffer aligned as the builder laid it out.
  std::vector<std::max_align_t> aligned(fb_size / sizeof(std::max_align_t) + 1);
  std::memcpy(aligned.data(), fb_data, fb_size);
  const auto* base = reinterpret_cast<const uint8_t*>(aligned.data());
  flatbuffers::Verifier verifier(base, fb_size);
  if (!verifier.VerifyBuffer<fb::XNNGraph>(nullptr))
    return false;
  // Into a fresh table: UnPackTo leaves a field the buffer lacks as it was.
  fb::XNNGraphT fresh;
  fb::GetXNNGraph(base)->UnPackTo(&fresh);
  *graph = std::move(fresh);
  return true;
}

// A verified flatbuffer may name a union member without storing it (type set, value absent);
// the object API then holds a null value that Pack() would dereference. Those unions become
// NONE, which re-encodes; so does a type past the schema's, which unpacks to no value either
// (the byte mutator still produces both).
void make_packable(fb::XNNGraphT& g) {
  for (auto& n : g.xnodes) {
    if (n->xnode_union.value == nullptr)
      n->xnode_union.type = T::NONE;
  }
  for (auto& v : g.xvalues) {
    auto& u = v->xvalue_union;
    if (u.value == nullptr)
      u.type = fb::XValueUnion::NONE;
    if (auto* q = u.AsXNNQuantizedTensorValue()) {
      if (q->quant_params.value == nullptr)
        q->quant_params.type = fb::XNNQuantParams::NONE;
    }
  }
}

// ---- Node tables -------------------------------------------------------------------------------

// The parameter tables node types share (several union members alias one table).
enum class Family {
  None,
  Unary,
  Binary,
  Conv,
  Pool,
  Cat,
  FullyConnected,
  Transpose,
  Resize,
  Pad,
  Reshape,
  Slice,
  Sdpa,
  ArgMax,
  LeakyReLU,
  Elu,
};

Family family_of(T t) {
  switch (t) {
    case T::XNNAdd:
    case T::XNNDiv:
    case T::XNNMinimum:
    case T::XNNMultiply:
    case T::XNNSubtract:
    case T::XNNMaximum:
    case T::XNNPReLU:
    case T::XNNBatchMatrixMultiply:
      return Family::Binary;
    case T::XNNSoftmax:
    case T::XNNSigmoid:
    case T::XNNClamp:
    case T::XNNFloor:
    case T::XNNConvert:
    case T::XNNGlobalAvgPooling2d:
    case T::XNNSquareRoot:
    case T::XNNCeiling:
    case T::XNNHardswish:
    case T::XNNNegate:
    case T::XNNSquare:
    case T::XNNAbs:
    case T::XNNReciprocalSquareRoot:
    case T::XNNLog:
    case T::XNNGelu:
    case T::XNNTanh:
    case T::XNNExp:
    case T::XNNSin:
    case T::XNNCopy:
    case T::XNNCos:
      return Family::Unary;
    case T::XNNConv2d:
    case T::XNNDepthwiseConv2d:
    case T::XNNConvTranspose2d:
      return Family::Conv;
    case T::XNNAvgPooling2d:
    case T::XNNMaxPooling2d:
      return Family::Pool;
    case T::XNNConcatenate2:
    case T::XNNConcatenate3:
    case T::XNNConcatenate4:
    case T::XNNConcatenate5:
      return Family::Cat;
    case T::XNNFullyConnected:
      return Family::FullyConnected;
    case T::XNNStaticTranspose:
      return Family::Transpose;
    case T::XNNStaticResizeBilinear2D:
      return Family::Resize;
    case T::XNNStaticConstantPad:
      return Family::Pad;
    case T::XNNStaticReshape:
      return Family::Reshape;
    case T::XNNStaticSlice:
      return Family::Slice;
    case T::XNNScaledDotProductAttention:
      return Family::Sdpa;
    case T::XNNArgMaxPooling2d:
      return Family::ArgMax;
    case T::XNNLeakyReLU:
      return Family::LeakyReLU;
    case T::XNNELU:
      return Family::Elu;
    default:
      return Family::None;
  }
}

// The id fields of a node's table, inputs then outputs, and its flags.
struct NodeFields {
  std::vector<uint32_t*> in, out;
  uint32_t* flags = nullptr;
};

NodeFields fields_of(fb::XNodeUnionUnion& u) {
  NodeFields f;
  if (u.value == nullptr)
    return f;
  switch (family_of(u.type)) {
    case Family::Unary: {
      auto* p = static_cast<fb::_XNNNode1x1T*>(u.value);
      f = {{&p->input_id}, {&p->output_id}, &p->flags};
      break;
    }
    case Family::Binary: {
      auto* p = static_cast<fb::_XNNNode2x1T*>(u.value);
      f = {{&p->input1_id, &p->input2_id}, {&p->output_id}, &p->flags};
      break;
    }
    case Family::Conv: {
      auto* p = static_cast<fb::_XNNNodeConvT*>(u.value);
      f = {{&p->input1_id, &p->filter_id, &p->bias_id}, {&p->output_id}, &p->flags};
      break;
    }
    case Family::Pool: {
      auto* p = static_cast<fb::_XNNPooling2DT*>(u.value);
      f = {{&p->input_id}, {&p->output_id}, &p->flags};
      break;
    }
    case Family::Cat: {
      auto* p = static_cast<fb::_XNNCatT*>(u.value);
      f = {{&p->input1_id, &p->input2_id, &p->input3_id, &p->input4_id, &p->input5_id},
           {&p->output_id},
           &p->flags};
      break;
    }
    case Family::FullyConnected: {
      auto* p = static_cast<fb::XNNFullyConnectedT*>(u.value);
      f = {{&p->input1_id, &p->filter_id, &p->bias_id}, {&p->output_id}, &p->flags};
      break;
    }
    case Family::Transpose: {
      auto* p = static_cast<fb::XNNStaticTransposeT*>(u.value);
      f = {{&p->input_id}, {&p->output_id}, &p->flags};
      break;
    }
    case Family::Resize: {
      auto* p = static_cast<fb::XNNStaticResizeBilinear2DT*>(u.value);
      f = {{&p->input_id}, {&p->output_id}, &p->flags};
      break;
    }
    case Family::Pad: {
      auto* p = static_cast<fb::XNNStaticConstantPadT*>(u.value);
      f = {{&p->input_id}, {&p->output_id}, &p->flags};
      break;
    }
    case Family::Reshape: {
      auto* p = static_cast<fb::XNNStaticReshapeT*>(u.value);
      f = {{&p->input_id}, {&p->output_id}, &p->flags};
      break;
    }
    case Family::Slice: {
      auto* p = static_cast<fb::XNNStaticSliceT*>(u.value);
      f = {{&p->input_id}, {&p->output_id}, &p->flags};
      break;
    }
    case Family::Sdpa: {
      auto* p = static_cast<fb::XNNScaledDotProductAttentionT*>(u.value);
      f = {{&p->query_id, &p->key_id, &p->value_id, &p->scale_id, &p->mask_id},
           {&p->output_id},
           &p->flags};
      break;
    }
    case Family::ArgMax: {
      auto* p = static_cast<fb::XNNArgMaxPooling2dT*>(u.value);
      f = {{&p->input_id}, {&p->output_value_id, &p->output_index_id}, &p->flags};
      break;
    }
    case Family::LeakyReLU: {
      auto* p = static_cast<fb::XNNLeakyReLUT*>(u.value);
      f = {{&p->input_id}, {&p->output_id}, &p->flags};
      break;
    }
    case Family::Elu: {
      auto* p = static_cast<fb::XNNELUT*>(u.value);
      f = {{&p->input_id}, {&p->output_id}, &p->flags};
      break;
    }
    case Family::None:
      break;
  }
  return f;
}

// The tensor part of value `v` (plain or quantized), or null.
fb::XNNTensorValueT* tensor_of(fb::XValueT& v) {
  auto& u = v.xvalue_union;
  if (auto* t = u.AsXNNTensorValue())
    return t;
  if (auto* q = u.AsXNNQuantizedTensorValue())
    return q->tensor_value.get();
  return nullptr;
}

// The dims of the value with id_out `id` (empty when there is none): a new node's shape fields
// start from its values' dims, so the retagged node has a chance to pass the shape checks.
std::vector<uint32_t> dims_of(fb::XNNGraphT& g, uint32_t id) {
  for (auto& v : g.xvalues) {
    const fb::XNNTensorValueT* t = tensor_of(*v);
    if (t != nullptr && t->id_out == id)
      return t->dims;
  }
  return {};
}

// A fresh parameter table of `type` with plausible fields (windows of 1 with stride 1,
// identity shapes taken from the output's dims) and `in` / `out` as its ids.
fb::XNodeUnionUnion make_node(fb::XNNGraphT& g, T type, const std::vector<uint32_t>& in,
                              const std::vector<uint32_t>& out) {
  fb::XNodeUnionUnion u;
  u.type = type;
  const uint32_t in0 = in.empty() ? kNone : in[0];
  const uint32_t out0 = out.empty() ? kNone : out[0];
  const std::vector<uint32_t> in_dims = dims_of(g, in0), out_dims = dims_of(g, out0);
  const uint32_t rank = static_cast<uint32_t>(in_dims.size());
  switch (family_of(type)) {
    case Family::Unary:
      u.value = new fb::_XNNNode1x1T();
      break;
    case Family::Binary:
      u.value = new fb::_XNNNode2x1T();
      break;
    case Family::Conv: {
      auto* p = new fb::_XNNNodeConvT();
      p->kernel_height = p->kernel_width = 1;
      p->subsampling_height = p->subsampling_width = 1;
      p->dilation_height = p->dilation_width = 1;
      p->groups = 1;
      p->group_input_channels = in_dims.empty() ? 1 : in_dims.back();
      p->group_output_channels = out_dims.empty() ? 1 : out_dims.back();
      u.value = p;
      break;
    }
    case Family::Pool: {
      auto* p = new fb::_XNNPooling2DT();
      p->pooling_height = p->pooling_width = 2;
      p->stride_height = p->stride_width = 1;
      p->dilation_height = p->dilation_width = 1;
      u.value = p;
      break;
    }
    case Family::Cat:
      u.value = new fb::_XNNCatT();
      break;
    case Family::FullyConnected:
      u.value = new fb::XNNFullyConnectedT();
      break;
    case Family::Transpose: {
      auto* p = new fb::XNNStaticTransposeT();
      p->num_dims = rank;
      for (uint32_t d = 0; d < rank; ++d)
        p->perm.push_back(rank - 1 - d);
      u.value = p;
      break;
    }
    case Family::Resize: {
      auto* p = new fb::XNNStaticResizeBilinear2DT();
      p->new_height = out_dims.size() == 4 ? out_dims[1] : 2;
      p->new_width = out_dims.size() == 4 ? out_dims[2] : 2;
      u.value = p;
      break;
    }
    case Family::Pad: {
      auto* p = new fb::XNNStaticConstantPadT();
      p->pre_paddings.assign(rank, 0);
      p->post_paddings.assign(rank, 0);
      if (rank > 0)
        p->post_paddings.back() = 1;
      u.value = p;
      break;
    }
    case Family::Reshape: {
      auto* p = new fb::XNNStaticReshapeT();
      p->num_dims = static_cast<uint32_t>(out_dims.size());
      p->new_shape = out_dims;
      u.value = p;
      break;
    }
    case Family::Slice: {
      auto* p = new fb::XNNStaticSliceT();
      p->num_dims = rank;
      p->offsets.assign(rank, 0);
      p->sizes = out_dims.size() == rank ? out_dims : in_dims;
      u.value = p;
      break;
    }
    case Family::Sdpa:
      u.value = new fb::XNNScaledDotProductAttentionT();
      break;
    case Family::ArgMax: {
      auto* p = new fb::XNNArgMaxPooling2dT();
      p->pooling_height = p->pooling_width = 2;
      u.value = p;
      break;
    }
    case Family::LeakyReLU: {
      auto* p = new fb::XNNLeakyReLUT();
      p->negative_slope = 0.01f;
      u.value = p;
      break;
    }
    case Family::Elu: {
      auto* p = new fb::XNNELUT();
      p->alpha = 1.0f;
      u.value = p;
      break;
    }
    case Family::None:
      u.type = T::NONE;
      return u;
  }
  // Ids in order; fields beyond what the old node had are "no value" (an optional bias, the
  // unused inputs of a concatenation), extra old ids are dropped.
  NodeFields f = fields_of(u);
  for (size_t i = 0; i < f.in.size(); ++i)
    *f.in[i] = i < in.size() ? in[i] : kNone;
  for (size_t i = 0; i < f.out.size(); ++i)
    *f.out[i] = i < out.size() ? out[i] : (out.empty() ? kNone : out[0]);
  return u;
}

// ---- Slots -------------------------------------------------------------------------------------

// One mutable scalar field, with what it means (which values are worth trying).
struct Slot {
  enum Kind { U32, I32, I16, U64, F32 } kind;
  enum Meaning { Id, Dim, Flags, Datatype, Count, Real } meaning;
  void* field;
};

// The fields, in groups picked with equal chance, so the few fields of a convolution window or
// an output range are not drowned out by the many dims and ids of a model.
struct Slots {
  enum Group { Ids, Dims, FlagsAndTypes, Quant, Windows, Shapes, Ranges, Constants, NumGroups };
  std::vector<Slot> groups[NumGroups];
  void add(Group g, Slot::Kind k, Slot::Meaning m, void* field) {
    groups[g].push_back({k, m, field});
  }
  void u32(Group g, Slot::Meaning m, uint32_t& f) {
    add(g, Slot::U32, m, &f);
  }
  void u32s(Group g, Slot::Meaning m, std::vector<uint32_t>& v) {
    for (auto& x : v)
      add(g, Slot::U32, m, &x);
  }
  void real(Group g, float& f) {
    add(g, Slot::F32, Slot::Real, &f);
  }
  const Slot* pick(Rng& rng) const {
    std::vector<const std::vector<Slot>*> non_empty;
    for (const auto& g : groups) {
      if (!g.empty())
        non_empty.push_back(&g);
    }
    if (non_empty.empty())
      return nullptr;
    const std::vector<Slot>& g = *non_empty[rng() % non_empty.size()];
    return &g[rng() % g.size()];
  }
};

void gather_node(fb::XNodeT& n, Slots& s) {
  auto& u = n.xnode_union;
  NodeFields f = fields_of(u);
  for (uint32_t* id : f.in)
    s.u32(Slots::Ids, Slot::Id, *id);
  for (uint32_t* id : f.out)
    s.u32(Slots::Ids, Slot::Id, *id);
  if (f.flags != nullptr)
    s.u32(Slots::FlagsAndTypes, Slot::Flags, *f.flags);
  if (n.output_min_max) {
    s.real(Slots::Ranges, n.output_min_max->output_min);
    s.real(Slots::Ranges, n.output_min_max->output_max);
  }
  if (u.value == nullptr)
    return;
  using S = Slots;
  const Slot::Meaning D = Slot::Dim;
  switch (family_of(u.type)) {
    case Family::Conv: {
      auto* p = static_cast<fb::_XNNNodeConvT*>(u.value);
      for (uint32_t* w :
           {&p->padding_top, &p->padding_right, &p->padding_bottom, &p->padding_left,
            &p->kernel_height, &p->kernel_width, &p->subsampling_height, &p->subsampling_width,
            &p->dilation_height, &p->dilation_width, &p->group_input_channels,
            &p->group_output_channels, &p->groups, &p->adjustment_height, &p->adjustment_width})
        s.u32(S::Windows, D, *w);
      break;
    }
    case Family::Pool: {
      auto* p = static_cast<fb::_XNNPooling2DT*>(u.value);
      for (uint32_t* w : {&p->padding_top, &p->padding_right, &p->padding_bottom, &p->padding_left,
                          &p->pooling_height, &p->pooling_width, &p->stride_height,
                          &p->stride_width, &p->dilation_height, &p->dilation_width})
        s.u32(S::Windows, D, *w);
      break;
    }
    case Family::ArgMax: {
      auto* p = static_cast<fb::XNNArgMaxPooling2dT*>(u.value);
      for (uint32_t* w : {&p->padding_top, &p->padding_right, &p->padding_bottom, &p->padding_left,
                          &p->pooling_height, &p->pooling_width})
        s.u32(S::Windows, D, *w);
      break;
    }
    case Family::Cat:
      s.u32(S::Shapes, D, static_cast<fb::_XNNCatT*>(u.value)->axis);
      break;
    case Family::Transpose: {
      auto* p = static_cast<fb::XNNStaticTransposeT*>(u.value);
      s.u32(S::Shapes, D, p->num_dims);
      s.u32s(S::Shapes, D, p->perm);
      break;
    }
    case Family::Resize: {
      auto* p = static_cast<fb::XNNStaticResizeBilinear2DT*>(u.value);
      s.u32(S::Shapes, D, p->new_height);
      s.u32(S::Shapes, D, p->new_width);
      break;
    }
    case Family::Pad: {
      auto* p = static_cast<fb::XNNStaticConstantPadT*>(u.value);
      s.u32s(S::Shapes, D, p->pre_paddings);
      s.u32s(S::Shapes, D, p->post_paddings);
      s.real(S::Ranges, p->padding_value);
      break;
    }
    case Family::Reshape: {
      auto* p = static_cast<fb::XNNStaticReshapeT*>(u.value);
      s.u32(S::Shapes, D, p->num_dims);
      s.u32s(S::Shapes, D, p->new_shape);
      break;
    }
    case Family::Slice: {
      auto* p = static_cast<fb::XNNStaticSliceT*>(u.value);
      s.u32(S::Shapes, D, p->num_dims);
      s.u32s(S::Shapes, D, p->offsets);
      s.u32s(S::Shapes, D, p->sizes);
      break;
    }
    case Family::LeakyReLU:
      s.real(S::Ranges, static_cast<fb::XNNLeakyReLUT*>(u.value)->negative_slope);
      break;
    case Family::Elu:
      s.real(S::Ranges, static_cast<fb::XNNELUT*>(u.value)->alpha);
      break;
    default:
      break;
  }
}

void gather_quant(fb::XNNQuantParamsUnion& q, Slots& s) {
  using S = Slots;
  if (auto* p = q.AsPerTensorQuant()) {
    s.real(S::Quant, p->scale);
    s.add(S::Quant, Slot::I32, Slot::Count, &p->zero_point);
  } else if (auto* p = q.AsPerChannelQuant()) {
    for (float& f : p->scale)
      s.real(S::Quant, f);
    s.add(S::Quant, Slot::I32, Slot::Count, &p->channel_dim);
    s.u32(S::Quant, Slot::Count, p->scale_buffer_idx);
    s.u32(S::Quant, Slot::Dim, p->num_scales);
  } else if (auto* p = q.AsPerChannelGroupQuant()) {
    for (float& f : p->scale)
      s.real(S::Quant, f);
    s.add(S::Quant, Slot::I32, Slot::Count, &p->channel_dim);
    s.add(S::Quant, Slot::I32, Slot::Dim, &p->group_size);
    s.u32(S::Quant, Slot::Count, p->scale_buffer_idx);
    s.u32(S::Quant, Slot::Dim, p->num_scales);
  } else if (auto* p = q.AsPerTokenDynamicQuant()) {
    s.add(S::Quant, Slot::I32, Slot::Count, &p->num_nonbatch_dims);
  }
}

Slots gather(fb::XNNGraphT& g) {
  Slots s;
  using S = Slots;
  for (auto& n : g.xnodes)
    gather_node(*n, s);
  for (auto& v : g.xvalues) {
    if (auto* q = v->xvalue_union.AsXNNQuantizedTensorValue())
      gather_quant(q->quant_params, s);
    fb::XNNTensorValueT* t = tensor_of(*v);
    if (t == nullptr)
      continue;
    s.u32(S::Ids, Slot::Id, t->id_out);
    s.u32(S::Ids, Slot::Count, t->external_id);
    s.u32(S::Dims, Slot::Dim, t->num_dims);
    s.u32s(S::Dims, Slot::Dim, t->dims);
    s.u32(S::FlagsAndTypes, Slot::Flags, t->flags);
    s.add(S::FlagsAndTypes, Slot::I16, Slot::Datatype, &t->datatype);
    s.add(S::FlagsAndTypes, Slot::I16, Slot::Datatype, &t->dq_datatype);
    s.u32(S::Constants, Slot::Count, t->constant_buffer_idx);
  }
  s.u32s(S::Ids, Slot::Id, g.input_ids);
  s.u32s(S::Ids, Slot::Id, g.output_ids);
  s.u32(S::Constants, Slot::Count, g.num_externs);
  s.u32s(S::Constants, Slot::Dim, g.mem_buffer_sizes);
  for (auto& c : g.constant_data) {
    s.add(S::Constants, Slot::U64, Slot::Count, &c->offset);
    s.add(S::Constants, Slot::U64, Slot::Count, &c->size);
  }
  return s;
}

// ---- Values ------------------------------------------------------------------------------------

// Counts and offsets: the edges of every integer width the builders compute in.
constexpr int64_t kInteresting[] = {
    0,
    1,
    -1,
    2,
    3,
    4,
    7,
    8,
    16,
    127,
    128,
    -128,
    -129,
    255,
    256,
    65535,
    65536,
    (int64_t{1} << 31) - 1,
    int64_t{1} << 31,
    (int64_t{1} << 32) - 1,
    (int64_t{1} << 32) + 1,
    int64_t{1} << 62,
    std::numeric_limits<int64_t>::max(),
    std::numeric_limits<int64_t>::min(),
};

// Dims and window sizes: small, large, and the 32-bit edges. A dim is a uint32, so a product
// that wraps 2^32 comes from two dims: 641 * 6700417 = 2^32 + 1, 65537 * 65537 = 2^32 + 2^17 + 1.
constexpr uint32_t kDims[] = {
    0,       1,        2,        3,           4,           5,           7,           8,     16,
    31,      64,       255,      256,         641,         4096,        65535,       65536, 65537,
    6700417, 1u << 20, 1u << 24, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu,
};

template <typename A>
constexpr size_t count(const A& a) {
  return sizeof(a) / sizeof(a[0]);
}

int64_t pick_int(Rng& rng, int64_t current) {
  // Steps wrap (unsigned arithmetic), so a step from an edge is an edge too.
  const uint64_t bits = static_cast<uint64_t>(current);
  switch (rng() % 5) {
    case 0:
      return static_cast<int64_t>(bits + 1);
    case 1:
      return static_cast<int64_t>(bits - 1);
    case 2:
      return static_cast<int64_t>(bits << 1);
    default:
      return kInteresting[rng() % count(kInteresting)];
  }
}

uint32_t pick_dim(Rng& rng, uint32_t current) {
  switch (rng() % 6) {
    case 0:
      return current + 1;
    case 1:
      return current - 1;
    case 2:
      return current * 2;
    case 3:
      return current / 2;
    default:
      return kDims[rng() % count(kDims)];
  }
}

// Another value's id mostly (a wrong but existing value gets past the "names no value" check),
// else "no value", one past the end, or any integer edge.
uint32_t pick_id(Rng& rng, uint32_t current, uint32_t num_values) {
  switch (rng() % 6) {
    case 0:
      return kNone;
    case 1:
      return num_values + (rng() % 2);
    case 2:
      return static_cast<uint32_t>(pick_int(rng, current));
    default:
      return num_values > 0 ? static_cast<uint32_t>(rng() % num_values) : 0;
  }
}

uint32_t pick_flags(Rng& rng, uint32_t current) {
  switch (rng() % 4) {
    case 0:
      return 0;
    case 1:
      // Any bit, where the known ones are the low byte's.
      return current ^ (1u << (rng() % 32));
    default:
      return current ^ (1u << (rng() % 8));
  }
}

int16_t pick_datatype(Rng& rng) {
  // The schema's 0..14 mostly, and a few past its end.
  constexpr int16_t kOdd[] = {15, 16, 255, -1, 32767};
  return rng() % 8 == 0 ? kOdd[rng() % count(kOdd)] : static_cast<int16_t>(rng() % 15);
}

float pick_real(Rng& rng, float current) {
  constexpr float kReals[] = {
      0.0f,
      -0.0f,
      1.0f,
      -1.0f,
      0.5f,
      1e-45f,  // the smallest denormal: a scale whose reciprocal overflows
      1e-38f,
      1e-7f,
      127.5f,
      255.0f,
      2147483648.0f,
      3.4e38f,
      -3.4e38f,
      std::numeric_limits<float>::infinity(),
      -std::numeric_limits<float>::infinity(),
      std::numeric_limits<float>::quiet_NaN(),
  };
  switch (rng() % 5) {
    case 0:
      return current * 2.0f;
    case 1:
      return -current;
    default:
      return kReals[rng() % count(kReals)];
  }
}

template <typename F>
F load(const void* field) {
  F v;
  std::memcpy(&v, field, sizeof v);
  return v;
}

template <typename F>
void store(void* field, F v) {
  std::memcpy(field, &v, sizeof v);
}

void mutate_slot(const Slot& s, Rng& rng, uint32_t num_values) {
  switch (s.kind) {
    case Slot::F32:
      store<float>(s.field, pick_real(rng, load<float>(s.field)));
      return;
    case Slot::I16:
      store<int16_t>(s.field, s.meaning == Slot::Datatype
                                  ? pick_datatype(rng)
                                  : static_cast<int16_t>(pick_int(rng, load<int16_t>(s.field))));
      return;
    case Slot::U64:
      store<uint64_t>(s.field, static_cast<uint64_t>(
                                   pick_int(rng, static_cast<int64_t>(load<uint64_t>(s.field)))));
      return;
    case Slot::I32:
    case Slot::U32: {
      const uint32_t current = load<uint32_t>(s.field);
      uint32_t v;
      switch (s.meaning) {
        case Slot::Id:
          v = pick_id(rng, current, num_values);
          break;
        case Slot::Dim:
          v = pick_dim(rng, current);
          break;
        case Slot::Flags:
          v = pick_flags(rng, current);
          break;
        default:
          v = static_cast<uint32_t>(pick_int(
              rng, s.kind == Slot::I32 ? int64_t{static_cast<int32_t>(current)} : current));
          break;
      }
      store<uint32_t>(s.field, v);
      return;
    }
  }
}

// ---- Structural mutations ----------------------------------------------------------------------

template <typename P>
P* pick(std::vector<std::unique_ptr<P>>& v, Rng& rng) {
  return v.empty() ? nullptr : v[rng() % v.size()].get();
}

// Grows (a copy of an entry, or a given value) or shrinks a list.
template <typename E>
void resize_list(std::vector<E>& v, Rng& rng) {
  if (!v.empty() && rng() % 2 == 0) {
    v.erase(v.begin() + static_cast<std::ptrdiff_t>(rng() % v.size()));
  } else {
    v.insert(v.begin() + static_cast<std::ptrdiff_t>(v.empty() ? 0 : rng() % (v.size() + 1)),
             v.empty() ? E{1} : v[rng() % v.size()]);
  }
}

// Node `n` becomes another type with the same ids: one sharing its table (Add -> PReLU, Conv2d
// -> DepthwiseConv2d), or any type, its table rebuilt around the old ids.
void retag_node(fb::XNNGraphT& g, fb::XNodeT& n, Rng& rng) {
  const Family family = family_of(n.xnode_union.type);
  constexpr uint8_t kLast = static_cast<uint8_t>(T::MAX);
  if (family != Family::None && rng() % 2 == 0) {
    for (int tries = 0; tries < 16; ++tries) {
      const T t = static_cast<T>(1 + rng() % kLast);
      if (family_of(t) == family) {
        n.xnode_union.type = t;
        return;
      }
    }
    return;
  }
  NodeFields f = fields_of(n.xnode_union);
  std::vector<uint32_t> in, out;
  for (uint32_t* id : f.in) {
    if (*id != kNone)
      in.push_back(*id);
  }
  for (uint32_t* id : f.out)
    out.push_back(*id);
  const T t = static_cast<T>(1 + rng() % kLast);
  fb::XNodeUnionUnion fresh = make_node(g, t, in, out);
  NodeFields nf = fields_of(fresh);
  if (f.flags != nullptr && nf.flags != nullptr)
    *nf.flags = *f.flags;
  n.xnode_union = std::move(fresh);
}

// A float value gets quantization parameters, or a quantized one loses them, or its
// parameters become another kind.
void requantize(fb::XValueT& v, Rng& rng) {
  auto& u = v.xvalue_union;
  fb::XNNTensorValueT* t = tensor_of(v);
  if (t == nullptr)
    return;
  if (u.type == fb::XValueUnion::XNNQuantizedTensorValue && rng() % 3 == 0) {
    fb::XNNTensorValueT plain = *t;
    u.Reset();
    u.type = fb::XValueUnion::XNNTensorValue;
    u.value = new fb::XNNTensorValueT(std::move(plain));
    return;
  }
  // The scale count follows dim 0 (a per-channel weight's output channels) most of the time.
  const size_t channels = !t->dims.empty() && t->dims[0] <= 4096 ? t->dims[0] : 1;
  fb::XNNQuantParamsUnion q;
  fb::XNNDatatype dtype = fb::XNNDatatype::xnn_datatype_qint8;
  switch (rng() % 4) {
    case 0: {
      auto* p = new fb::PerTensorQuantT();
      p->scale = pick_real(rng, 0.05f);
      p->zero_point = static_cast<int32_t>(pick_int(rng, 0));
      q.type = fb::XNNQuantParams::PerTensorQuant;
      q.value = p;
      dtype =
          rng() % 2 ? fb::XNNDatatype::xnn_datatype_qint8 : fb::XNNDatatype::xnn_datatype_quint8;
      break;
    }
    case 1: {
      auto* p = new fb::PerChannelQuantT();
      p->scale.assign(channels + (rng() % 4 == 0 ? 1 : 0), 0.01f);
      p->channel_dim = rng() % 4 == 0 ? static_cast<int32_t>(rng() % 5) : 0;
      q.type = fb::XNNQuantParams::PerChannelQuant;
      q.value = p;
      dtype =
          rng() % 2 ? fb::XNNDatatype::xnn_datatype_qcint8 : fb::XNNDatatype::xnn_datatype_qcint4;
      break;
    }
    case 2: {
      auto* p = new fb::PerChannelGroupQuantT();
      p->group_size = static_cast<int32_t>(pick_dim(rng, 32));
      p->scale.assign(channels, 0.0625f);
      p->channel_dim = 0;
      p->num_scales = static_cast<uint32_t>(p->scale.size());
      q.type = fb::XNNQuantParams::PerChannelGroupQuant;
      q.value = p;
      dtype = fb::XNNDatatype::xnn_datatype_qbint4;
      break;
    }
    default: {
      auto* p = new fb::PerTokenDynamicQuantT();
      p->num_nonbatch_dims = static_cast<int32_t>(rng() % 3);
      q.type = fb::XNNQuantParams::PerTokenDynamicQuant;
      q.value = p;
      dtype = fb::XNNDatatype::xnn_datatype_qdint8;
      break;
    }
  }
  auto qv = std::make_unique<fb::XNNQuantizedTensorValueT>();
  qv->tensor_value = std::make_unique<fb::XNNTensorValueT>(*t);
  // Keep the value's own datatype a quarter of the time (a mismatch the builder must refuse).
  if (rng() % 4 != 0)
    qv->tensor_value->datatype = dtype;
  qv->quant_params = std::move(q);
  u.Reset();
  u.type = fb::XValueUnion::XNNQuantizedTensorValue;
  u.value = qv.release();
}

// The list-shaped fields of a node: shapes, paddings, permutations.
void resize_node_list(fb::XNodeT& n, Rng& rng) {
  auto& u = n.xnode_union;
  if (u.value == nullptr)
    return;
  // Past the backend's rank limit sometimes, where fixed arrays would overflow.
  auto resize = [&rng](std::vector<uint32_t>& v, uint32_t* num_dims) {
    if (rng() % 8 == 0)
      v.resize(v.size() + 4 + rng() % 4, 1);
    else
      resize_list(v, rng);
    if (num_dims != nullptr && rng() % 4 != 0)
      *num_dims = static_cast<uint32_t>(v.size());
  };
  switch (family_of(u.type)) {
    case Family::Transpose: {
      auto* p = static_cast<fb::XNNStaticTransposeT*>(u.value);
      resize(p->perm, &p->num_dims);
      break;
    }
    case Family::Pad: {
      auto* p = static_cast<fb::XNNStaticConstantPadT*>(u.value);
      resize(rng() % 2 ? p->pre_paddings : p->post_paddings, nullptr);
      break;
    }
    case Family::Reshape: {
      auto* p = static_cast<fb::XNNStaticReshapeT*>(u.value);
      resize(p->new_shape, &p->num_dims);
      break;
    }
    case Family::Slice: {
      auto* p = static_cast<fb::XNNStaticSliceT*>(u.value);
      resize(rng() % 2 ? p->offsets : p->sizes, &p->num_dims);
      break;
    }
    default:
      break;
  }
}

void mutate_structure(fb::XNNGraphT& g, Rng& rng) {
  fb::XNodeT* node = pick(g.xnodes, rng);
  fb::XValueT* value = pick(g.xvalues, rng);
  fb::XNNTensorValueT* tensor = value != nullptr ? tensor_of(*value) : nullptr;
  switch (rng() % 10) {
    case 0:
    case 1:
      if (node != nullptr)
        retag_node(g, *node, rng);
      break;
    case 2:
      if (node != nullptr)
        resize_node_list(*node, rng);
      break;
    case 3:
      if (tensor != nullptr) {
        // Rank changes, num_dims following most of the time; or past the rank limit.
        if (rng() % 6 == 0)
          tensor->dims.assign(7 + rng() % 4, 1);
        else
          resize_list(tensor->dims, rng);
        if (rng() % 4 != 0)
          tensor->num_dims = static_cast<uint32_t>(tensor->dims.size());
      }
      break;
    case 4:
      if (tensor != nullptr && tensor->dims.size() >= 2) {
        // Two dims whose product is 2^32 + 1: a 32-bit element count wraps to 1.
        const size_t a = rng() % tensor->dims.size();
        const size_t b = (a + 1 + rng() % (tensor->dims.size() - 1)) % tensor->dims.size();
        tensor->dims[a] = 641;
        tensor->dims[b] = 6700417;
      }
      break;
    case 5:
      if (value != nullptr)
        requantize(*value, rng);
      break;
    case 6:
      if (node != nullptr) {
        // Add, change or drop the output range.
        if (node->output_min_max && rng() % 3 == 0) {
          node->output_min_max.reset();
        } else {
          if (!node->output_min_max)
            node->output_min_max = std::make_unique<fb::OutputMinMaxT>();
          node->output_min_max->output_min = pick_real(rng, -1.0f);
          node->output_min_max->output_max = pick_real(rng, 1.0f);
        }
      }
      break;
    case 7:
      if (!g.xnodes.empty()) {
        // Drop, duplicate (an output written twice) or swap nodes (a read before the write).
        const size_t i = rng() % g.xnodes.size(), j = rng() % g.xnodes.size();
        switch (rng() % 3) {
          case 0:
            g.xnodes.erase(g.xnodes.begin() + static_cast<std::ptrdiff_t>(i));
            break;
          case 1:
            g.xnodes.insert(g.xnodes.begin() + static_cast<std::ptrdiff_t>(j),
                            std::make_unique<fb::XNodeT>(*g.xnodes[i]));
            break;
          default:
            std::swap(g.xnodes[i], g.xnodes[j]);
            break;
        }
      }
      break;
    case 8:
      if (!g.xvalues.empty()) {
        // Drop or duplicate a value (an id defined twice, or never).
        const size_t i = rng() % g.xvalues.size();
        if (rng() % 2)
          g.xvalues.erase(g.xvalues.begin() + static_cast<std::ptrdiff_t>(i));
        else
          g.xvalues.push_back(std::make_unique<fb::XValueT>(*g.xvalues[i]));
      }
      break;
    default:
      if (value != nullptr) {
        if (auto* q = value->xvalue_union.AsXNNQuantizedTensorValue()) {
          if (auto* p = q->quant_params.AsPerChannelQuant())
            resize_list(p->scale, rng);
          else if (auto* p = q->quant_params.AsPerChannelGroupQuant())
            resize_list(p->scale, rng);
          break;
        }
      }
      resize_list(rng() % 2 ? g.input_ids : g.output_ids, rng);
      break;
  }
}

void mutate_graph(fb::XNNGraphT& g, Rng& rng) {
  const unsigned rounds = 1 + rng() % 3;
  for (unsigned r = 0; r < rounds; ++r) {
    if (rng() % 4 == 0) {
      mutate_structure(g, rng);
      continue;
    }
    const Slots slots = gather(g);
    if (const Slot* slot = slots.pick(rng))
      mutate_slot(*slot, rng, static_cast<uint32_t>(g.xvalues.size()));
  }
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  Rng rng(seed);
  if (rng() % 4 == 0)
    return LLVMFuzzerMutate(data, size, max_size);
  xnn_test::GraphWriter writer;
  if (!decode(data, size, &writer.graph, &writer.constants))
    return LLVMFuzzerMutate(data, size, max_size);
  make_packable(writer.graph);
  mutate_graph(writer.graph, rng);
  const std::vector<uint8_t> out = writer.payload();
  if (out.size() > max_size)
    return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}
