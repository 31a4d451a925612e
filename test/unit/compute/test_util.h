// Shared helpers for the compute-core tests: the ISA levels to run, random data.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

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
