// FullyConnected and BatchMatrixMultiply on the kernel library's SGEMM (the compute interface
// libexecutorch_kernels.so.1 exports, runtime/kernels/compute/gemm.h).
#include <algorithm>
#include <memory>

#include <executorch/runtime/kernels/compute/gemm.h>

#include "node_context.h"

namespace executorch {
namespace backends {
namespace xnnpack {

using kernels::compute::sgemm;
using kernels::compute::sgemm_workspace_size;
using kernels::compute::Trans;
using runtime::Error;

namespace {

// XNNPACK's flag: the filter is stored [input channels, output channels] (FullyConnected), or
// the second operand is stored transposed (BatchMatrixMultiply).
constexpr uint32_t kFlagTransposeWeights = 0x1;

// Scratch for sgemm, sized at init so that execute never reaches for the per-thread buffer.
struct GemmWorkspace {
  float* data = nullptr;
  size_t bytes = 0;
  bool allocate(Graph& g, int64_t m, int64_t n, int64_t k) {
    bytes = sgemm_workspace_size(m, n, k);
    data = g.allocate_floats(bytes / sizeof(float) + 1);
    return data != nullptr;
  }
};

class FullyConnectedStep final : public Step {
 public:
  uint32_t in = 0, filter = 0, bias = kInvalidValueId, out = 0;
  int64_t m = 0, n = 0, k = 0;
  // Packed weights [k, n] when the filter is a constant; else the filter value is read as is.
  const float* packed = nullptr;
  bool filter_is_kn = false;  // a runtime filter stored [k, n]
  float lo = 0, hi = 0;
  GemmWorkspace ws;

  void run(Graph& g) override {
    float* y = g.data(out);
    if (packed != nullptr) {
      sgemm(
          Trans::kNo,
          Trans::kNo,
          m,
          n,
          k,
          1.0f,
          g.data(in),
          k,
          packed,
          n,
          0.0f,
          y,
          n,
          ws.data,
          ws.bytes);
    } else if (filter_is_kn) {
      sgemm(
          Trans::kNo,
          Trans::kNo,
          m,
          n,
          k,
          1.0f,
          g.data(in),
          k,
          g.data(filter),
          n,
          0.0f,
          y,
          n,
          ws.data,
          ws.bytes);
    } else {
      sgemm(
          Trans::kNo,
          Trans::kYes,
          m,
          n,
          k,
          1.0f,
          g.data(in),
          k,
          g.data(filter),
          k,
          0.0f,
          y,
          n,
          ws.data,
          ws.bytes);
    }
    add_bias_and_clamp(
        y,
        static_cast<size_t>(m),
        static_cast<size_t>(n),
        bias != kInvalidValueId ? g.data(bias) : nullptr,
        lo,
        hi);
  }
};

}  // namespace

Error build_fully_connected(NodeContext& ctx) {
  const auto* p = ctx.node()->xnode_union_as_XNNFullyConnected();
  auto step = std::make_unique<FullyConnectedStep>();
  Error err = ctx.input(p->input1_id(), "input1_id", &step->in);
  if (err == Error::Ok)
    err = ctx.input(p->filter_id(), "filter_id", &step->filter);
  if (err == Error::Ok)
    err = ctx.optional_input(p->bias_id(), "bias_id", &step->bias);
  if (err == Error::Ok)
    err = ctx.output(p->output_id(), "output_id", &step->out);
  if (err == Error::Ok)
    err = check_flags(ctx, p->flags(), kFlagTransposeWeights);
  if (err != Error::Ok) {
    return err;
  }
  Graph& g = ctx.graph();
  const Value& in = g.value(step->in);
  const Value& filter = g.value(step->filter);
  const Value& out = g.value(step->out);
  const bool kn = (p->flags() & kFlagTransposeWeights) != 0;
  if (in.dims.empty() || filter.dims.size() != 2 || out.dims.empty()) {
    return ctx.invalid(
        "needs input rank >= 1, a 2-D filter and output rank >= 1");
  }
  const size_t k = in.dims.back();
  const size_t n = kn ? filter.dims[1] : filter.dims[0];
  if ((kn ? filter.dims[0] : filter.dims[1]) != k) {
    return ctx.invalid(
        "filter [%zu, %zu] does not match input channels %zu",
        filter.dims[0],
        filter.dims[1],
        k);
  }
  const size_t m = k == 0 ? 0 : in.numel / k;
  if (out.dims.back() != n || out.numel != m * n) {
    return ctx.invalid(
        "output has %zu elements (last dim %zu), expected %zu x %zu",
        out.numel,
        out.dims.back(),
        m,
        n);
  }
  if (step->bias != kInvalidValueId && g.value(step->bias).numel != n) {
    return ctx.invalid(
        "bias has %zu elements, expected %zu", g.value(step->bias).numel, n);
  }
  step->m = static_cast<int64_t>(m);
  step->n = static_cast<int64_t>(n);
  step->k = static_cast<int64_t>(k);
  step->lo = ctx.output_min();
  step->hi = ctx.output_max();
  step->filter_is_kn = kn;
  if (filter.is_constant) {
    // Pack once: [k, n] row-major, the layout sgemm reads without transposition.
    float* packed = g.allocate_floats(k * n);
    if (packed == nullptr) {
      return Error::MemoryAllocationFailed;
    }
    for (size_t r = 0; r < k; ++r) {
      for (size_t c = 0; c < n; ++c) {
        packed[r * n + c] =
            kn ? filter.data[r * n + c] : filter.data[c * k + r];
      }
    }
    step->packed = packed;
  }
  if (!step->ws.allocate(g, step->m, step->n, step->k)) {
    return Error::MemoryAllocationFailed;
  }
  return ctx.accept(std::move(step));
}

namespace {

class BatchMatMulStep final : public Step {
 public:
  uint32_t a = 0, b = 0, out = 0;
  int64_t m = 0, n = 0, k = 0;
  bool b_transposed = false;
  // Element offsets of each output batch's operands (batch dims broadcast).
  std::vector<size_t> a_offsets, b_offsets;
  GemmWorkspace ws;

