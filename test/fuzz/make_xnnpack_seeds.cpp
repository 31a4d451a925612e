// Writes the single-node seeds of the `xnnpack` fuzz target: one small XNNPACK delegate payload
// per node type the backend builds (runtime/backends/xnnpack/runtime/node_table.cpp), plus a
// few quantized graphs, into the directory given as the only argument.
//
// Why: the zoo payloads (the other seeds) cover only the nodes the zoo's models lower to, so the
// fuzzer would otherwise have to invent every other node type's parameter table byte by byte. A
// seed per node type gives the structure-aware mutator (xnnpack_mutator.cpp) a valid instance of
// each to start from. Every seed goes through the registered backend's init before it is
// written: a seed the backend refuses only exercises the refusal, so the program fails instead
// of writing it. `make fuzz-xnnpack-seeds` (mk/fuzz.mk) builds and runs this in the fuzz tree.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../unit/backend_xnnpack/xnn_test_util.h"

namespace {

namespace fb = xnn_test::fb;
using xnn_test::GraphWriter;
using xnn_test::kNone;
using T = fb::XNodeUnion;
using DT = fb::XNNDatatype;
using Shape = std::vector<uint32_t>;

// Deterministic, varied constants: all-zero weights would leave most arithmetic paths with
// nothing to compute.
std::vector<float> ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(static_cast<int>((i * 7) % 13) - 6) * 0.25f;
  return v;
}

size_t numel(const Shape& s) {
  size_t n = 1;
  for (uint32_t d : s)
    n *= d;
  return n;
}

struct Seed {
  std::string name;
  GraphWriter graph;
};

// Held by pointer: add() hands out a reference that must outlive the next add().
std::vector<std::unique_ptr<Seed>> seeds;

GraphWriter& add(const std::string& name) {
  seeds.push_back(std::make_unique<Seed>());
  seeds.back()->name = name;
  return seeds.back()->graph;
}

uint32_t constant(GraphWriter& g, const Shape& s) {
  return g.constant(s, ramp(numel(s)));
}

// External input 0 shaped `in`, external output 1 shaped `out`, one node of `type`.
fb::XNodeT* unary(const std::string& name, T type, const Shape& in, const Shape& out) {
  GraphWriter& g = add(name);
  const uint32_t x = g.value(in, 0), y = g.value(out, 1, true);
  return g.unary(type, x, y);
}

void binary(const std::string& name, T type, const Shape& a, const Shape& b, const Shape& out) {
  GraphWriter& g = add(name);
  const uint32_t x = g.value(a, 0), y = g.value(b, 1), z = g.value(out, 2, true);
  g.binary(type, x, y, z);
}

fb::_XNNNodeConvT* conv_params(uint32_t k, uint32_t stride, uint32_t pad, uint32_t groups,
                               uint32_t gic, uint32_t goc) {
  auto* p = new fb::_XNNNodeConvT();
  p->padding_top = p->padding_bottom = p->padding_left = p->padding_right = pad;
  p->kernel_height = p->kernel_width = k;
  p->subsampling_height = p->subsampling_width = stride;
  p->dilation_height = p->dilation_width = 1;
  p->groups = groups;
  p->group_input_channels = gic;
  p->group_output_channels = goc;
  return p;
}

// A float convolution of `type` with parameters `p` (ownership taken), a constant filter and
// a bias of the output's channels.
void conv(const std::string& name, T type, fb::_XNNNodeConvT* p, const Shape& in,
          const Shape& filter, const Shape& out) {
  GraphWriter& g = add(name);
  p->input1_id = g.value(in, 0);
  p->filter_id = constant(g, filter);
  p->bias_id = constant(g, {out.back()});
  p->output_id = g.value(out, 1, true);
  g.node(type, p);
}

