// SGEMM / convolution benchmark for the compute core (make bench-sgemm).
//
// Measures, on one core, in interleaved rounds (every variant runs once per round, so drifts in
// clock speed or a noisy neighbour hit all of them alike) and reports medians:
//  - the machine's register-only multiply-add peak for each ISA level the CPU supports;
//  - SGEMM 512x512x512 (NN and NT, the linear layout) through the blocked driver at each level,
//    with its fraction of that level's peak and of the best level's peak;
//  - a naive triple loop on the same data, as the reference the speed-up is quoted against;
//  - a few convolution shapes from MobileNetV2-like networks against a naive direct loop, with
//    their share of the SGEMM's GFLOP/s, through the NCHW routines and through the NHWC ones
//    (the path channels-last CNNs and the XNNPACK backend run on).
//  - with --shapes FILE, the shapes listed there (the zoo's, bench/harness/data/zoo_shapes.txt)
//    through the kernels' own entry points at the best ISA (bench/shape_file_bench.cpp).
// Usage: sgemm_bench [--size N] [--rounds R] [--shapes FILE]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <time.h>

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/runtime/kernels/compute/conv.h>
#include <executorch/runtime/kernels/compute/conv_nhwc.h>
#include <executorch/runtime/kernels/compute/gemm.h>
#include <executorch/runtime/kernels/compute/isa.h>

#include "compute_bench_util.h"
#include "shape_file_bench.h"
#include "fma_peak.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

using namespace executorch::kernels::compute;
using namespace compute_bench;

namespace {

// Baseline SSE2 peak lives here (this TU is baseline); the AVX ones are in their own TUs.
float fma_peak_baseline_impl(int64_t iters, float x) {
#if defined(__SSE2__)
  __m128 acc[12];
  const __m128 m = _mm_set1_ps(0.999999f), add = _mm_set1_ps(x);
  for (int i = 0; i < 12; ++i)
    acc[i] = _mm_set1_ps(x + static_cast<float>(i));
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i)
      acc[i] = _mm_add_ps(_mm_mul_ps(acc[i], m), add);
  }
  __m128 s = acc[0];
  for (int i = 1; i < 12; ++i)
    s = _mm_add_ps(s, acc[i]);
  float out[4];
  _mm_storeu_ps(out, s);
  return out[0] + out[3];
#else
  float acc[48];
  for (int i = 0; i < 48; ++i)
    acc[i] = x + i;
  for (int64_t it = 0; it < iters; ++it)
    for (int i = 0; i < 48; ++i)
      acc[i] = acc[i] * 0.999999f + x;
  float s = 0;
  for (int i = 0; i < 48; ++i)
    s += acc[i];
  return s;
#endif
}

#if defined(__aarch64__)
// NEON FMA peak (both neon levels: SDOT adds nothing to float math). Advanced SIMD is part of
// the base architecture, so it lives in this TU. 16 chains cover two or four FMA pipes with a
// 4-cycle latency.
constexpr int64_t kPeakFlopsNeon = 2 * 4 * 16;
float fma_peak_neon(int64_t iters, float x) {
  float32x4_t acc[16];
  const float32x4_t m = vdupq_n_f32(0.999999f), add = vdupq_n_f32(x);
  for (int i = 0; i < 16; ++i)
    acc[i] = vdupq_n_f32(x + static_cast<float>(i));
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i)
      acc[i] = vfmaq_f32(add, acc[i], m);
  }
  float32x4_t s = acc[0];
  for (int i = 1; i < 16; ++i)
    s = vaddq_f32(s, acc[i]);
  return vgetq_lane_f32(s, 0) + vgetq_lane_f32(s, 3);
}
#endif

volatile float g_sink;

// GFLOP/s of one peak run at `isa`.
double peak_gflops(Isa isa) {
  const int64_t iters = 20 * 1000 * 1000;
  double t0 = now_s();
  float r;
  int64_t flops;
  switch (isa) {
#if defined(__x86_64__)
    case Isa::kAvx512:
      r = fma_peak_avx512(iters, 1.0f);
      flops = kPeakFlopsAvx512;
      break;
    case Isa::kAvx2:
      r = fma_peak_avx2(iters, 1.0f);
      flops = kPeakFlopsAvx2;
      break;
#elif defined(__aarch64__)
    case Isa::kNeonDot:
    case Isa::kNeon:
      r = fma_peak_neon(iters, 1.0f);
      flops = kPeakFlopsNeon;
      break;
#endif
    default:
      r = fma_peak_baseline_impl(iters, 1.0f);
      flops = kPeakFlopsBaseline;
      break;
  }
  double t = now_s() - t0;
  g_sink = r;
  return static_cast<double>(flops) * iters / t * 1e-9;
}

