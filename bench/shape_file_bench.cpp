// Times the shapes of a shape file; see shape_file_bench.h for the contract and
// bench/harness/zoo_shapes.py for the format:
//   gemm M N K | ...                                   C[M,N] = A[M,K] * W[N,K]^T (nn.Linear)
//   conv N C H W CO KH KW SH SW PH PW DH DW G | ...    NCHW, PyTorch's conv2d parameters
#include "shape_file_bench.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
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
  std::string kind;           // "gemm" or "conv"
  std::vector<int64_t> nums;  // as written in the file
  std::string text;           // the numbers, for the output line
};

// Seconds per call: the batch size doubles until one batch takes batch_s, so a call of a few
// nanoseconds is not drowned by the clock read (a system call for thread CPU time).
template <typename F>
int64_t calibrate(F&& f, double batch_s) {
  for (int64_t reps = 1;; reps *= 2) {
    double t0 = now_s();
    for (int64_t i = 0; i < reps; ++i)
      f();
    if (now_s() - t0 >= batch_s || reps >= (int64_t(1) << 30))
      return reps;
  }
}

template <typename F>
double seconds_per_call(F&& f, int64_t reps) {
  double t0 = now_s();
  for (int64_t i = 0; i < reps; ++i)
    f();
  return (now_s() - t0) / static_cast<double>(reps);
}

bool parse_line(const std::string& line, Shape* s) {
  std::string head = line.substr(0, line.find('|'));
  std::istringstream in(head);
  if (!(in >> s->kind))
    return false;
  int64_t v;
  while (in >> v)
    s->nums.push_back(v);
  if (!in.eof())
    return false;  // a token that is not a number
  for (int64_t x : s->nums) {
    if (x < 0 || x > (int64_t(1) << 20))
      return false;
  }
  for (int64_t x : s->nums)
    s->text += (s->text.empty() ? "" : " ") + std::to_string(x);
  return (s->kind == "gemm" && s->nums.size() == 3) || (s->kind == "conv" && s->nums.size() == 14);
}

// One shape, ready to time: its buffers, the call, and the FLOPs of one call.
struct Prepared {
  std::vector<float> a, b, bias, c;
  std::vector<unsigned char> ws;
  Conv2dParams p;
  int64_t m = 0, n = 0, k = 0;
  bool conv = false;
  double flops = 0;
  int64_t reps = 1;
  std::vector<double> seconds;

  void call() {
    if (conv) {
      conv2d_nchw(p, a.data(), b.data(), bias.data(), c.data(), ws.data(), ws.size());
    } else {
      sgemm(Trans::kNo, Trans::kYes, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, c.data(), n);
    }
  }
};

// Allocates the shape's data and checks one call against the naive loop; false if the result
// is wrong or the parameters invalid.
bool prepare(const Shape& s, std::mt19937& rng, Prepared* out) {
  Prepared& q = *out;
  if (s.kind == "gemm") {
    q.m = s.nums[0];
    q.n = s.nums[1];
    q.k = s.nums[2];
    q.a = random_vec(q.m * q.k, rng);
    q.b = random_vec(q.n * q.k, rng);  // W[N,K], nn.Linear's layout
    q.c.assign(q.m * q.n, 0.0f);
    q.flops = 2.0 * q.m * q.n * q.k;
    std::vector<float> wt(q.k * q.n), ref(q.m * q.n);
    for (int64_t j = 0; j < q.n; ++j)
      for (int64_t p = 0; p < q.k; ++p)
        wt[p * q.n + j] = q.b[j * q.k + p];
    q.call();
    naive_sgemm(q.m, q.n, q.k, q.a.data(), wt.data(), ref.data());
    for (size_t i = 0; i < ref.size(); ++i)
      if (std::fabs(q.c[i] - ref[i]) > 1e-3f * std::sqrt(static_cast<float>(q.k)))
        return false;
    return true;
  }
  const std::vector<int64_t>& v = s.nums;
  Conv2dParams& p = q.p;
  p.batch = v[0];
  p.in_channels = v[1];
  p.in_h = v[2];
  p.in_w = v[3];
  p.out_channels = v[4];
  p.kernel_h = v[5];
  p.kernel_w = v[6];
  p.stride_h = v[7];
  p.stride_w = v[8];
  p.pad_h = v[9];
  p.pad_w = v[10];
  p.dilation_h = v[11];
  p.dilation_w = v[12];
  p.groups = v[13];
  if (!conv2d_params_valid(p))
    return false;
  q.conv = true;
  const int64_t oh = conv2d_out_h(p), ow = conv2d_out_w(p), cig = p.in_channels / p.groups;
  q.a = random_vec(p.batch * p.in_channels * p.in_h * p.in_w, rng);
  q.b = random_vec(p.out_channels * cig * p.kernel_h * p.kernel_w, rng);
  q.bias = random_vec(p.out_channels, rng);
  q.c.assign(p.batch * p.out_channels * oh * ow, 0.0f);
  q.ws.resize(conv2d_workspace_size(p) + 64);
  q.flops = 2.0 * p.batch * p.out_channels * oh * ow * cig * p.kernel_h * p.kernel_w;
  std::vector<float> ref(q.c.size());
  q.call();
  naive_conv(p, q.a.data(), q.b.data(), q.bias.data(), ref.data());
  for (size_t i = 0; i < ref.size(); ++i)
    if (std::fabs(q.c[i] - ref[i]) > 1e-3f)
      return false;
  return true;
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
    if (line.empty() || line[0] == '#')
      continue;
    Shape s;
    if (!parse_line(line, &s)) {
      std::fprintf(stderr, "%s:%d: not a gemm/conv shape line: %s\n", path, lineno, line.c_str());
      return 1;
    }
    shapes.push_back(s);
  }
  std::mt19937 rng(7);
  std::vector<std::unique_ptr<Prepared>> ready;
  for (size_t i = 0; i < shapes.size(); ++i) {
    ready.push_back(std::make_unique<Prepared>());
    if (!prepare(shapes[i], rng, ready.back().get())) {
      std::fprintf(stderr, "shape [%zu] %s %s: wrong result or invalid parameters\n", i,
                   shapes[i].kind.c_str(), shapes[i].text.c_str());
      return 1;
    }
    Prepared* q = ready.back().get();
    q->reps = calibrate([q] { q->call(); }, batch_s);
  }
  // Interleaved like the rest of the benchmark: every shape once per round, so a slow spell
  // of a shared machine hits all shapes alike instead of a few of them.
  for (int r = 0; r < rounds; ++r)
    for (auto& q : ready)
      q->seconds.push_back(seconds_per_call([&q] { q->call(); }, q->reps));
  std::printf(
      "\nshapes from %s, best ISA (%s), %d interleaved rounds: us per call (GFLOP/s), "
      "medians\n",
      path, isa_name(detected_isa()), rounds);
  for (size_t i = 0; i < ready.size(); ++i) {
    const double sec = median(ready[i]->seconds);
    std::printf("  [%2zu] %s %-40s %10.3f (%7.2f)\n", i, shapes[i].kind.c_str(),
                shapes[i].text.c_str(), sec * 1e6, ready[i]->flops / sec * 1e-9);
  }
  return 0;
}