void pooling(const std::string& name, T type) {
  GraphWriter& g = add(name);
  // [1, 5, 5, 2] NHWC, 3x3 window, stride 2, padding 1: 3x3 out.
  const uint32_t x = g.value({1, 5, 5, 2}, 0), y = g.value({1, 3, 3, 2}, 1, true);
  auto* p = new fb::_XNNPooling2DT();
  p->padding_top = p->padding_bottom = p->padding_left = p->padding_right = 1;
  p->pooling_height = p->pooling_width = 3;
  p->stride_height = p->stride_width = 2;
  p->dilation_height = p->dilation_width = 1;
  p->input_id = x;
  p->output_id = y;
  g.node(type, p);
}

// Concatenation of `count` inputs [2, i + 1, 3] along axis 1.
void concatenate(const std::string& name, T type, uint32_t count) {
  GraphWriter& g = add(name);
  uint32_t ids[5] = {kNone, kNone, kNone, kNone, kNone};
  uint32_t total = 0;
  for (uint32_t i = 0; i < count; ++i) {
    ids[i] = g.value({2, i + 1, 3}, static_cast<int>(i));
    total += i + 1;
  }
  auto* p = new fb::_XNNCatT();
  p->axis = 1;
  p->input1_id = ids[0];
  p->input2_id = ids[1];
  p->input3_id = ids[2];
  p->input4_id = ids[3];
  p->input5_id = ids[4];
  p->output_id = g.value({2, total, 3}, static_cast<int>(count), true);
  g.node(type, p);
}

fb::XNNFullyConnectedT* fully_connected(GraphWriter& g, uint32_t in, uint32_t w, uint32_t b,
                                        uint32_t out) {
  auto* p = new fb::XNNFullyConnectedT();
  p->input1_id = in;
  p->filter_id = w;
  p->bias_id = b;
  p->output_id = out;
  g.node(T::XNNFullyConnected, p);
  return p;
}

