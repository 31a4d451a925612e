// XnnpackBackend: runs XNNPACK-lowered delegates (upstream's XnnpackPartitioner) by
// interpreting the payload's graph with our own compute code. init() checks the payload and
// builds the plan (graph.h); execute() binds the call's tensors and runs the steps.
#include <algorithm>
#include <new>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/event_tracer_hooks_delegate.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/platform/log.h>

#include "float_formats.h"
#include "graph.h"
#include "node_context.h"

namespace executorch {
namespace backends {
namespace xnnpack {
namespace {

using runtime::ArrayRef;
using runtime::Backend;
using runtime::BackendExecutionContext;
using runtime::BackendInitContext;
using runtime::BackendInterface;
using runtime::CompileSpec;
using runtime::DelegateHandle;
using runtime::Error;
using runtime::EValue;
using runtime::EventTracer;
using runtime::EventTracerEntry;
using runtime::FreeableBuffer;
using runtime::Result;
using runtime::Span;
using runtime::etensor::ScalarType;
using runtime::etensor::Tensor;

using SizesType = runtime::etensor::TensorImpl::SizesType;

// A 0-dim tensor passed for a value of one element: the exporter serializes a scalar
// tensor argument (e.g. a lifted constant) as dims [1] (or [1, 1, ...]).
bool is_scalar_for(const Tensor& t, const Value& v) {
  if (t.dim() != 0) {
    return false;
  }
  for (size_t d : v.bound_dims) {
    if (d != 1) {
      return false;
    }
  }
  return true;
}

Error check_tensor_argument(const Value& v, EValue* arg) {
  if (arg == nullptr || !arg->isTensor()) {
    ET_LOG(Error, "XnnpackBackend: argument %u is not a tensor", v.external_id);
    return Error::InvalidArgument;
  }
  const Tensor& t = arg->toTensor();
  if (v.format == FloatFormat::kFp32 && t.scalar_type() != ScalarType::Float) {
    ET_LOG(
        Error,
        "XnnpackBackend: argument %u has dtype %d, the graph needs float32",
        v.external_id,
        static_cast<int>(t.scalar_type()));
    return Error::InvalidArgument;
  }
  if (static_cast<size_t>(t.dim()) != v.dims.size() && !is_scalar_for(t, v)) {
    ET_LOG(
        Error,
        "XnnpackBackend: argument %u has rank %zd, the graph's value %zu",
        v.external_id,
        static_cast<ssize_t>(t.dim()),
        v.dims.size());
    return Error::InvalidArgument;
  }
  return Error::Ok;
}

// Takes an input's shape for its value. The payload's dims are the tensor's sizes in memory
// order (its dim order: for a channels-last tensor, NHWC) and each is an upper bound: a
// dynamic dim may be smaller, never larger. A shape that differs from the value's current one
// invalidates the propagated shapes, even if a later argument is refused: the next call
// must not run on a plan made for other shapes.
Error bind_input(Graph& g, uint32_t id, EValue* arg) {
  Value& v = g.values[id];
  Error err = check_tensor_argument(v, arg);
  if (err != Error::Ok) {
    return err;
  }
  Tensor& t = arg->toTensor();
  const auto order = t.dim_order();
  size_t dims[kMaxDims];
  for (size_t j = 0; j < v.dims.size() && t.dim() == 0; ++j) {
    dims[j] = 1;  // is_scalar_for(t, v)
  }
  for (size_t j = 0; j < v.dims.size() && t.dim() != 0; ++j) {
    const size_t logical = order[j];
    dims[j] = static_cast<size_t>(t.size(static_cast<ssize_t>(logical)));
    if (dims[j] > v.bound_dims[j]) {
      ET_LOG(
          Error,
          "XnnpackBackend: input argument %u dim %zu is %zu, the graph allows "
          "at most %zu",
          v.external_id,
          logical,
          dims[j],
          v.bound_dims[j]);
      return Error::InvalidArgument;
    }
  }
  if (!std::equal(dims, dims + v.dims.size(), v.dims.begin())) {
    set_dims(v, dims, v.dims.size());
    g.shapes_valid = false;
  }
  if (v.numel > 0 && t.mutable_data_ptr() == nullptr) {
    ET_LOG(
        Error,
        "XnnpackBackend: input argument %u has no storage",
        v.external_id);
    return Error::InvalidArgument;
  }
  if (v.format != FloatFormat::kFp32) {
    // fp16/bf16 arguments go through the value's staging buffer (float_formats.h).
    return bind_staged(v, t, false);
  }
  v.data = t.mutable_data_ptr<float>();
  return Error::Ok;
}

// Resizes an output tensor to its value's current shape (logical order from the tensor's dim
// order) and binds its storage.
Error bind_output(Graph& g, uint32_t id, EValue* arg) {
  Value& v = g.values[id];
  Error err = check_tensor_argument(v, arg);
  if (err != Error::Ok) {
    return err;
  }
  Tensor& t = arg->toTensor();
  SizesType sizes[kMaxDims];
  const auto order = t.dim_order();
  for (size_t j = 0; j < v.dims.size() && t.dim() != 0; ++j) {
    sizes[order[j]] = static_cast<SizesType>(v.dims[j]);
  }
  // A 0-dim output of one element keeps its rank.
  err = is_scalar_for(t, v) ? Error::Ok
                            : runtime::resize_tensor(
                                  t, ArrayRef<SizesType>(sizes, v.dims.size()));
  if (err != Error::Ok) {
    ET_LOG(
        Error,
        "XnnpackBackend: output argument %u cannot take the graph's shape",
        v.external_id);
    return err;
  }
  if (t.numel() != static_cast<ssize_t>(v.numel) ||
      (v.numel > 0 && t.mutable_data_ptr() == nullptr)) {
    ET_LOG(
        Error,
        "XnnpackBackend: output argument %u has no storage for %zu elements",
        v.external_id,
        v.numel);
    return Error::InvalidArgument;
  }
  if (v.format != FloatFormat::kFp32) {
    // fp16/bf16/index arguments go through the value's staging buffer (float_formats.h).
    return bind_staged(v, t, true);
  }
  v.data = t.mutable_data_ptr<float>();
  return Error::Ok;
}

// Runs the steps with one profiling event per payload node, named by its XNode type (as upstream's
// XNNPACK profiler names one event per operator), with the node's index in xnodes as the event's
// metadata (4 bytes, native order). The steps that finish a node (quantization rounding) are
// timed inside that node's event.
void run_steps_traced(Graph& g, EventTracer* tracer) {
  EventTracerEntry entry{};
  uint32_t node_index = 0;
  bool open = false;
  for (auto& step : g.steps) {
    if (step->node_type_name != nullptr) {
      if (open) {
        runtime::event_tracer_end_profiling_delegate(
            tracer, entry, &node_index, sizeof(node_index));
      }
      node_index = step->node_index;
      entry = runtime::event_tracer_start_profiling_delegate(
          tracer, step->node_type_name, runtime::kUnsetDelegateDebugIntId);
      open = true;
    }
    step->run(g);
  }
  if (open) {
    runtime::event_tracer_end_profiling_delegate(
        tracer, entry, &node_index, sizeof(node_index));
  }
}

class XnnpackBackend final : public BackendInterface {
 public:
  bool is_available() const override {
    return true;
  }

