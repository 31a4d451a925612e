// XnnpackBackend: runs XNNPACK-lowered delegates (upstream's XnnpackPartitioner) by
// interpreting the payload's graph with our own compute code. init() checks the payload and
// builds the plan (graph.h); execute() binds the call's tensors and runs the steps.
#include <new>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/event_tracer_hooks_delegate.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/platform/log.h>

#include "float_formats.h"
#include "graph.h"

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

// The payload's dims are the tensor's sizes in memory order (its dim order): for a
// channels-last tensor, NHWC. Fills `sizes` with the logical sizes they stand for.
bool logical_sizes(
    const Tensor& t,
    const std::vector<size_t>& memory_dims,
    runtime::etensor::TensorImpl::SizesType* sizes) {
  if (static_cast<size_t>(t.dim()) != memory_dims.size()) {
    return false;
  }
  const auto order = t.dim_order();
  for (size_t j = 0; j < memory_dims.size(); ++j) {
    sizes[order[j]] =
        static_cast<runtime::etensor::TensorImpl::SizesType>(memory_dims[j]);
  }
  return true;
}

Error bind_argument(Graph& g, uint32_t id, EValue* arg, bool is_output) {
  Value& v = g.values[id];
  if (arg == nullptr || !arg->isTensor()) {
    ET_LOG(Error, "XnnpackBackend: argument %u is not a tensor", v.external_id);
    return Error::InvalidArgument;
  }
  Tensor& t = arg->toTensor();
  if (v.format == FloatFormat::kFp32 && t.scalar_type() != ScalarType::Float) {
    ET_LOG(
        Error,
        "XnnpackBackend: argument %u has dtype %d, the graph needs float32",
        v.external_id,
        static_cast<int>(t.scalar_type()));
    return Error::InvalidArgument;
  }
  runtime::etensor::TensorImpl::SizesType sizes[kMaxDims];
  if (!logical_sizes(t, v.dims, sizes)) {
    ET_LOG(
        Error,
        "XnnpackBackend: argument %u has rank %zd, the graph's value %zu",
        v.external_id,
        static_cast<ssize_t>(t.dim()),
        v.dims.size());
    return Error::InvalidArgument;
  }
  if (is_output) {
    Error err = runtime::resize_tensor(
        t,
        ArrayRef<runtime::etensor::TensorImpl::SizesType>(
            sizes, v.dims.size()));
    if (err != Error::Ok) {
      ET_LOG(
          Error,
          "XnnpackBackend: output argument %u cannot take the graph's shape",
          v.external_id);
      return err;
    }
  } else {
    for (size_t i = 0; i < v.dims.size(); ++i) {
      if (t.size(static_cast<ssize_t>(i)) != sizes[i]) {
        ET_LOG(
            Error,
            "XnnpackBackend: input argument %u dim %zu is %zd, the graph "
            "expects %d",
            v.external_id,
            i,
            static_cast<ssize_t>(t.size(static_cast<ssize_t>(i))),
            static_cast<int>(sizes[i]));
        return Error::InvalidArgument;
      }
    }
  }
  if (t.numel() != static_cast<ssize_t>(v.numel) ||
      (v.numel > 0 && t.mutable_data_ptr() == nullptr)) {
    ET_LOG(
        Error,
        "XnnpackBackend: argument %u has no storage for %zu elements",
        v.external_id,
        v.numel);
    return Error::InvalidArgument;
  }
  if (v.format != FloatFormat::kFp32) {
    // fp16/bf16/index arguments go through the value's staging buffer (float_formats.h).
    return bind_staged(v, t, is_output);
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
      Error err = bind_argument(g, id, args[g.values[id].external_id], false);
      if (err != Error::Ok)
        return err;
    }
    for (uint32_t id : g.output_values) {
      Error err = bind_argument(g, id, args[g.values[id].external_id], true);
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
