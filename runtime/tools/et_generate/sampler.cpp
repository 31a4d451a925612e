#include "sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace et_generate {

int64_t Sampler::sample(const float* logits, int64_t vocab) {
  int64_t best = 0;
  for (int64_t i = 1; i < vocab; ++i) {
    if (logits[i] > logits[best]) {
      best = i;
    }
  }
  if (config_.temperature == 0.0f) {
    return best;
  }
  // Softmax in double, relative to the maximum so exp never overflows.
  std::vector<double> p(static_cast<size_t>(vocab));
  double sum = 0.0;
  for (int64_t i = 0; i < vocab; ++i) {
    p[i] = std::exp(
        (static_cast<double>(logits[i]) - logits[best]) / config_.temperature);
    sum += p[i];
  }
  std::vector<int64_t> order(static_cast<size_t>(vocab));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return p[a] > p[b];
  });
  // The smallest prefix of the most likely tokens whose mass reaches top_p.
  double kept_mass = 0.0;
  size_t keep = 0;
  while (keep < order.size()) {
    kept_mass += p[order[keep]] / sum;
    ++keep;
    if (kept_mass >= config_.top_p) {
      break;
    }
  }
  std::uniform_real_distribution<double> uniform(0.0, kept_mass * sum);
  double target = uniform(rng_);
  for (size_t i = 0; i < keep; ++i) {
    target -= p[order[i]];
    if (target <= 0.0) {
      return order[i];
    }
  }
  return order[keep - 1];
}

}  // namespace et_generate
