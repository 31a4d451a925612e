// Helpers shared by the compute-core benchmarks (bench/sgemm_bench.cpp, bench/shape_file_bench.cpp):
// thread CPU time, medians, random data, and the naive loops whose results the fast paths are
// checked against before anything is timed.
#pragma once

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <vector>

#include <executorch/runtime/kernels/compute/conv.h>

namespace compute_bench {

// This thread's CPU time: on a shared 2-core machine (parallel builds, other benchmarks) the
// wall clock also counts time the thread was descheduled, which says nothing about the code.
// On an idle machine the two agree. Cache interference from neighbours still shows.
inline double now_s() {
  timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

inline double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

inline std::vector<float> random_vec(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v)
    x = d(rng);
  return v;
}

// C[m,n] = A[m,k] * B[k,n]: the textbook i-j-p loop, "what you get without blocking".
inline void naive_sgemm(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float s = 0.0f;
      for (int64_t p = 0; p < k; ++p)
        s += a[i * k + p] * b[p * n + j];
      c[i * n + j] = s;
    }
}

// Direct NCHW convolution with PyTorch's parameters; bias may be null.
inline void naive_conv(const executorch::kernels::compute::Conv2dParams& p, const float* x,
                       const float* w, const float* bias, float* y) {
  using executorch::kernels::compute::conv2d_out_h;
  using executorch::kernels::compute::conv2d_out_w;
  int64_t oh = conv2d_out_h(p), ow = conv2d_out_w(p);
  int64_t cig = p.in_channels / p.groups, cog = p.out_channels / p.groups;
  for (int64_t nb = 0; nb < p.batch; ++nb)
    for (int64_t oc = 0; oc < p.out_channels; ++oc) {
      int64_t g = oc / cog;
      for (int64_t yy = 0; yy < oh; ++yy)
        for (int64_t xx = 0; xx < ow; ++xx) {
          float s = bias ? bias[oc] : 0.0f;
          for (int64_t ic = 0; ic < cig; ++ic)
            for (int64_t r = 0; r < p.kernel_h; ++r) {
              int64_t iy = yy * p.stride_h - p.pad_h + r * p.dilation_h;
              if (iy < 0 || iy >= p.in_h)
                continue;
              for (int64_t q = 0; q < p.kernel_w; ++q) {
                int64_t ix = xx * p.stride_w - p.pad_w + q * p.dilation_w;
                if (ix < 0 || ix >= p.in_w)
                  continue;
                s += x[((nb * p.in_channels + g * cig + ic) * p.in_h + iy) * p.in_w + ix] *
                     w[((oc * cig + ic) * p.kernel_h + r) * p.kernel_w + q];
              }
            }
          y[((nb * p.out_channels + oc) * oh + yy) * ow + xx] = s;
        }
    }
}

}  // namespace compute_bench
