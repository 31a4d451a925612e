// What a node builder (ops_*.cpp) gets from the graph builder: checked access to the node's
// values, the node's clamp bounds, and error reporting that names the node.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include <xnnpack_schema/schema_generated.h>

#include "graph.h"

namespace executorch {
namespace backends {
namespace xnnpack {

namespace fb = ::xnnpack_schema;

class NodeContext {
 public:
  NodeContext(
      Graph& graph,
      std::vector<uint8_t>& written,
      uint32_t index,
      const fb::XNode* node);

  Graph& graph() {
    return graph_;
  }
  const fb::XNode* node() const {
    return node_;
  }
  // "XNNConv2d" etc.
  const char* type_name() const;

  // An input value: defined, float32, and computed earlier in the graph (or a constant or an
  // external input). `field` names the node field in messages.
  runtime::Error input(uint32_t id, const char* field, uint32_t* out);
  // An optional input (kInvalidValueId allowed, then *out = kInvalidValueId).
  runtime::Error optional_input(uint32_t id, const char* field, uint32_t* out);
  // The output value: defined, not a constant or an external input, not written by an earlier
  // node. Its buffer exists once the node is accepted.
  runtime::Error output(uint32_t id, const char* field, uint32_t* out);

  // A constant's float32 elements in the payload (unaligned-safe copies are made by the
  // caller); nullptr if the value is not a constant.
  const uint8_t* constant_bytes(uint32_t id) const;

  // The node's output clamp: output_min_max, or (-inf, +inf) when absent.
  float output_min() const;
  float output_max() const;

  // Logs "XnnpackBackend: node N (Type): <message>" and returns InvalidProgram.
  runtime::Error invalid(const char* format, ...)
      __attribute__((format(printf, 2, 3)));
  // Same, returning NotSupported: well formed, but not something this backend runs.
  runtime::Error unsupported(const char* format, ...)
      __attribute__((format(printf, 2, 3)));
  // Logs "... node N (Type): no memory for <what> (<bytes> bytes)" and returns
  // MemoryAllocationFailed: what the node plans at init does not fit.
  runtime::Error out_of_memory(const char* what, size_t bytes);

  // Accepts the node: gives its outputs buffers, marks them written, records the node's
  // inputs and outputs on the step (for the reshape pass) and appends it.
  runtime::Error accept(std::unique_ptr<Step> step);

  // InvalidProgram unless output `id` has the shape the node computes from its inputs.
  runtime::Error expect_output_dims(
      uint32_t id, const size_t* dims, size_t rank);

 private:
  runtime::Error report(runtime::Error error, const char* format, va_list args);

  Graph& graph_;
  std::vector<uint8_t>& written_;
  uint32_t index_;
  const fb::XNode* node_;
  bool first_step_accepted_ = false;
  std::vector<uint32_t> inputs_;
  std::vector<uint32_t> outputs_;
};

// Why a shape does not propagate through a node. The shape functions shared by a node's
// builder (payload shapes, an InvalidProgram) and its reshape() (the call's shapes, an
// InvalidArgument) describe the problem here; formatting allocates nothing.
struct ShapeError {
  char message[192] = "";
  // Formats the message; returns false, for `return why->set(...)`.
  bool set(const char* format, ...) __attribute__((format(printf, 2, 3)));
};

// "[2, 3, 4]" into out (truncated to size).
void format_dims(const std::vector<size_t>& dims, char* out, size_t size);
// v.dims = dims[0..rank), v.numel to match. Reuses v.dims' storage (ranks never change).
void set_dims(Value& v, const size_t* dims, size_t rank);

// Checks that a node's flags hold only bits in `allowed`.
runtime::Error check_flags(NodeContext& ctx, uint32_t flags, uint32_t allowed);

// v limited to [lo, hi]; NaN passes through (output_min_max clamps of every node). Two plain
// selects (lo <= hi is checked at init, so this is the nested form's value) that the compiler
// turns into vector max/min; the nested form kept every loop over it scalar.
inline float clamp_to(float v, float lo, float hi) {
  v = v < lo ? lo : v;
  return v > hi ? hi : v;
}

// The epilogue of the GEMM-based nodes: y[r, c] = clamp(y[r, c] + bias[c]) (bias may be null).
inline void add_bias_and_clamp(
    float* y, size_t rows, size_t cols, const float* bias, float lo, float hi) {
  for (size_t r = 0; r < rows; ++r) {
    float* row = y + r * cols;
    for (size_t c = 0; c < cols; ++c) {
      row[c] = clamp_to(row[c] + (bias != nullptr ? bias[c] : 0.0f), lo, hi);
    }
  }
}

// Element count of dims (dims were checked for overflow when the values were read).
size_t numel_of(const std::vector<size_t>& dims);

// Node builders, one per family (ops_*.cpp). Each checks the node completely and accepts it.
using NodeBuilder = runtime::Error (*)(NodeContext& ctx);
NodeBuilder find_node_builder(fb::XNodeUnion type);

runtime::Error build_unary(NodeContext& ctx);
runtime::Error build_binary(NodeContext& ctx);
runtime::Error build_softmax(NodeContext& ctx);
runtime::Error build_fully_connected(NodeContext& ctx);
runtime::Error build_batch_matmul(NodeContext& ctx);
runtime::Error build_conv2d(NodeContext& ctx);
runtime::Error build_depthwise_conv2d(NodeContext& ctx);
runtime::Error build_pooling(NodeContext& ctx);
runtime::Error build_global_avg_pooling(NodeContext& ctx);
runtime::Error build_transpose(NodeContext& ctx);
runtime::Error build_reshape(NodeContext& ctx);
runtime::Error build_concatenate(NodeContext& ctx);
runtime::Error build_slice(NodeContext& ctx);
runtime::Error build_constant_pad(NodeContext& ctx);
runtime::Error build_conv_transpose2d(NodeContext& ctx);
runtime::Error build_resize_bilinear(NodeContext& ctx);
runtime::Error build_argmax_pooling(NodeContext& ctx);
runtime::Error build_sdpa(NodeContext& ctx);

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