void make_float_seeds() {
  const Shape s{2, 3, 5};
  const struct {
    const char* name;
    T type;
  } unaries[] = {
      {"abs", T::XNNAbs},
      {"negate", T::XNNNegate},
      {"square", T::XNNSquare},
      {"square_root", T::XNNSquareRoot},
      {"reciprocal_square_root", T::XNNReciprocalSquareRoot},
      {"ceiling", T::XNNCeiling},
      {"floor", T::XNNFloor},
      {"tanh", T::XNNTanh},
      {"exp", T::XNNExp},
      {"log", T::XNNLog},
      {"sin", T::XNNSin},
      {"cos", T::XNNCos},
      {"sigmoid", T::XNNSigmoid},
      {"gelu", T::XNNGelu},
      {"hardswish", T::XNNHardswish},
      {"copy", T::XNNCopy},
      {"convert", T::XNNConvert},
      {"softmax", T::XNNSoftmax},
  };
  for (const auto& u : unaries)
    unary(std::string("node-") + u.name, u.type, s, s);
  GraphWriter::clamp(unary("node-clamp", T::XNNClamp, s, s), -0.5f, 1.25f);
  {
    GraphWriter& g = add("node-leaky_relu");
    auto* p = new fb::XNNLeakyReLUT();
    p->negative_slope = 0.125f;
    p->input_id = g.value(s, 0);
    p->output_id = g.value(s, 1, true);
    g.node(T::XNNLeakyReLU, p);
  }
  {
    GraphWriter& g = add("node-elu");
    auto* p = new fb::XNNELUT();
    p->alpha = 1.5f;
    p->input_id = g.value(s, 0);
    p->output_id = g.value(s, 1, true);
    g.node(T::XNNELU, p);
  }
  // fp32 -> fp16 -> fp32: the half-precision value type and its rounding step.
  {
    GraphWriter& g = add("node-convert-fp16");
    const uint32_t x = g.value(s, 0), h = g.value(s, -1, false, DT::xnn_datatype_fp16),
                   y = g.value(s, 1, true);
    g.unary(T::XNNConvert, x, h);
    g.unary(T::XNNConvert, h, y);
  }

  // Half-precision arguments (the fuzzer binds them as Half and BFloat16 tensors).
  for (const DT dt : {DT::xnn_datatype_fp16, DT::xnn_datatype_bf16}) {
    GraphWriter& g = add(dt == DT::xnn_datatype_fp16 ? "node-add-fp16" : "node-add-bf16");
    const uint32_t a = g.value(s, 0, false, dt), b = g.value(s, 1, false, dt),
                   y = g.value(s, 2, true, dt);
    g.binary(T::XNNAdd, a, b, y);
  }

  const struct {
    const char* name;
    T type;
  } binaries[] = {
      {"add", T::XNNAdd}, {"subtract", T::XNNSubtract}, {"multiply", T::XNNMultiply},
      {"div", T::XNNDiv}, {"minimum", T::XNNMinimum},   {"maximum", T::XNNMaximum},
  };
  // Broadcast [2, 3, 5] with [3, 1].
  for (const auto& b : binaries)
    binary(std::string("node-") + b.name, b.type, s, {3, 1}, s);
  {
    // The slope is a per-channel constant.
    GraphWriter& g = add("node-prelu");
    const uint32_t x = g.value({1, 2, 2, 3}, 0), slope = constant(g, {3}),
                   y = g.value({1, 2, 2, 3}, 1, true);
    g.binary(T::XNNPReLU, x, slope, y);
  }
  binary("node-batch_matrix_multiply", T::XNNBatchMatrixMultiply, {2, 3, 4}, {2, 4, 5}, {2, 3, 5});
  {
    GraphWriter& g = add("node-fully_connected");
    const uint32_t x = g.value({2, 4}, 0), w = constant(g, {3, 4}), b = constant(g, {3}),
                   y = g.value({2, 3}, 1, true);
    fully_connected(g, x, w, b, y);
  }
  // NHWC [1, 5, 5, 2], filter [oc 3, 3, 3, ic 2], padding 1: same size.
  conv("node-conv2d", T::XNNConv2d, conv_params(3, 1, 1, 1, 2, 3), {1, 5, 5, 2}, {3, 3, 3, 2},
       {1, 5, 5, 3});
  // Filter [1, 3, 3, channels 2], stride 2, padding 1.
  conv("node-depthwise_conv2d", T::XNNDepthwiseConv2d, conv_params(3, 2, 1, 2, 1, 1), {1, 5, 5, 2},
       {1, 3, 3, 2}, {1, 3, 3, 2});
  // [1, 3, 3, 2] up by stride 2, kernel 3, padding 1, adjustment 1: (3-1)*2-2+3+1 = 6.
  auto* transposed = conv_params(3, 2, 1, 1, 2, 3);
  transposed->adjustment_height = transposed->adjustment_width = 1;
  conv("node-conv_transpose2d", T::XNNConvTranspose2d, transposed, {1, 3, 3, 2}, {3, 3, 3, 2},
       {1, 6, 6, 3});
  pooling("node-max_pooling2d", T::XNNMaxPooling2d);
  pooling("node-avg_pooling2d", T::XNNAvgPooling2d);
  // Flag 0x40 (keep dims): the [N, 1, 1, C] output the exporter writes.
  unary("node-global_avg_pooling2d", T::XNNGlobalAvgPooling2d, {1, 5, 7, 3}, {1, 1, 1, 3})
      ->xnode_union.AsXNNGlobalAvgPooling2d()
      ->flags = 0x40;
  {
    GraphWriter& g = add("node-argmax_pooling2d");
    auto* p = new fb::XNNArgMaxPooling2dT();
    p->pooling_height = 2;
    p->pooling_width = 3;
    p->input_id = g.value({1, 4, 6, 3}, 0);
    p->output_value_id = g.value({1, 2, 2, 3}, 1, true);
    p->output_index_id = g.value({1, 2, 2, 3}, 2, true);
    g.node(T::XNNArgMaxPooling2d, p);
  }
  {
    GraphWriter& g = add("node-static_transpose");
    auto* p = new fb::XNNStaticTransposeT();
    p->num_dims = 3;
    p->perm = {2, 0, 1};
    p->input_id = g.value({2, 3, 4}, 0);
    p->output_id = g.value({4, 2, 3}, 1, true);
    g.node(T::XNNStaticTranspose, p);
  }
  {
    GraphWriter& g = add("node-static_reshape");
    auto* p = new fb::XNNStaticReshapeT();
    p->num_dims = 2;
    p->new_shape = {6, 4};
    p->input_id = g.value({2, 3, 4}, 0);
    p->output_id = g.value({6, 4}, 1, true);
    g.node(T::XNNStaticReshape, p);
  }
  {
    GraphWriter& g = add("node-static_slice");
    auto* p = new fb::XNNStaticSliceT();
    p->num_dims = 3;
    p->offsets = {1, 0, 2};
    p->sizes = {2, 3, 3};
    p->input_id = g.value({3, 4, 5}, 0);
    p->output_id = g.value({2, 3, 3}, 1, true);
    g.node(T::XNNStaticSlice, p);
  }
  {
    GraphWriter& g = add("node-static_constant_pad");
    auto* p = new fb::XNNStaticConstantPadT();
    p->pre_paddings = {0, 0, 1};
    p->post_paddings = {0, 1, 2};
    p->padding_value = 0.5f;
    p->input_id = g.value({2, 3, 4}, 0);
    p->output_id = g.value({2, 4, 7}, 1, true);
    g.node(T::XNNStaticConstantPad, p);
  }
  {
    GraphWriter& g = add("node-static_resize_bilinear2d");
    auto* p = new fb::XNNStaticResizeBilinear2DT();
    p->new_height = 5;
    p->new_width = 6;
    p->input_id = g.value({1, 3, 4, 2}, 0);
    p->output_id = g.value({1, 5, 6, 2}, 1, true);
    g.node(T::XNNStaticResizeBilinear2D, p);
  }
  concatenate("node-concatenate2", T::XNNConcatenate2, 2);
  concatenate("node-concatenate3", T::XNNConcatenate3, 3);
  concatenate("node-concatenate4", T::XNNConcatenate4, 4);
  concatenate("node-concatenate5", T::XNNConcatenate5, 5);
  {
    GraphWriter& g = add("node-scaled_dot_product_attention");
    // Query [B 1, H 2, Tq 3, C 4], key and value [1, 2, U 5, 4], scale [C], mask [Tq, U].
    auto* p = new fb::XNNScaledDotProductAttentionT();
    p->query_id = g.value({1, 2, 3, 4}, 0);
    p->key_id = g.value({1, 2, 5, 4}, 1);
    p->value_id = g.value({1, 2, 5, 4}, 2);
    p->scale_id = constant(g, {4});
    p->mask_id = constant(g, {3, 5});
    p->output_id = g.value({1, 2, 3, 4}, 3, true);
    g.node(T::XNNScaledDotProductAttention, p);
  }
}

