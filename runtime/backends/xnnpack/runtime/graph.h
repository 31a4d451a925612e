// The XNNPACK delegate's executable form: a table of values and a list of steps, fixed at init.
//
// The payload (an XNNGraph flatbuffer, backends/xnnpack/serialization/schema.fbs) is
// untrusted. build_graph() checks all of it once (header, flatbuffer, values, constants, every
// node's ids, shapes and parameters) and builds the plan: constants are converted and packed
// for the compute core, every intermediate value gets its buffer. After that, execute() only
// binds the call's tensors to the external values and runs the steps; it allocates nothing.
//
// Dynamic shapes: the payload's dims are upper bounds (the exporter writes a dynamic dim's
// bound), and every buffer is sized for them. An execute whose inputs are smaller re-propagates
// the shapes through the steps first (reshape_graph(), only when an input's shape changed since
// the last call), as upstream's XNNPACK runtime reshapes its subgraph; the outputs are then
// resized to the shapes computed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>

namespace executorch {
namespace backends {
namespace xnnpack {

// The payload's "no value" id (e.g. a node without bias).
constexpr uint32_t kInvalidValueId = 0xFFFFFFFFu;
// Value flags (XNNTensorValue.flags).
constexpr uint32_t kFlagExternalInput = 0x1;
constexpr uint32_t kFlagExternalOutput = 0x2;
// The payload's ranks never exceed XNNPACK's limit.
constexpr size_t kMaxDims = 6;

// How an activation is quantized (constants carry none: they are decoded at init).
struct Quant {
  enum class Kind { kNone, kPerTensor, kDynamicPerRow } kind = Kind::kNone;
  // kPerTensor: q = clamp(round(x / scale) + zero_point, qmin, qmax).
  float scale = 1.0f;
  int32_t zero_point = 0;
  int32_t qmin = 0, qmax = 0;
  // kDynamicPerRow (qdint8): each row of `row_size` elements gets its own scale and zero point
  // at run time, as XNNPACK's dynamic quantization computes them. A row is the value's
  // innermost `row_dims` dims.
  size_t row_size = 0;
  size_t row_dims = 0;
  // kDynamicPerRow: the integers of the last run, as XNNPACK quantizes them (q + 128 per
  // element, each row's zero point + 128 and scale: compute/qd8_qb4w.h), for the fully
  // connected that takes them as integers. Allocated at init, once the whole payload has
  // been read (allocate_dynamic_quant_buffers), for up to max_rows rows.
  uint8_t* codes = nullptr;
  int32_t* row_zero_point = nullptr;
  float* row_scale = nullptr;
  size_t max_rows = 0;
};

// A 4-bit blockwise (qbint4) constant as stored, besides its decoded floats: [rows, cols]
// nibbles (weight + 8, low nibble first) and one scale per block of `block` columns.
struct Int4Blockwise {
  std::vector<uint8_t> nibbles;
  std::vector<float> scales;
  size_t block = 0;
};

// How a value's elements are stored where they are not float32: the fp16/bf16 values of a
// half-precision graph (the steps compute in float and round onto the format's grid after the
// node that writes the value, float_formats.h), and the indices an ArgMaxPooling2d writes
// (floats holding small integers inside the graph, int64 or int32 in the caller's tensor).
enum class FloatFormat : uint8_t { kFp32, kFp16, kBf16, kIndex };

// One tensor value of the graph. Every value the steps use is held as float32, `data` points to
// its elements: a constant's converted copy, an
// intermediate's buffer, or (bound at each execute) the call's tensor for an external value.
struct Value {
  bool defined = false;  // an XValue with this id exists
  // The current shape: the payload's at init, then what the last reshape pass computed.
  std::vector<size_t> dims;
  size_t numel = 0;
  // The payload's shape (the upper bound of each dim) and the element count its buffer holds.
  std::vector<size_t> bound_dims;
  size_t capacity = 0;
  uint32_t flags = 0;
  uint32_t external_id = kInvalidValueId;
  bool is_constant = false;
  float* data = nullptr;
  // A quantized activation is kept as the float values its integers stand for: every node
  // computes in float and the value is rounded onto its quantization grid after the node that
  // writes it (quantized_values.h). Quantized constants are decoded to floats at init.
  Quant quant;
  // A constant decoded from signed 8-bit integers with zero point 0 (qint8 per tensor, qcint8
  // per channel) keeps its scales, so that the integer kernels can take the integers back exactly
  // (data / scale is within a few ulps of one): one scale (int8_channel_dim -1), or one per
  // index of dim int8_channel_dim. Empty for every other value.
  std::vector<float> int8_scales;
  int int8_channel_dim = -1;
  // Set for a qbint4 constant.
  std::shared_ptr<const Int4Blockwise> int4_blockwise;
  // The nodes that take this value as an input and may read `data` (counted at init; the
  // integer fully connected gives its filter back): a qbint4 constant no one reads as floats
  // has its decoded copy freed once all nodes are built.
  uint32_t float_readers = 0;
  // fp16/bf16 values are rounded onto their grid; a non-fp32 external value is bound through a
  // float staging buffer (`data`, allocated at init) converted from or to the caller's tensor
  // (`external_data`, set at each execute).
  FloatFormat format = FloatFormat::kFp32;
  void* external_data = nullptr;
  bool index_is_int64 =
      false;  // kIndex: the bound tensor is int64 (else int32)
};

class Graph;

// An elementwise activation the step that writes its input can apply instead, as it writes
// each output (fuse_activations()).
enum class FusableActivation { kNone, kSigmoidMul, kHardswish };

// One node, ready to run: all its parameters were checked against the value shapes at init.
class Step {
 public:
  virtual ~Step() = default;
  virtual void run(Graph& graph) = 0;

