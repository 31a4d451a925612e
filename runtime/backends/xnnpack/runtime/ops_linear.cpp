// FullyConnected and BatchMatrixMultiply on the kernel library's SGEMM (the compute interface
// libexecutorch_kernels.so.1 exports, runtime/kernels/compute/gemm.h).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>

#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/kernels/compute/gemm.h>

#include "int8_conv.h"
#include "node_context.h"
#include "ops_linear_qd8.h"

namespace executorch {
namespace backends {
namespace xnnpack {

using kernels::compute::sgemm;
using kernels::compute::sgemm_prepack_b;
using kernels::compute::sgemm_prepacked_b;
using kernels::compute::sgemm_prepacked_b_size;
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
  // A constant filter packed once into sgemm's panel layout (sgemm_prepack_b): sgemm would
  // otherwise repack it on every call, which made the fully connected layers of ViT and BERT
  // slower than the portable linear (that packs its constant weights at load). Null for a
  // runtime filter, which is read as is.
  const void* packed_b = nullptr;
  bool filter_is_kn = false;  // the filter is stored [k, n] (else [n, k])
  float lo = 0, hi = 0;
  GemmWorkspace ws;
  // A statically quantized layer (int8_conv.h) runs as a 1x1 convolution over its rows on the
  // integer kernels, its scratch sized for int8_max_rows.
  bool use_int8 = false;
  Int8Conv int8;
  int64_t int8_max_rows = 0;
  // Set for a qdint8 input with qbint4 weights: the product runs on the integers instead.
  std::unique_ptr<Qd8Qb4wLinear> qd8;

  // A filter or bias computed or passed at run time may be smaller than its exported bound
  // (the dims are upper bounds), and run() reads n x k and n elements of them: their current
  // shapes must be exactly what the node was planned for.
  Error check_operands(const Graph& g) const {
    const Value& vf = g.value(filter);
    const size_t kk = static_cast<size_t>(k), nn = static_cast<size_t>(n);
    const size_t rows = filter_is_kn ? kk : nn, cols = filter_is_kn ? nn : kk;
    if (vf.dims.size() != 2 || vf.dims[0] != rows || vf.dims[1] != cols) {
      char now[96];
      format_dims(vf.dims, now, sizeof(now));
      return fail(
          Error::InvalidArgument,
          "filter_id %u is %s, the node needs [%zu, %zu]",
          filter,
          now,
          rows,
          cols);
    }
    if (bias != kInvalidValueId && g.value(bias).numel != nn) {
      char now[96];
      format_dims(g.value(bias).dims, now, sizeof(now));
      return fail(
          Error::InvalidArgument,
          "bias_id %u is %s, the node needs %zu elements",
          bias,
          now,
          nn);
    }
    return Error::Ok;
  }

  // The rows follow the input; the channels (k, n) are the filter's and cannot change.
  Error reshape(Graph& g) override {
    const Value& vin = g.value(in);
    const size_t channels = vin.dims.back();
    if (channels != static_cast<size_t>(k)) {
      return fail(
          Error::InvalidArgument,
          "input %u has %zu channels, the filter takes %lld",
          in,
          channels,
          static_cast<long long>(k));
    }
    Error err = check_operands(g);
    if (err != Error::Ok) {
      return err;
    }
    const size_t rows = k == 0 ? 0 : vin.numel / static_cast<size_t>(k);
    Value& vout = g.values[out];
    size_t dims[kMaxDims];
    size_t rank = vout.bound_dims.size();
    if (rank == vin.dims.size()) {
      std::copy(vin.dims.begin(), vin.dims.end(), dims);
      dims[rank - 1] = static_cast<size_t>(n);
    } else if (rank == 2) {
      dims[0] = rows;
      dims[1] = static_cast<size_t>(n);
    } else {
      return fail(
          Error::NotSupported,
          "an output of rank %zu from an input of rank %zu has no rule to "
          "follow a new input shape",
          rank,
          vin.dims.size());
    }
    // The integer products' scratch is sized for the exported rows, the GEMM's in bytes (the
    // qd8 product needs none per row).
    bool short_of_scratch = false;
    if (use_int8) {
      short_of_scratch = static_cast<int64_t>(rows) > int8_max_rows;
    } else if (qd8 == nullptr) {
      short_of_scratch =
          sgemm_workspace_size(static_cast<int64_t>(rows), n, k) > ws.bytes;
    }
    if (short_of_scratch) {
      return fail(
          Error::InvalidArgument,
          "%zu rows need more GEMM scratch than the exported shape",
          rows);
    }
    set_dims(vout, dims, rank);
    m = static_cast<int64_t>(rows);
    return Error::Ok;
  }

