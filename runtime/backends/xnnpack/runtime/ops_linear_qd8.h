// The fully connected of a dynamically quantized (qdint8) input with 4-bit blockwise (qbint4)
// weights, run on the integers with XNNPACK's arithmetic (compute/qd8_qb4w.h). The
// FullyConnected step (ops_linear.cpp) hands its product to this when the operands are so
// quantized; shapes and the output's dims stay that step's business.
#pragma once

#include <cstdint>
#include <memory>

#include "graph.h"

namespace executorch {
namespace backends {
namespace xnnpack {

class Qd8Qb4wLinear {
 public:
  // The packed weights when `in` is a qdint8 value with one row per input row (its rows are the
  // innermost dim, of k elements) and `filter` a [n, k] qbint4 constant; nullptr otherwise (the
  // float path applies), or when allocation fails (*out_of_memory then set).
  static std::unique_ptr<Qd8Qb4wLinear> make(
      Graph& g,
      uint32_t in,
      uint32_t filter,
      bool filter_is_kn,
      int64_t n,
      int64_t k,
      bool* out_of_memory);

  // y [m, n] from the m rows the input's quantize step last wrote.
  void run(
      const Graph& g,
      uint32_t in,
      const float* bias,
      float* y,
      int64_t m,
      float lo,
      float hi) const;

 private:
  int64_t n_ = 0, k_ = 0, block_ = 0;
  const void* packed_ = nullptr;
};

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
