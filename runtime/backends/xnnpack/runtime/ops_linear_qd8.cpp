// Qd8Qb4wLinear (ops_linear_qd8.h).
#include "ops_linear_qd8.h"

#include <executorch/runtime/kernels/compute/qd8_qb4w.h>

namespace executorch {
namespace backends {
namespace xnnpack {

namespace compute = kernels::compute;

std::unique_ptr<Qd8Qb4wLinear> Qd8Qb4wLinear::make(
    Graph& g,
    uint32_t in,
    uint32_t filter,
    bool filter_is_kn,
    int64_t n,
    int64_t k,
    bool* out_of_memory) {
  *out_of_memory = false;
  const Quant& q = g.value(in).quant;
  const Value& w = g.value(filter);
  if (q.kind != Quant::Kind::kDynamicPerRow || q.row_dims != 1 ||
      q.row_size != static_cast<size_t>(k) || w.int4_blockwise == nullptr ||
      filter_is_kn) {
    return nullptr;
  }
  const Int4Blockwise& blocks = *w.int4_blockwise;
  const int64_t block = static_cast<int64_t>(blocks.block);
  const size_t bytes = compute::qb4w_packed_size(n, k, block);
  if (bytes == 0 || blocks.nibbles.size() != static_cast<size_t>(n * k / 2) ||
      blocks.scales.size() != static_cast<size_t>(n * (k / block))) {
    return nullptr;
  }
  // 64 bytes of slack to align the panels.
  float* storage = g.allocate_floats((bytes + 64) / sizeof(float) + 1);
  if (storage == nullptr) {
    *out_of_memory = true;
    return nullptr;
  }
  void* dst = reinterpret_cast<void*>(
      (reinterpret_cast<uintptr_t>(storage) + 63) & ~uintptr_t{63});
  if (!compute::qb4w_pack(
          n, k, block, blocks.nibbles.data(), blocks.scales.data(), dst)) {
    return nullptr;
  }
  // This product never reads the filter's decoded floats.
  --g.values[filter].float_readers;
  auto linear = std::unique_ptr<Qd8Qb4wLinear>(new Qd8Qb4wLinear());
  linear->n_ = n;
  linear->k_ = k;
  linear->block_ = block;
  linear->packed_ = dst;
  return linear;
}

void Qd8Qb4wLinear::run(
    const Graph& g,
    uint32_t in,
    const float* bias,
    float* y,
    int64_t m,
    float lo,
    float hi) const {
  const Quant& q = g.value(in).quant;
  compute::qd8_qb4w_gemm(
      m,
      n_,
      k_,
      block_,
      q.codes,
      k_,
      q.row_zero_point,
      q.row_scale,
      packed_,
      bias,
      lo,
      hi,
      y,
      n_);
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