  // Recomputes the dims of the step's outputs (graph.values) and its own loop bounds from the
  // current dims of its inputs, allocating nothing. The reshape pass checks afterwards that
  // every output still fits its buffer. This default is for node types whose shapes are fixed:
  // it accepts only inputs at their exported shapes and refuses others with NotSupported,
  // naming the node.
  virtual runtime::Error reshape(Graph& graph);

  // An activation step of one input and one output: which one (kNone for every other step).
  virtual FusableActivation fusable_activation() const {
    return FusableActivation::kNone;
  }
  // A step that can apply `activation` to its only output as it writes it does so from now
  // on, writing value `out` instead, and returns true; the others return false.
  virtual bool absorb_activation(FusableActivation activation, uint32_t out) {
    (void)activation;
    (void)out;
    return false;
  }

  // Set on the first step of each payload node (the node's XNode type name, static storage, and
  // its index in xnodes), left null on the steps that finish the same node (quantization
  // rounding): execute() reports one profiling event per node to the Method's EventTracer.
  const char* node_type_name = nullptr;
  uint32_t node_index = 0;
  // Set by a step that already leaves its per-tensor quantized outputs on their grid (the
  // convolutions fuse the rounding into their epilogue): no rounding step is added after it.
  bool rounds_quantized_outputs = false;

  // The node's values as the graph builder accepted them (empty on the finishing steps, which
  // keep the shape of the value they round). Error messages at execute name the node.
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
  const char* owner_type_name = nullptr;
  uint32_t owner_index = 0;

  // For fuse_clamps(): a step that can apply a following Clamp of its only output itself
  // (clamp to [lo, hi], bounds on the output's grid) and write the Clamp's output `out`
  // instead does so and returns true. The default cannot.
  virtual bool absorb_clamp(uint32_t /*out*/, float /*lo*/, float /*hi*/) {
    return false;
  }

  // For fuse_converts(): a step that can write what it writes into its only output into
  // another value of the same shape, `out`, instead (its values, rounding included, unchanged)
  // does so from now on and returns true. The default cannot.
  virtual bool retarget_output(uint32_t /*out*/) {
    return false;
  }