template <typename F>
double time_best_of_reps(F&& f, double min_s) {
  // Repeats f until min_s has passed and returns seconds per call for this round.
  int reps = 0;
  double t0 = now_s(), t;
  do {
    f();
    ++reps;
    t = now_s() - t0;
  } while (t < min_s);
  return t / reps;
}

// A convolution case's operands in PyTorch's layouts (NCHW input, OIHW weight).
struct CaseData {
  std::vector<float> x, w, bias;
};

// "  93.1%" for a product-shaped convolution, blank for a depthwise one.
std::string share_of(const Conv2dParams& p, double gflops, double sgemm_gflops) {
  if (p.groups > 1 && p.groups == p.in_channels)
    return "       -";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%7.1f%%", 100.0 * gflops / sgemm_gflops);
  return buf;
}

// One shape ready for the NHWC routines: the input transposed to NHWC, the filter packed
// (dense) or laid out [kh, kw, c] (depthwise), and a call writing the NHWC output.
struct NhwcCase {
  ConvNhwcParams q;
  std::vector<float> x, dw_filter, bias;
  std::vector<unsigned char> packed, ws;
  size_t y_size = 0;
  bool depthwise = false;
  void run(float* y) const {
    if (depthwise) {
      depthwise_conv2d_nhwc(q, dw_filter.data(), bias.data(), x.data(), y);
    } else {
      conv2d_nhwc(q, packed.data(), x.data(), y, const_cast<unsigned char*>(ws.data()), ws.size());
    }
  }
};