  void run(Graph& g) override {
    const float* pa = g.data(a);
    const float* pb = g.data(b);
    float* y = g.data(out);
    for (size_t i = 0; i < a_offsets.size(); ++i) {
      sgemm(
          Trans::kNo,
          b_transposed ? Trans::kYes : Trans::kNo,
          m,
          n,
          k,
          1.0f,
          pa + a_offsets[i],
          k,
          pb + b_offsets[i],
          b_transposed ? k : n,
          0.0f,
          y + i * m * n,
          n,
          ws.data,
          ws.bytes);
    }
  }
};

}  // namespace

Error build_batch_matmul(NodeContext& ctx) {
  const auto* p = ctx.node()->xnode_union_as_XNNBatchMatrixMultiply();
  auto step = std::make_unique<BatchMatMulStep>();
  Error err = ctx.input(p->input1_id(), "input1_id", &step->a);
  if (err == Error::Ok)
    err = ctx.input(p->input2_id(), "input2_id", &step->b);
  if (err == Error::Ok)
    err = ctx.output(p->output_id(), "output_id", &step->out);
  if (err == Error::Ok)
    err = check_flags(ctx, p->flags(), kFlagTransposeWeights);
  if (err != Error::Ok) {
    return err;
  }
  Graph& g = ctx.graph();
  const auto& da = g.value(step->a).dims;
  const auto& db = g.value(step->b).dims;
  const auto& dy = g.value(step->out).dims;
  const bool bt = (p->flags() & kFlagTransposeWeights) != 0;
  if (da.size() < 2 || db.size() < 2 ||
      dy.size() != std::max(da.size(), db.size())) {
    return ctx.invalid(
        "operands need rank >= 2 and the output the larger rank");
  }
  const size_t m = da[da.size() - 2], k = da.back();
  const size_t kb = bt ? db.back() : db[db.size() - 2];
  const size_t n = bt ? db[db.size() - 2] : db.back();
  if (kb != k || dy[dy.size() - 2] != m || dy.back() != n) {
    return ctx.invalid(
        "[.., %zu, %zu] x [.., %zu, %zu] does not give the output's matrix "
        "shape",
        m,
        k,
        db[db.size() - 2],
        db.back());
  }
  // Batch dims: right-aligned numpy broadcasting.
  const size_t batch_rank = dy.size() - 2;
  std::vector<size_t> a_stride(batch_rank, 0), b_stride(batch_rank, 0);
  size_t sa = m * k, sb = k * n;
  for (size_t i = batch_rank; i-- > 0;) {
    const size_t ia =
        i + da.size() - dy.size();  // may wrap: checked with the rank below
    const size_t ib = i + db.size() - dy.size();
    const size_t xa = (i + da.size() >= dy.size()) ? da[ia] : 1;
    const size_t xb = (i + db.size() >= dy.size()) ? db[ib] : 1;
    if ((xa != dy[i] && xa != 1) || (xb != dy[i] && xb != 1)) {
      return ctx.invalid(
          "batch dim %zu: %zu and %zu do not broadcast to %zu",
          i,
          xa,
          xb,
          dy[i]);
    }
    a_stride[i] = xa == 1 ? 0 : sa;
    b_stride[i] = xb == 1 ? 0 : sb;
    sa *= xa;
    sb *= xb;
  }
  const size_t batches = (m * n == 0) ? 0 : g.value(step->out).numel / (m * n);
  step->a_offsets.resize(batches);
  step->b_offsets.resize(batches);
  for (size_t bi = 0; bi < batches; ++bi) {
    size_t rem = bi, oa = 0, ob = 0;
    for (size_t i = batch_rank; i-- > 0;) {
      const size_t idx = rem % dy[i];
      rem /= dy[i];
      oa += idx * a_stride[i];
      ob += idx * b_stride[i];
    }
    step->a_offsets[bi] = oa;
    step->b_offsets[bi] = ob;
  }
  step->m = static_cast<int64_t>(m);
  step->n = static_cast<int64_t>(n);
  step->k = static_cast<int64_t>(k);
  step->b_transposed = bt;
  if (!step->ws.allocate(g, step->m, step->n, step->k)) {
    return Error::MemoryAllocationFailed;
  }
  return ctx.accept(std::move(step));
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