// Quantized graphs: one of each kind of quantization parameters (per tensor, per channel,
// per channel group, per token), for the mutator's scale / zero point / channel_dim /
// block-size edits.
void make_quantized_seeds() {
  {
    // fp32 -> qint8 (per tensor) -> Add -> qint8 -> fp32.
    GraphWriter& g = add("quant-add-qint8");
    const uint32_t a = g.value({2, 6}, 0), b = g.value({2, 6}, 1);
    const uint32_t qa = g.value({2, 6}), qb = g.value({2, 6}), qy = g.value({2, 6});
    g.per_tensor(qa, DT::xnn_datatype_qint8, 0.05f, 3);
    g.per_tensor(qb, DT::xnn_datatype_qint8, 0.03f, -2);
    g.per_tensor(qy, DT::xnn_datatype_qint8, 0.1f, 0);
    const uint32_t y = g.value({2, 6}, 2, true);
    g.unary(T::XNNConvert, a, qa);
    g.unary(T::XNNConvert, b, qb);
    g.binary(T::XNNAdd, qa, qb, qy);
    g.unary(T::XNNConvert, qy, y);
  }
  {
    // fp32 -> qint8 -> FC(qcint8 weights per channel, qcint32 bias) -> qint8 -> fp32.
    GraphWriter& g = add("quant-fully_connected-qcint8");
    const uint32_t x = g.value({3, 7}, 0), xq = g.value({3, 7});
    g.per_tensor(xq, DT::xnn_datatype_qint8, 0.05f, 3);
    std::vector<int8_t> wq(5 * 7);
    for (size_t i = 0; i < wq.size(); ++i)
      wq[i] = static_cast<int8_t>(static_cast<int>((i * 37) % 255) - 127);
    const uint32_t w = g.value({5, 7});
    g.tensor(w)->constant_buffer_idx = g.add_bytes(wq.data(), wq.size());
    auto* wp = new fb::PerChannelQuantT();
    wp->channel_dim = 0;
    for (int c = 0; c < 5; ++c)
      wp->scale.push_back(0.002f * static_cast<float>(c + 1));
    const std::vector<float> weight_scales = wp->scale;
    g.quantize(w, DT::xnn_datatype_qcint8, fb::XNNQuantParams::PerChannelQuant, wp);
    std::vector<int32_t> bq(5);
    for (int c = 0; c < 5; ++c)
      bq[c] = (c - 2) * 400;
    const uint32_t b = g.value({5});
    g.tensor(b)->constant_buffer_idx = g.add_bytes(bq.data(), bq.size() * sizeof(int32_t));
    auto* bp = new fb::PerChannelQuantT();
    for (float s : weight_scales)
      bp->scale.push_back(0.05f * s);
    g.quantize(b, DT::xnn_datatype_qcint32, fb::XNNQuantParams::PerChannelQuant, bp);
    const uint32_t yq = g.value({3, 5});
    g.per_tensor(yq, DT::xnn_datatype_qint8, 0.1f, -2);
    const uint32_t y = g.value({3, 5}, 1, true);
    g.unary(T::XNNConvert, x, xq);
    fully_connected(g, xq, w, b, yq);
    g.unary(T::XNNConvert, yq, y);
  }
  // fp32 -> qdint8 (per row) -> FC(4-bit weights, blockwise bf16 scales or channelwise) -> fp32.
  for (const bool blockwise : {true, false}) {
    GraphWriter& g = add(blockwise ? "quant-fully_connected-qdint8-qbint4"
                                   : "quant-fully_connected-qdint8-qcint4");
    const uint32_t K = 64, N = 3, group = 32;
    const uint32_t x = g.value({2, K}, 0), xq = g.value({2, K});
    auto* dq = new fb::PerTokenDynamicQuantT();
    dq->num_nonbatch_dims = 1;
    g.quantize(xq, DT::xnn_datatype_qdint8, fb::XNNQuantParams::PerTokenDynamicQuant, dq);
    // Two 4-bit weights per byte, low nibble first, stored as q + 8.
    std::vector<uint8_t> packed(N * K / 2);
    for (size_t i = 0; i < packed.size(); ++i)
      packed[i] = static_cast<uint8_t>((i * 5) % 16 | ((i * 3 + 1) % 16) << 4);
    const uint32_t w = g.value({N, K});
    g.tensor(w)->constant_buffer_idx = g.add_bytes(packed.data(), packed.size());
    if (blockwise) {
      // bf16 scales: the high halves of 0.0625 * (i + 1), exact in bf16.
      std::vector<uint16_t> bf16(N * (K / group));
      for (size_t i = 0; i < bf16.size(); ++i) {
        const float f = 0.0625f * static_cast<float>(i + 1);
        uint32_t bits;
        std::memcpy(&bits, &f, sizeof bits);
        bf16[i] = static_cast<uint16_t>(bits >> 16);
      }
      auto* p = new fb::PerChannelGroupQuantT();
      p->channel_dim = 0;
      p->group_size = static_cast<int32_t>(group);
      p->scale_buffer_idx = g.add_bytes(bf16.data(), bf16.size() * sizeof(uint16_t));
      p->num_scales = static_cast<uint32_t>(bf16.size());
      g.quantize(w, DT::xnn_datatype_qbint4, fb::XNNQuantParams::PerChannelGroupQuant, p);
    } else {
      auto* p = new fb::PerChannelQuantT();
      p->channel_dim = 0;
      p->scale = {0.0625f, 0.125f, 0.25f};
      g.quantize(w, DT::xnn_datatype_qcint4, fb::XNNQuantParams::PerChannelQuant, p);
    }
    const uint32_t y = g.value({2, N}, 1, true);
    g.unary(T::XNNConvert, x, xq);
    fully_connected(g, xq, w, kNone, y);
  }
  {
    // fp32 -> qint8 -> Conv2d(qcint8 filter per output channel, qcint32 bias) -> qint8 -> fp32.
    GraphWriter& g = add("quant-conv2d-qcint8");
    const uint32_t x = g.value({1, 4, 4, 2}, 0), xq = g.value({1, 4, 4, 2});
    g.per_tensor(xq, DT::xnn_datatype_qint8, 0.05f, 1);
    std::vector<int8_t> wq(3 * 3 * 3 * 2);
    for (size_t i = 0; i < wq.size(); ++i)
      wq[i] = static_cast<int8_t>(static_cast<int>((i * 29) % 200) - 100);
    const uint32_t w = g.value({3, 3, 3, 2});
    g.tensor(w)->constant_buffer_idx = g.add_bytes(wq.data(), wq.size());
    auto* wp = new fb::PerChannelQuantT();
    wp->channel_dim = 0;
    wp->scale = {0.01f, 0.02f, 0.03f};
    g.quantize(w, DT::xnn_datatype_qcint8, fb::XNNQuantParams::PerChannelQuant, wp);
    const std::vector<int32_t> bq = {100, -50, 7};
    const uint32_t b = g.value({3});
    g.tensor(b)->constant_buffer_idx = g.add_bytes(bq.data(), bq.size() * sizeof(int32_t));
    auto* bp = new fb::PerChannelQuantT();
    bp->scale = {0.05f * 0.01f, 0.05f * 0.02f, 0.05f * 0.03f};
    g.quantize(b, DT::xnn_datatype_qcint32, fb::XNNQuantParams::PerChannelQuant, bp);
    const uint32_t yq = g.value({1, 4, 4, 3});
    g.per_tensor(yq, DT::xnn_datatype_qint8, 0.1f, 0);
    const uint32_t y = g.value({1, 4, 4, 3}, 1, true);
    auto* p = conv_params(3, 1, 1, 1, 2, 3);
    p->input1_id = xq;
    p->filter_id = w;
    p->bias_id = b;
    p->output_id = yq;
    g.unary(T::XNNConvert, x, xq);
    g.node(T::XNNConv2d, p);
    g.unary(T::XNNConvert, yq, y);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output directory>\n", argv[0]);
    return 2;
  }
  make_float_seeds();
  make_quantized_seeds();
  int refused = 0;
  for (const auto& seed : seeds) {
    const std::vector<uint8_t> bytes = seed->graph.payload();
    xnn_test::Delegate d(bytes);
    if (d.init_error != executorch::runtime::Error::Ok) {
      std::fprintf(stderr, "%s: refused by XnnpackBackend init (error 0x%x), not written\n",
                   seed->name.c_str(), static_cast<unsigned>(d.init_error));
      ++refused;
      continue;
    }
    const std::string path = std::string(argv[1]) + "/" + seed->name;
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() ||
        std::fclose(f) != 0) {
      std::fprintf(stderr, "%s: cannot write\n", path.c_str());
      return 1;
    }
  }
  std::printf("%zu seeds, %d refused\n", seeds.size() - static_cast<size_t>(refused), refused);
  return refused == 0 ? 0 : 1;
}