NhwcCase nhwc_case(const Conv2dParams& p, const CaseData& d) {
  NhwcCase c;
  c.q = nhwc_params_of(p, conv2d_out_h(p), conv2d_out_w(p));
  const ConvNhwcParams& q = c.q;
  const int64_t hw = p.in_h * p.in_w, khw = p.kernel_h * p.kernel_w;
  c.x.resize(d.x.size());
  for (int64_t ch = 0; ch < p.in_channels; ++ch)
    for (int64_t i = 0; i < hw; ++i)
      c.x[i * p.in_channels + ch] = d.x[ch * hw + i];
  c.bias = d.bias;
  c.y_size = static_cast<size_t>(q.out_h * q.out_w * q.out_channels);
  c.depthwise = p.groups > 1 && p.groups == p.in_channels && p.out_channels == p.in_channels;
  if (c.depthwise) {
    c.dw_filter.resize(d.w.size());
    for (int64_t oc = 0; oc < p.out_channels; ++oc)
      for (int64_t t = 0; t < khw; ++t)
        c.dw_filter[t * p.out_channels + oc] = d.w[oc * khw + t];
    return c;
  }
  // OIHW -> OHWI, then packed.
  const int64_t gic = p.in_channels / p.groups;
  std::vector<float> ohwi(d.w.size());
  for (int64_t oc = 0; oc < p.out_channels; ++oc)
    for (int64_t ci = 0; ci < gic; ++ci)
      for (int64_t t = 0; t < khw; ++t)
        ohwi[(oc * khw + t) * gic + ci] = d.w[(oc * gic + ci) * khw + t];
  c.packed.resize(conv2d_nhwc_packed_size(q));
  conv2d_nhwc_pack(q, ohwi.data(), c.bias.data(), c.packed.data());
  c.ws.resize(conv2d_nhwc_workspace_size(q));
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t size = 512;
  int rounds = 7;
  const char* shapes = nullptr;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--size") == 0)
      size = std::atoll(argv[i + 1]);
    if (std::strcmp(argv[i], "--rounds") == 0)
      rounds = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--shapes") == 0)
      shapes = argv[i + 1];
  }
  // One thread, as the header says: the compute core splits large products and convolutions
  // across the runtime's pool, and this thread's CPU time would then miss the workers' share.
  if (!executorch::extension::threadpool::set_num_threads(1)) {
    std::fprintf(stderr, "cannot run the thread pool with one thread\n");
    return 1;
  }
  std::vector<Isa> isas;
  for (int l = 0; l <= static_cast<int>(detected_isa()); ++l)
    isas.push_back(static_cast<Isa>(l));
  std::printf(
      "compute-core benchmark: 1 thread (thread CPU time), %d interleaved rounds, medians; "
      "CPU best ISA: %s\n",
      rounds, isa_name(detected_isa()));

  std::mt19937 rng(42);
  const int64_t m = size, n = size, k = size;
  std::vector<float> a = random_vec(m * k, rng), b = random_vec(k * n, rng);
  std::vector<float> bt(n * k);
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j)
      bt[j * k + p] = b[p * n + j];
  std::vector<float> c(m * n), c_ref(m * n);
  std::vector<unsigned char> ws(sgemm_workspace_size(m, n, k) + 64);
  const double gflop = 2.0 * m * n * k * 1e-9;

  // Correctness first (a fast wrong answer is not a result).
  naive_sgemm(m, n, k, a.data(), b.data(), c_ref.data());
  for (Isa isa : isas) {
    for (int t = 0; t < 2; ++t) {
      sgemm_isa(isa, Trans::kNo, t ? Trans::kYes : Trans::kNo, m, n, k, 1.0f, a.data(), k,
                t ? bt.data() : b.data(), t ? k : n, 0.0f, c.data(), n, ws.data(), ws.size());
      double err = 0;
      for (int64_t i = 0; i < m * n; ++i)
        err = std::max(err, static_cast<double>(std::fabs(c[i] - c_ref[i])));
      if (err > 1e-3 * std::sqrt(static_cast<double>(k))) {
        std::fprintf(stderr, "sgemm %s wrong: max abs err %g\n", isa_name(isa), err);
        return 1;
      }
    }
  }

  const size_t ni = isas.size();
  std::vector<std::vector<double>> peak(ni), nn(ni), nt(ni);
  std::vector<double> naive;
  for (int r = 0; r < rounds; ++r) {
    for (size_t i = 0; i < ni; ++i) {
      Isa isa = isas[i];
      peak[i].push_back(peak_gflops(isa));
      nn[i].push_back(gflop / time_best_of_reps(
                                  [&] {
                                    sgemm_isa(isa, Trans::kNo, Trans::kNo, m, n, k, 1.0f, a.data(),
                                              k, b.data(), n, 0.0f, c.data(), n, ws.data(),
                                              ws.size());
                                  },
                                  0.1));
      nt[i].push_back(gflop / time_best_of_reps(
                                  [&] {
                                    sgemm_isa(isa, Trans::kNo, Trans::kYes, m, n, k, 1.0f, a.data(),
                                              k, bt.data(), k, 0.0f, c.data(), n, ws.data(),
                                              ws.size());
                                  },
                                  0.1));
    }
    if (r < 3) {  // the naive loop is slow: three rounds are enough for its median
      naive.push_back(
          gflop /
          time_best_of_reps([&] { naive_sgemm(m, n, k, a.data(), b.data(), c_ref.data()); }, 0.0));
    }
  }

  const double best_peak = median(peak[ni - 1]);
  std::printf("\nSGEMM %lldx%lldx%lld (GFLOP/s)\n", (long long)m, (long long)n, (long long)k);
  std::printf("  %-9s %10s %10s %8s %10s %8s %12s\n", "isa", "peak", "NN", "%peak", "NT", "%peak",
              "NN %bestpeak");
  for (size_t i = 0; i < ni; ++i) {
    double p = median(peak[i]), x = median(nn[i]), y = median(nt[i]);
    std::printf("  %-9s %10.1f %10.1f %7.1f%% %10.1f %7.1f%% %11.1f%%\n", isa_name(isas[i]), p, x,
                100 * x / p, y, 100 * y / p, 100 * x / best_peak);
  }
  double nv = median(naive);
  std::printf("  %-9s %10s %10.2f   (best blocked NN is %.0fx faster)\n", "naive", "", nv,
              median(nn[ni - 1]) / nv);

  // Convolution shapes (batch 1): a 3x3 stem with stride 2, a pointwise 1x1, a depthwise 3x3
  // with stride 1 and 2, and a dense 3x3. Time per call in ms, GFLOP/s, at the best ISA level.
  struct Case {
    const char* name;
    Conv2dParams p;
  };
  auto mk = [](int64_t ci, int64_t hw, int64_t co, int64_t kk, int64_t s, int64_t pad, int64_t g) {
    Conv2dParams p;
    p.batch = 1;
    p.in_channels = ci;
    p.in_h = p.in_w = hw;
    p.out_channels = co;
    p.kernel_h = p.kernel_w = kk;
    p.stride_h = p.stride_w = s;
    p.pad_h = p.pad_w = pad;
    p.groups = g;
    return p;
  };
  std::vector<Case> cases = {
      {"stem 3x3 s2 3->32 @224", mk(3, 224, 32, 3, 2, 1, 1)},
      {"pw 1x1 32->96 @112", mk(32, 112, 96, 1, 1, 0, 1)},
      {"dw 3x3 s1 144 @56", mk(144, 56, 144, 3, 1, 1, 144)},
      {"dw 3x3 s2 96 @112", mk(96, 112, 96, 3, 2, 1, 96)},
      {"dense 3x3 64->64 @56", mk(64, 56, 64, 3, 1, 1, 1)},
  };
  std::vector<CaseData> cs_inputs;  // each shape's random operands, NCHW / OIHW
  // Share of the SGEMM's efficiency: a convolution's GFLOP/s over SGEMM 512^3 NN's at the same
  // level (depthwise shapes are not products, so they get none).
  const double sgemm_best = median(nn[ni - 1]);
  std::printf("\nconv2d NCHW, best ISA (%s), ms per call (GFLOP/s), share of SGEMM NN's GFLOP/s\n",
              isa_name(isas[ni - 1]));
  std::printf("  %-24s %18s %18s %8s %8s\n", "shape", "blocked", "naive", "speedup", "%sgemm");
  std::vector<std::vector<float>> refs;  // the naive outputs, for the NHWC table
  for (const Case& cs : cases) {
    const Conv2dParams& p = cs.p;
    int64_t oh = conv2d_out_h(p), ow = conv2d_out_w(p);
    std::vector<float> x = random_vec(p.in_channels * p.in_h * p.in_w, rng);
    std::vector<float> w =
        random_vec(p.out_channels * (p.in_channels / p.groups) * p.kernel_h * p.kernel_w, rng);
    std::vector<float> bias = random_vec(p.out_channels, rng);
    std::vector<float> y(p.out_channels * oh * ow), y_ref(y.size());
    std::vector<unsigned char> cws(conv2d_workspace_size(p) + 64);
    double flops =
        2.0 * p.out_channels * oh * ow * (p.in_channels / p.groups) * p.kernel_h * p.kernel_w;
    std::vector<double> tb, tn;
    for (int r = 0; r < std::max(3, rounds / 2); ++r) {
      tb.push_back(time_best_of_reps(
          [&] {
            conv2d_nchw(p, x.data(), w.data(), bias.data(), y.data(), cws.data(), cws.size());
          },
          0.05));
      tn.push_back(time_best_of_reps(
          [&] { naive_conv(p, x.data(), w.data(), bias.data(), y_ref.data()); }, 0.05));
    }
    double err = 0;
    for (size_t i = 0; i < y.size(); ++i)
      err = std::max(err, static_cast<double>(std::fabs(y[i] - y_ref[i])));
    if (err > 1e-3) {
      std::fprintf(stderr, "conv %s wrong: max abs err %g\n", cs.name, err);
      return 1;
    }
    double b_s = median(tb), n_s = median(tn);
    std::printf("  %-24s %8.3f (%6.1f) %8.3f (%6.1f) %7.1fx %s\n", cs.name, b_s * 1e3,
                flops / b_s * 1e-9, n_s * 1e3, flops / n_s * 1e-9, n_s / b_s,
                share_of(p, flops / b_s * 1e-9, sgemm_best).c_str());
    refs.push_back(std::move(y_ref));
    cs_inputs.push_back(CaseData{std::move(x), std::move(w), std::move(bias)});
  }
  // The same shapes through the NHWC routines (compute/conv_nhwc.h), which the portable
  // convolution runs on channels-last tensors (the CNNs after the load-time layout pass) and
  // the XNNPACK backend runs on its graphs; the filter packed once, as at load.
  std::printf("\nconv2d NHWC, best ISA (%s), ms per call (GFLOP/s), share of SGEMM NN's GFLOP/s\n",
              isa_name(isas[ni - 1]));
  std::printf("  %-24s %18s %8s\n", "shape", "nhwc", "%sgemm");
  for (size_t c = 0; c < cases.size(); ++c) {
    const Conv2dParams& p = cases[c].p;
    const NhwcCase q = nhwc_case(p, cs_inputs[c]);
    std::vector<float> y(q.y_size);
    std::vector<double> tb;
    for (int r = 0; r < std::max(3, rounds / 2); ++r)
      tb.push_back(time_best_of_reps([&] { q.run(y.data()); }, 0.05));
    // Compare in NCHW order with the naive loop's output.
    const int64_t oh = conv2d_out_h(p), ow = conv2d_out_w(p);
    double err = 0;
    for (int64_t oc = 0; oc < p.out_channels; ++oc)
      for (int64_t i = 0; i < oh * ow; ++i)
        err = std::max(err, static_cast<double>(
                                std::fabs(y[i * p.out_channels + oc] - refs[c][oc * oh * ow + i])));
    if (err > 1e-3) {
      std::fprintf(stderr, "nhwc conv %s wrong: max abs err %g\n", cases[c].name, err);
      return 1;
    }
    const double flops =
        2.0 * p.out_channels * oh * ow * (p.in_channels / p.groups) * p.kernel_h * p.kernel_w;
    const double b_s = median(tb);
    std::printf("  %-24s %8.3f (%6.1f) %s\n", cases[c].name, b_s * 1e3, flops / b_s * 1e-9,
                share_of(p, flops / b_s * 1e-9, sgemm_best).c_str());
  }
  // Short batches: the zoo's shapes take nanoseconds to microseconds per call.
  return shapes ? run_shape_file(shapes, std::max(3, rounds), rounds > 1 ? 0.01 : 0.002) : 0;
}
