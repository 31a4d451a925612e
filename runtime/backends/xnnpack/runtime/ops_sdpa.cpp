// ScaledDotProductAttention: out = softmax((query * scale) . key^T + mask) . value.
//
// Upstream's exporter wrote this node (backends/xnnpack/operators/op_sdpa.py, for
// F.scaled_dot_product_attention with a 2-D float mask) until the op was withdrawn; programs
// exported then still carry it. Shapes as XNNPACK defines the node: query [*, H, T, C],
// key [*, H, U, C] and value [*, H, U, D] (or [*, U, C] / [*, U, D]: one head shared by all
// query heads), scale [C] multiplying each query channel, mask [T, U] added to the logits,
// output [*, H, T, D]; * is zero or more batch dims equal in all of them.
#include <cmath>
#include <limits>
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

class SdpaStep final : public Step {
 public:
  uint32_t q = 0, k = 0, v = 0, scale = 0, mask = 0, out = 0;
  size_t batches = 0, heads = 0, t = 0, u = 0, c = 0, d = 0;
  bool shared_kv = false;     // key/value have no heads dim
  float* scaled_q = nullptr;  // [T, C]
  float* logits = nullptr;    // [T, U]
  float* workspace = nullptr;
  size_t workspace_bytes = 0;

  void run(Graph& g) override {
    const float* query = g.data(q);
    const float* key = g.data(k);
    const float* value = g.data(v);
    const float* s = g.data(scale);
    const float* m = g.data(mask);
    float* y = g.data(out);
    const int64_t T = static_cast<int64_t>(t), U = static_cast<int64_t>(u);
    const int64_t C = static_cast<int64_t>(c), D = static_cast<int64_t>(d);
    for (size_t b = 0; b < batches; ++b) {
      for (size_t h = 0; h < heads; ++h) {
        const size_t kv_head = shared_kv ? b : b * heads + h;
        const float* qh = query + (b * heads + h) * t * c;
        const float* kh = key + kv_head * u * c;
        const float* vh = value + kv_head * u * d;
        for (size_t i = 0; i < t; ++i) {
          for (size_t j = 0; j < c; ++j) {
            scaled_q[i * c + j] = qh[i * c + j] * s[j];
          }
        }
        sgemm(
            Trans::kNo,
            Trans::kYes,
            T,
            U,
            C,
            1.0f,
            scaled_q,
            C,
            kh,
            C,
            0.0f,
            logits,
            U,
            workspace,
            workspace_bytes);
        for (size_t i = 0; i < t; ++i) {
          softmax_row(logits + i * u, m + i * u);
        }
        sgemm(
            Trans::kNo,
            Trans::kNo,
            T,
            D,
            U,
            1.0f,
            logits,
            U,
            vh,
            D,
            0.0f,
            y + (b * heads + h) * t * d,
            D,
            workspace,
            workspace_bytes);
      }
    }
  }

 private:
  // row = softmax(row + mask_row), in place.
  void softmax_row(float* row, const float* mask_row) const {
    float max = -std::numeric_limits<float>::infinity();
    for (size_t j = 0; j < u; ++j) {
      row[j] += mask_row[j];
      max = std::max(max, row[j]);
    }
    float sum = 0.0f;
    for (size_t j = 0; j < u; ++j) {
      row[j] = std::exp(row[j] - max);
      sum += row[j];
    }
    const float inv = 1.0f / sum;
    for (size_t j = 0; j < u; ++j) {
      row[j] *= inv;
    }
  }
};

}  // namespace

