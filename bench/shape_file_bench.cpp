// Times the shapes of a shape file; see shape_file_bench.h for the contract and
// bench/harness/zoo_shapes.py for the format:
//   gemm M N K | ...                                   C[M,N] = A[M,K] * W[N,K]^T (nn.Linear)
//   conv N C H W CO KH KW SH SW PH PW DH DW G | ...    NCHW, PyTorch's conv2d parameters
#include "shape_file_bench.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <executorch/runtime/kernels/compute/conv.h>
#include <executorch/runtime/kernels/compute/gemm.h>
#include <executorch/runtime/kernels/compute/isa.h>

#include "compute_bench_util.h"

using namespace executorch::kernels::compute;
using namespace compute_bench;

namespace {

struct Shape {
  std::string kind;             // "gemm" or "conv"
  std::vector<int64_t> nums;    // as written in the file
  std::string text;             // the numbers, for the output line
};

// Seconds per call: the batch size doubles until one batch takes batch_s, so a call of a few
// nanoseconds is not drowned by the clock read (a system call for thread CPU time).
template <typename F>
int64_t calibrate(F&& f, double batch_s) {
  for (int64_t reps = 1;; reps *= 2) {
    double t0 = now_s();
    for (int64_t i = 0; i < reps; ++i) f();
    if (now_s() - t0 >= batch_s || reps >= (int64_t(1) << 30)) return reps;
  }
}

template <typename F>
double seconds_per_call(F&& f, int64_t reps) {
  double t0 = now_s();
  for (int64_t i = 0; i < reps; ++i) f();
  return (now_s() - t0) / static_cast<double>(reps);
}

bool parse_line(const std::string& line, Shape* s) {
  std::string head = line.substr(0, line.find('|'));
  std::istringstream in(head);
  if (!(in >> s->kind)) return false;
  int64_t v;
  while (in >> v) s->nums.push_back(v);
  if (!in.eof()) return false;  // a token that is not a number
  for (int64_t x : s->nums) {
    if (x < 0 || x > (int64_t(1) << 20)) return false;
  }
  for (int64_t x : s->nums) s->text += (s->text.empty() ? "" : " ") + std::to_string(x);
  return (s->kind == "gemm" && s->nums.size() == 3) || (s->kind == "conv" && s->nums.size() == 14);
}

// Runs one shape: checks the result against the naive loop, then times `rounds` batches.
// Returns {seconds per call, FLOPs per call}, or a negative time on a wrong result.
std::pair<double, double> run_shape(const Shape& s, int rounds, double batch_s, std::mt19937& rng) {
  std::vector<double> t;
  if (s.kind == "gemm") {
    const int64_t m = s.nums[0], n = s.nums[1], k = s.nums[2];
    std::vector<float> a = random_vec(m * k, rng), w = random_vec(n * k, rng), wt(k * n);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p) wt[p * n + j] = w[j * k + p];
    std::vector<float> c(m * n), ref(m * n);
    auto call = [&] {
      sgemm(Trans::kNo, Trans::kYes, m, n, k, 1.0f, a.data(), k, w.data(), k, 0.0f, c.data(), n);
    };
    call();
    naive_sgemm(m, n, k, a.data(), wt.data(), ref.data());
    for (int64_t i = 0; i < m * n; ++i)
      if (std::fabs(c[i] - ref[i]) > 1e-3f * std::sqrt(static_cast<float>(k))) return {-1, 0};
    const int64_t reps = calibrate(call, batch_s);
    for (int r = 0; r < rounds; ++r) t.push_back(seconds_per_call(call, reps));
    return {median(t), 2.0 * m * n * k};
  }
  const std::vector<int64_t>& v = s.nums;
  Conv2dParams p;
  p.batch = v[0]; p.in_channels = v[1]; p.in_h = v[2]; p.in_w = v[3]; p.out_channels = v[4];
  p.kernel_h = v[5]; p.kernel_w = v[6]; p.stride_h = v[7]; p.stride_w = v[8];
  p.pad_h = v[9]; p.pad_w = v[10]; p.dilation_h = v[11]; p.dilation_w = v[12]; p.groups = v[13];
  if (!conv2d_params_valid(p)) return {-1, 0};
  const int64_t oh = conv2d_out_h(p), ow = conv2d_out_w(p), cig = p.in_channels / p.groups;
  std::vector<float> x = random_vec(p.batch * p.in_channels * p.in_h * p.in_w, rng);
  std::vector<float> w = random_vec(p.out_channels * cig * p.kernel_h * p.kernel_w, rng);
  std::vector<float> bias = random_vec(p.out_channels, rng);
  std::vector<float> y(p.batch * p.out_channels * oh * ow), ref(y.size());
  std::vector<unsigned char> ws(conv2d_workspace_size(p) + 64);
  auto call = [&] {
    conv2d_nchw(p, x.data(), w.data(), bias.data(), y.data(), ws.data(), ws.size());
  };
  call();
  naive_conv(p, x.data(), w.data(), bias.data(), ref.data());
  for (size_t i = 0; i < y.size(); ++i)
    if (std::fabs(y[i] - ref[i]) > 1e-3f) return {-1, 0};
  const int64_t reps = calibrate(call, batch_s);
  for (int r = 0; r < rounds; ++r) t.push_back(seconds_per_call(call, reps));
  return {median(t), 2.0 * p.batch * p.out_channels * oh * ow * cig * p.kernel_h * p.kernel_w};
}

}  // namespace

int run_shape_file(const char* path, int rounds, double batch_s) {
  std::ifstream f(path);
  if (!f) {
    std::fprintf(stderr, "cannot read shape file %s\n", path);
    return 1;
  }
  std::vector<Shape> shapes;
  std::string line;
  for (int lineno = 1; std::getline(f, line); ++lineno) {
    if (line.empty() || line[0] == '#') continue;
    Shape s;
    if (!parse_line(line, &s)) {
      std::fprintf(stderr, "%s:%d: not a gemm/conv shape line: %s\n", path, lineno, line.c_str());
      return 1;
    }
    shapes.push_back(s);
  }
  std::printf("\nshapes from %s, best ISA (%s), %d rounds: us per call (GFLOP/s), medians\n", path,
              isa_name(detected_isa()), rounds);
  std::mt19937 rng(7);
  for (size_t i = 0; i < shapes.size(); ++i) {
    auto [sec, flops] = run_shape(shapes[i], rounds, batch_s, rng);
    if (sec < 0) {
      std::fprintf(stderr, "shape [%zu] %s %s: wrong result or invalid parameters\n", i,
                   shapes[i].kind.c_str(), shapes[i].text.c_str());
      return 1;
    }
    std::printf("  [%2zu] %s %-40s %10.3f (%7.2f)\n", i, shapes[i].kind.c_str(),
                shapes[i].text.c_str(), sec * 1e6, flops / sec * 1e-9);
  }
  return 0;
}