  void run(Graph& g) override {
    float* y = g.data(out);
    if (qd8 != nullptr) {
      qd8->run(
          g,
          in,
          bias != kInvalidValueId ? g.data(bias) : nullptr,
          y,
          m,
          lo,
          hi);
      return;
    }
    if (use_int8) {
      int8.params.conv.in_h = int8.params.conv.out_h = m;
      if (m > 0) {
        int8.run(g.data(in), y);
      }
      return;
    }
    // The bias goes in as C with beta 1, as the portable addmm does: the GEMM adds it while it
    // stores, instead of a second pass over the output.
    float beta = 0.0f;
    if (bias != kInvalidValueId) {
      const float* b = g.data(bias);
      for (int64_t r = 0; r < m; ++r)
        std::copy(b, b + n, y + r * n);
      beta = 1.0f;
    }
    // The filter as stored: [k, n] with the transpose flag, else [n, k] (op(B) = W^T).
    const Trans trans_b = filter_is_kn ? Trans::kNo : Trans::kYes;
    const int64_t ldb = filter_is_kn ? n : k;
    if (packed_b != nullptr) {
      sgemm_prepacked_b(
          Trans::kNo,
          trans_b,
          m,
          n,
          k,
          1.0f,
          g.data(in),
          k,
          g.data(filter),
          ldb,
          beta,
          y,
          n,
          packed_b,
          ws.data,
          ws.bytes);
    } else {
      sgemm(
          Trans::kNo,
          trans_b,
          m,
          n,
          k,
          1.0f,
          g.data(in),
          k,
          g.data(filter),
          ldb,
          beta,
          y,
          n,
          ws.data,
          ws.bytes);
    }
    if (lo != -std::numeric_limits<float>::infinity() ||
        hi != std::numeric_limits<float>::infinity()) {
      add_bias_and_clamp(
          y, static_cast<size_t>(m), static_cast<size_t>(n), nullptr, lo, hi);
    }
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
  // m and n come from different values: their product is not bounded by either, and a wrapped
  // one could match the output's element count.
  size_t mn = 0;
  if (out.dims.back() != n || !runtime::detail::checked_mul(m, n, &mn) ||
      out.numel != mn) {
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
  bool out_of_memory = false;
  step->qd8 = Qd8Qb4wLinear::make(
      g, step->in, step->filter, kn, step->n, step->k, &out_of_memory);
  if (out_of_memory) {
    return Error::MemoryAllocationFailed;
  }
  if (step->qd8 != nullptr) {
    return ctx.accept(std::move(step));
  }
  if (!kn && m > 0) {
    // [m, k] x [n, k]^T is the 1x1 convolution of an m x 1 image with k channels.
    kernels::compute::ConvNhwcParams conv;
    conv.in_h = conv.out_h = step->m;
    conv.in_w = conv.out_w = 1;
    conv.in_channels = step->k;
    conv.out_channels = step->n;
    conv.clamp_min = step->lo;
    conv.clamp_max = step->hi;
    step->use_int8 = prepare_int8_conv(
        g,
        step->in,
        step->filter,
        step->bias,
        step->out,
        conv,
        /*depthwise=*/false,
        &step->int8,
        &err);
    if (err != Error::Ok) {
      return err;
    }
    if (step->use_int8) {
      step->int8_max_rows = step->m;
      step->rounds_quantized_outputs = true;
      return ctx.accept(std::move(step));
    }
  }
  if (filter.is_constant) {
    const size_t bytes = sgemm_prepacked_b_size(step->k, step->n);
    // 64 bytes of slack to align the panels.
    float* block = g.allocate_floats((bytes + 64) / sizeof(float) + 1);
    if (block == nullptr) {
      return Error::MemoryAllocationFailed;
    }
    const uintptr_t at =
        (reinterpret_cast<uintptr_t>(block) + 63) & ~uintptr_t{63};
    void* dst = reinterpret_cast<void*>(at);
    sgemm_prepack_b(
        kn ? Trans::kNo : Trans::kYes,
        step->k,
        step->n,
        filter.data,
        kn ? step->n : step->k,
        dst);
    step->packed_b = dst;
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
  // The batch loop: output batch dims and each operand's element stride along them (0 where
  // it is broadcast). Each batch's offsets are derived from these in run(), a few divisions per
  // GEMM: tables of them would need memory by the batch count, which the payload sets.
  size_t batch_rank = 0, batches = 0;
  size_t batch_dims[kMaxDims] = {};
  size_t a_stride[kMaxDims] = {}, b_stride[kMaxDims] = {};
  // Set once the scratch is allocated for the exported shapes: a reshape must fit in it.
  bool scratch_sized = false;
  GemmWorkspace ws;

  // Computes the output dims (into dy, of rank max(rank a, rank b)) and the loop plan for
  // operands of dims da and db.
  bool plan(
      const std::vector<size_t>& da,
      const std::vector<size_t>& db,
      size_t* dy,
      ShapeError* why) {
    const bool bt = b_transposed;
    const size_t rank = std::max(da.size(), db.size());
    const size_t mm = da[da.size() - 2], kk = da.back();
    const size_t kb = bt ? db.back() : db[db.size() - 2];
    const size_t nn = bt ? db[db.size() - 2] : db.back();
    if (kb != kk) {
      return why->set(
          "[.., %zu, %zu] x [.., %zu, %zu]: the inner dims differ",
          mm,
          kk,
          db[db.size() - 2],
          db.back());
    }
    // Batch dims: right-aligned numpy broadcasting. The strides are products of an operand's
    // own dims (bounded when values are read); the batch count multiplies dims of both, which
    // only the output's check at init bounds, so it is checked here.
    size_t sa = mm * kk, sb = kk * nn, count = 1;
    for (size_t i = rank - 2; i-- > 0;) {
      const size_t xa = (i + da.size() >= rank) ? da[i + da.size() - rank] : 1;
      const size_t xb = (i + db.size() >= rank) ? db[i + db.size() - rank] : 1;
      if (xa != xb && xa != 1 && xb != 1) {
        return why->set(
            "batch dim %zu: %zu and %zu do not broadcast", i, xa, xb);
      }
      dy[i] = xa == 1 ? xb : xa;
      a_stride[i] = xa == 1 ? 0 : sa;
      b_stride[i] = xb == 1 ? 0 : sb;
      sa *= xa;
      sb *= xb;
      if (!runtime::detail::checked_mul(count, dy[i], &count)) {
        return why->set("the batch dims' product overflows");
      }
    }
    dy[rank - 2] = mm;
    dy[rank - 1] = nn;
    if (scratch_sized && sgemm_workspace_size(
                             static_cast<int64_t>(mm),
                             static_cast<int64_t>(nn),
                             static_cast<int64_t>(kk)) > ws.bytes) {
      return why->set(
          "[%zu, %zu] x [%zu, %zu] needs more GEMM scratch than the exported "
          "shape",
          mm,
          kk,
          kk,
          nn);
    }
    std::copy(dy, dy + rank - 2, batch_dims);
    batch_rank = rank - 2;
    batches = mm * nn == 0 ? 0 : count;
    m = static_cast<int64_t>(mm);
    n = static_cast<int64_t>(nn);
    k = static_cast<int64_t>(kk);
    return true;
  }

  Error reshape(Graph& g) override {
    const auto& da = g.value(a).dims;
    const auto& db = g.value(b).dims;
    size_t dy[kMaxDims];
    ShapeError why;
    if (!plan(da, db, dy, &why)) {
      return fail(Error::InvalidArgument, "%s", why.message);
    }
    set_dims(g.values[out], dy, std::max(da.size(), db.size()));
    return Error::Ok;
  }

  void run(Graph& g) override {
    const float* pa = g.data(a);
    const float* pb = g.data(b);
    float* y = g.data(out);
    for (size_t i = 0; i < batches; ++i) {
      size_t rest = i, oa = 0, ob = 0;
      for (size_t d = batch_rank; d-- > 0;) {
        const size_t idx = rest % batch_dims[d];
        rest /= batch_dims[d];
        oa += idx * a_stride[d];
        ob += idx * b_stride[d];
      }
      sgemm(
          Trans::kNo,
          b_transposed ? Trans::kYes : Trans::kNo,
          m,
          n,
          k,
          1.0f,
          pa + oa,
          k,
          pb + ob,
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
  if (da.size() < 2 || db.size() < 2) {
    return ctx.invalid("operands need rank >= 2");
  }
  step->b_transposed = (p->flags() & kFlagTransposeWeights) != 0;
  size_t dy[kMaxDims];
  ShapeError why;
  if (!step->plan(da, db, dy, &why)) {
    return ctx.invalid("%s", why.message);
  }
  err = ctx.expect_output_dims(step->out, dy, std::max(da.size(), db.size()));
  if (err != Error::Ok) {
    return err;
  }
  // From now on a reshape uses at most the scratch planned for the exported shapes.
  if (!step->ws.allocate(g, step->m, step->n, step->k)) {
    return Error::MemoryAllocationFailed;
  }
  step->scratch_sized = true;
  return ctx.accept(std::move(step));
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