  // Logs "XnnpackBackend: node N (Type): <message>" and returns `error`.
  runtime::Error fail(runtime::Error error, const char* format, ...) const
      __attribute__((format(printf, 3, 4)));
};

class Graph {
 public:
  std::vector<Value> values;
  std::vector<std::unique_ptr<Step>> steps;
  // Value ids of the external inputs and outputs, by external id (= delegate argument index).
  std::vector<uint32_t> input_values;
  std::vector<uint32_t> output_values;
  size_t num_args = 0;  // highest external id + 1
  // False once an input's dims changed and until a reshape pass succeeds on them: execute
  // runs the pass whenever it is false.
  bool shapes_valid = true;
  // The intermediate values' arena, and what one buffer per value would have taken.
  size_t intermediate_bytes = 0;
  size_t intermediate_bytes_unshared = 0;

  float* data(uint32_t id) {
    return values[id].data;
  }
  const Value& value(uint32_t id) const {
    return values[id];
  }

  // Owned storage: converted constants, intermediates, packed weights and scratch. Aligned
  // to 64 bytes.
  float* allocate_floats(size_t count);
  // Frees a block allocate_floats returned (nothing if it is not one).
  void release_floats(const float* block);

 private:
  std::vector<std::unique_ptr<float[]>> storage_;
};

// Checks the payload and builds the plan. Errors: InvalidProgram (malformed payload: header,
// flatbuffer, ids, shapes, constants), DelegateInvalidCompatibility (not an XNNGraph of a known
// version), NotSupported (a node type or datatype this backend does not run), InvalidExternalData
// (a named constant is missing or has the wrong size), MemoryAllocationFailed.
runtime::Result<std::unique_ptr<Graph>> build_graph(
    const void* payload, size_t size, const runtime::NamedDataMap* named_data);

// Gives every intermediate value (written by a node, neither constant nor external) its
// storage in one arena, sized for the exported (upper-bound) shapes: values whose lifetimes
// (from the node that writes them to the last node that reads them) do not overlap share
// bytes. Run once by build_graph() after all nodes are accepted. MemoryAllocationFailed.
runtime::Error plan_intermediate_buffers(Graph& graph);

// Runs each Sigmoid whose only reader is a Multiply of it with the Sigmoid's own input (swish)
// as one x * sigmoid(x) step, bit for bit the two nodes' result: the Sigmoid's step goes and
// its output is left without a buffer. Run by build_graph() before the buffers are planned.
void fuse_sigmoid_multiply(Graph& graph);

// Runs each activation step (swish as fuse_sigmoid_multiply leaves it, Hardswish) whose input
// is read by it alone and written by a step that can apply it (the convolutions) inside that
// step, bit for bit the two steps' result: the activation's step goes and its input is left
// without a buffer. Run by build_graph() after fuse_sigmoid_multiply().
void fuse_activations(Graph& graph);

// Runs each Clamp from a quantization grid onto the same grid (the int8 programs' ReLU/ReLU6)
// whose input is read by nothing else, and written by a step that can clamp its own output
// (Step::absorb_clamp), as part of that step: the Clamp's step goes and its input is left
// without a buffer. Run by build_graph() before the buffers are planned.
void fuse_clamps(Graph& graph);

// Runs each Convert or Copy whose input is read by it alone, as the step that writes that input
// (Step::retarget_output): a Convert between a float and a quantized value is a copy (every
// value is held as float32), so the producer writes the Convert's output itself and the copy
// pass goes; the rounding onto the output's grid, a step of its own after the Convert, stays.
// Only where no rounding step follows the producer for the input: a quantized input must be
// rounded by its producer itself (the integer convolutions). Run by build_graph() after
// fuse_clamps(), before the buffers are planned.
void fuse_converts(Graph& graph);

// The reshape pass: runs every step's reshape() in order, after the external inputs' dims were
// set to the call's shapes. InvalidArgument when the shapes do not propagate (a value would
// outgrow its buffer, a reshape does not divide, ...), NotSupported from a node whose shape
// cannot change; both name the node.
runtime::Error reshape_graph(Graph& graph);

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
