// et_generate's token choice: greedy argmax or temperature + top-p (nucleus) sampling.
#pragma once

#include <cstdint>
#include <random>

namespace et_generate {

struct SamplerConfig {
  float temperature = 0.0f;  // 0: greedy
  float top_p = 1.0f;        // in (0, 1]
  uint64_t seed = 0;
};

class Sampler {
 public:
  explicit Sampler(const SamplerConfig& config)
      : config_(config), rng_(config.seed) {}

  // Picks the next token from `vocab` logits. Greedy ties go to the lowest id.
  int64_t sample(const float* logits, int64_t vocab);

 private:
  SamplerConfig config_;
  std::mt19937_64 rng_;
};

}  // namespace et_generate