Error build_sdpa(NodeContext& ctx) {
  const auto* p = ctx.node()->xnode_union_as_XNNScaledDotProductAttention();
  auto step = std::make_unique<SdpaStep>();
  Error err = ctx.input(p->query_id(), "query_id", &step->q);
  if (err == Error::Ok)
    err = ctx.input(p->key_id(), "key_id", &step->k);
  if (err == Error::Ok)
    err = ctx.input(p->value_id(), "value_id", &step->v);
  if (err == Error::Ok)
    err = ctx.input(p->scale_id(), "scale_id", &step->scale);
  if (err == Error::Ok)
    err = ctx.input(p->mask_id(), "mask_id", &step->mask);
  if (err == Error::Ok)
    err = ctx.output(p->output_id(), "output_id", &step->out);
  if (err == Error::Ok)
    err = check_flags(ctx, p->flags(), 0);
  if (err != Error::Ok) {
    return err;
  }
  Graph& g = ctx.graph();
  const auto& dq = g.value(step->q).dims;
  const auto& dk = g.value(step->k).dims;
  const auto& dv = g.value(step->v).dims;
  const auto& ds = g.value(step->scale).dims;
  const auto& dm = g.value(step->mask).dims;
  const auto& dy = g.value(step->out).dims;
  if (dq.size() < 3) {
    return ctx.invalid(
        "query needs rank >= 3 [*, H, T, C], got %zu", dq.size());
  }
  const size_t rank = dq.size();
  const size_t batch_rank = rank - 3;
  const size_t heads = dq[rank - 3], t = dq[rank - 2], c = dq[rank - 1];
  const bool shared_kv = dk.size() == rank - 1;
  if ((dk.size() != rank && !shared_kv) || dv.size() != dk.size()) {
    return ctx.invalid(
        "key (rank %zu) and value (rank %zu) need the query's rank %zu or one "
        "less (shared by all heads), both the same",
        dk.size(),
        dv.size(),
        rank);
  }
  const size_t kr = dk.size();
  for (size_t i = 0; i < batch_rank; ++i) {
    if (dk[i] != dq[i] || dv[i] != dq[i] || dy.size() != rank ||
        dy[i] != dq[i]) {
      return ctx.invalid("batch dim %zu differs between the operands", i);
    }
  }
  if (!shared_kv && (dk[kr - 3] != heads || dv[kr - 3] != heads)) {
    return ctx.invalid(
        "key heads %zu and value heads %zu must equal query heads %zu",
        dk[kr - 3],
        dv[kr - 3],
        heads);
  }
  const size_t u = dk[kr - 2], d = dv[kr - 1];
  if (dk[kr - 1] != c || dv[kr - 2] != u) {
    return ctx.invalid(
        "key [.., %zu, %zu] and value [.., %zu, %zu] do not match query "
        "channels %zu",
        u,
        dk[kr - 1],
        dv[kr - 2],
        d,
        c);
  }
  if (ds != std::vector<size_t>{c} || dm != std::vector<size_t>{t, u}) {
    return ctx.invalid("scale must be [%zu] and mask [%zu, %zu]", c, t, u);
  }
  if (dy.size() != rank || dy[rank - 3] != heads || dy[rank - 2] != t ||
      dy[rank - 1] != d) {
    return ctx.invalid(
        "output must be [*, %zu, %zu, %zu] of rank %zu", heads, t, d, rank);
  }
  size_t batches = 1;
  for (size_t i = 0; i < batch_rank; ++i) {
    batches *= dq[i];
  }
  step->batches = batches;
  step->heads = heads;
  step->t = t;
  step->u = u;
  step->c = c;
  step->d = d;
  step->shared_kv = shared_kv;
  const int64_t T = static_cast<int64_t>(t), U = static_cast<int64_t>(u);
  step->workspace_bytes = std::max(
      sgemm_workspace_size(T, U, static_cast<int64_t>(c)),
      sgemm_workspace_size(T, static_cast<int64_t>(d), U));
  step->scaled_q = g.allocate_floats(t * c);
  step->logits = g.allocate_floats(t * u);
  step->workspace =
      g.allocate_floats(step->workspace_bytes / sizeof(float) + 1);
  if (step->scaled_q == nullptr || step->logits == nullptr ||
      step->workspace == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  return ctx.accept(std::move(step));
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
