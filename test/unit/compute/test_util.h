// Shared helpers for the compute-core tests: the ISA levels to run, random data.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <executorch/runtime/kernels/compute/conv_nhwc.h>
#include <executorch/runtime/kernels/compute/isa.h>

namespace compute_test {

using executorch::kernels::compute::Isa;

// Every level up to what this CPU reports: baseline always, so a machine without AVX still
// exercises the portable path, and the AVX levels wherever they can run.
inline std::vector<Isa> supported_isas() {
  std::vector<Isa> v;
  for (int l = 0; l <= static_cast<int>(executorch::kernels::compute::detected_isa()); ++l)
    v.push_back(static_cast<Isa>(l));
  return v;
}

// The levels with float kernels of their own: on AArch64 the dot-product level runs the NEON
// float kernels (gemm.cpp, conv.cpp and conv_nhwc.cpp map it there), so the float-only suites
// would run the same code twice, which under emulation costs a minute.
inline std::vector<Isa> float_isas() {
  std::vector<Isa> v;
  for (Isa isa : supported_isas()) {
#if defined(__aarch64__)
    if (isa == Isa::kNeonDot)
      continue;
#endif
    v.push_back(isa);
  }
  return v;
}

inline std::string isa_param_name(const testing::TestParamInfo<Isa>& info) {
  return executorch::kernels::compute::isa_name(info.param);
}

inline std::vector<float> random_floats(size_t n, std::mt19937& rng, float lo = -1.0f,
                                        float hi = 1.0f) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v)
    x = d(rng);
  return v;
}

// The NHWC convolution tests' square geometry: pad is the leading padding, the trailing one is
// chosen as for `pad` on both sides (PyTorch's output size), plus `extra` more output
// rows/columns reaching into trailing padding only.
inline executorch::kernels::compute::ConvNhwcParams square_nhwc_params(
    int64_t n, int64_t ci, int64_t hw, int64_t co, int64_t k, int64_t s, int64_t pad, int64_t dil,
    int64_t groups, int64_t extra = 0) {
  executorch::kernels::compute::ConvNhwcParams p;
  p.batch = n;
  p.in_channels = ci;
  p.in_h = p.in_w = hw;
  p.out_channels = co;
  p.kernel_h = p.kernel_w = k;
  p.stride_h = p.stride_w = s;
  p.pad_top = p.pad_left = pad;
  p.dilation_h = p.dilation_w = dil;
  p.groups = groups;
  p.out_h = p.out_w = (hw + 2 * pad - dil * (k - 1) - 1) / s + 1 + extra;
  return p;
}

// Forces an ISA level for a scope (sgemm / conv called through the public entry points).
class IsaScope {
 public:
  explicit IsaScope(Isa isa) {
    executorch::kernels::compute::set_isa_override(isa);
  }
  ~IsaScope() {
    executorch::kernels::compute::clear_isa_override();
  }
  IsaScope(const IsaScope&) = delete;
  IsaScope& operator=(const IsaScope&) = delete;
};

}  // namespace compute_test