  Result<DelegateHandle*> init(
      BackendInitContext& context,
      FreeableBuffer* processed,
      ArrayRef<CompileSpec> compile_specs) const override {
    (void)compile_specs;
    if (processed == nullptr) {
      return Error::InvalidArgument;
    }
    Result<std::unique_ptr<Graph>> graph = build_graph(
        processed->data(), processed->size(), context.get_named_data_map());
    if (!graph.ok()) {
      return graph.error();
    }
    // The graph's outputs are the only arguments execute() writes: the Method
    // checks what the program passes there (a constant or a caller's input
    // must not be written).
    for (uint32_t id : (*graph)->output_values) {
      context.internal_report_written_arg((*graph)->values[id].external_id);
    }
    // The plan holds no pointer into the payload: release it now.
    processed->Free();
    return graph->release();
  }

  Error execute(
      BackendExecutionContext& context,
      DelegateHandle* handle,
      Span<EValue*> args) const override {
    if (handle == nullptr) {
      return Error::DelegateInvalidHandle;
    }
    Graph& g = *static_cast<Graph*>(handle);
    if (args.size() < g.num_args) {
      ET_LOG(
          Error,
          "XnnpackBackend: %zu arguments, the graph needs %zu",
          args.size(),
          g.num_args);
      return Error::InvalidArgument;
    }
    for (uint32_t id : g.input_values) {
      Error err = bind_input(g, id, args[g.values[id].external_id]);
      if (err != Error::Ok)
        return err;
    }
    // Shapes are propagated only when an input's shape differs from the last propagated one
    // (or the last propagation failed), so a fixed-shape model never pays for it.
    if (!g.shapes_valid) {
      Error err = reshape_graph(g);
      if (err != Error::Ok)
        return err;
    }
    for (uint32_t id : g.output_values) {
      Error err = bind_output(g, id, args[g.values[id].external_id]);
      if (err != Error::Ok)
        return err;
    }
    EventTracer* tracer = context.event_tracer();
    if (tracer != nullptr) {
      run_steps_traced(g, tracer);
    } else {
      for (auto& step : g.steps) {
        step->run(g);
      }
    }
    write_back_staged_outputs(g);
    return Error::Ok;
  }

  void destroy(DelegateHandle* handle) const override {
    delete static_cast<Graph*>(handle);
  }
};

XnnpackBackend backend_instance;
const Backend backend_entry{"XnnpackBackend", &backend_instance};
const Error registered = runtime::register_backend(backend_entry);

}  // namespace
}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
