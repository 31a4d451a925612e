// Half-precision graphs (fp16 and bf16 values, constants and delegate arguments, as upstream's
// exporter writes them for model.half()): each against a reference computed here in double
// precision and rounded with the compiler's own _Float16 conversion (fp16) or an explicit
// round-to-nearest-even on 8 significant bits (bf16), plus the malformed cases.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/runtime/core/exec_aten/exec_aten.h>

#include "../common/log_capture.h"
#include "xnn_test_util.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using xnn_test::Delegate;
using xnn_test::GraphWriter;
namespace fb = xnn_test::fb;
using T = fb::XNodeUnion;
using DT = fb::XNNDatatype;

namespace {

// The compiler's own IEEE half type is the reference: GCC 12 has _Float16 in C++ on x86-64
// but not on aarch64, where the ARM __fp16 storage type (IEEE format) converts the same way.
#if defined(__aarch64__)
using CompilerHalf = __fp16;
#else
using CompilerHalf = _Float16;
#endif

float round_fp16(double x) {
  return static_cast<float>(static_cast<CompilerHalf>(static_cast<float>(x)));
}
uint16_t fp16_bits(float x) {
  const CompilerHalf h = static_cast<CompilerHalf>(x);
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}
float from_fp16_bits(uint16_t bits) {
  CompilerHalf h;
  std::memcpy(&h, &bits, 2);
  return static_cast<float>(h);
}

// bf16: 8 significant bits, ties to even (normal finite values).
float round_bf16(float x) {
  if (x == 0.0f || !std::isfinite(x))
    return x;
  const int e = std::ilogb(x);
  return static_cast<float>(std::ldexp(std::nearbyint(std::ldexp(double{x}, 7 - e)), e - 7));
}
uint16_t bf16_bits(float x) {
  const float r = round_bf16(x);
  uint32_t bits;
  std::memcpy(&bits, &r, 4);
  return static_cast<uint16_t>(bits >> 16);
}
float from_bf16_bits(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// A constant of datatype `dt` holding the 16-bit elements `bits`.
uint32_t half_constant(GraphWriter& g, std::vector<uint32_t> dims, DT dt,
                       const std::vector<uint16_t>& bits) {
  const uint32_t id = g.value(dims, -1, false, dt);
  g.tensor(id)->constant_buffer_idx = g.add_bytes(bits.data(), bits.size() * 2);
  return id;
}

// The spacing of fp16 values around x (normal range).
double fp16_ulp(double x) {
  return std::ldexp(1.0, std::max(std::ilogb(std::max(std::fabs(x), 6.2e-5)), -14) - 10);
}

// fp32 -> Convert -> fp16 -> Convert -> fp32: the intermediate lands on the fp16 grid, ties
// to even, overflow to infinity, subnormals kept.
TEST(XnnpackHalf, ConvertRoundsOntoTheFp16Grid) {
  const std::vector<float> x = {1.0f,
                                1.0f + 0x1p-11f,      // tie: down to even
                                1.0f + 3 * 0x1p-11f,  // tie: up to even
                                -3.3f,
                                0.1f,
                                65519.0f,  // largest half
                                65520.0f,  // rounds to infinity
                                -1e6f,
                                1e-6f,         // subnormal half
                                0x1p-25f,      // tie between 0 and 2^-24: to 0
                                3 * 0x1p-25f,  // tie: up to 2^-23
                                std::numeric_limits<float>::infinity()};
  const uint32_t n = static_cast<uint32_t>(x.size());
  GraphWriter g;
  const uint32_t in = g.value({n}, 0);
  const uint32_t half = g.value({n}, -1, false, DT::xnn_datatype_fp16);
  const uint32_t out = g.value({n}, 1, true);
  g.unary(T::XNNConvert, in, half);
  g.unary(T::XNNConvert, half, out);
  Delegate d(g.payload());
  ASSERT_EQ(d.init_error, Error::Ok) << test::captured_logs();
  std::vector<float> xin = x, y(n);
  int32_t sizes[1] = {static_cast<int32_t>(n)};
  TensorImpl xi(ScalarType::Float, 1, sizes, xin.data()), yi(ScalarType::Float, 1, sizes, y.data());
  EValue ex{Tensor(&xi)}, ey{Tensor(&yi)};
  ASSERT_EQ(d.execute({&ex, &ey}), Error::Ok);
  for (uint32_t i = 0; i < n; ++i) {
    EXPECT_EQ(y[i], round_fp16(x[i])) << "x = " << x[i];
  }
}

// Half input and output tensors, fp16 weights: y = tanh(x . W^T + b), every value on the
// fp16 grid, within one fp16 step of the double-precision reference (float accumulation may
// round the other way at a tie).
TEST(XnnpackHalf, Fp16FullyConnectedAndTanh) {
  const uint32_t M = 3, K = 5, N = 4;
  std::vector<uint16_t> xb(M * K), wb(N * K), bb(N);
  for (uint32_t i = 0; i < M * K; ++i)
    xb[i] = fp16_bits(0.37f * static_cast<float>(static_cast<int>(i % 7) - 3));
  for (uint32_t i = 0; i < N * K; ++i)
    wb[i] = fp16_bits(0.111f * static_cast<float>(static_cast<int>((i * 5) % 9) - 4));
  for (uint32_t c = 0; c < N; ++c)
    bb[c] = fp16_bits(0.05f * static_cast<float>(c) - 0.1f);

  GraphWriter g;
  const uint32_t x = g.value({M, K}, 0, false, DT::xnn_datatype_fp16);
  const uint32_t w = half_constant(g, {N, K}, DT::xnn_datatype_fp16, wb);
  const uint32_t b = half_constant(g, {N}, DT::xnn_datatype_fp16, bb);
  const uint32_t h = g.value({M, N}, -1, false, DT::xnn_datatype_fp16);
  const uint32_t y = g.value({M, N}, 1, true, DT::xnn_datatype_fp16);
  auto* p = new fb::XNNFullyConnectedT();
  p->input1_id = x;
  p->filter_id = w;
  p->bias_id = b;
  p->output_id = h;
  g.node(T::XNNFullyConnected, p);
  g.unary(T::XNNTanh, h, y);
  Delegate d(g.payload());
  ASSERT_EQ(d.init_error, Error::Ok) << test::captured_logs();

  std::vector<uint16_t> yb(M * N, 0xFFFF);
  int32_t xs[2] = {M, K}, ys[2] = {M, N};
  TensorImpl xi(ScalarType::Half, 2, xs, xb.data()), yi(ScalarType::Half, 2, ys, yb.data());
  EValue ex{Tensor(&xi)}, ey{Tensor(&yi)};
  ASSERT_EQ(d.execute({&ex, &ey}), Error::Ok);
  for (uint32_t m = 0; m < M; ++m) {
    for (uint32_t c = 0; c < N; ++c) {
      double acc = from_fp16_bits(bb[c]);
      for (uint32_t k = 0; k < K; ++k)
        acc += double{from_fp16_bits(xb[m * K + k])} * from_fp16_bits(wb[c * K + k]);
      const float hidden = round_fp16(acc);
      const float want = round_fp16(std::tanh(double{hidden}));
      const float got = from_fp16_bits(yb[m * N + c]);
      EXPECT_EQ(got, round_fp16(got)) << "not on the fp16 grid";
      EXPECT_NEAR(got, want, 2 * fp16_ulp(want)) << m << "," << c;
    }
  }
}

// BFloat16 input, constant and output: y = a * b, exactly the bf16 rounding of the product.
TEST(XnnpackHalf, Bf16ArgumentsAndConstants) {
  const uint32_t n = 6;
  std::vector<uint16_t> ab(n), cb(n);
  for (uint32_t i = 0; i < n; ++i) {
    ab[i] = bf16_bits(1.7f * static_cast<float>(i) - 4.1f);
    cb[i] = bf16_bits(0.3f + 0.77f * static_cast<float>(i));
  }
  GraphWriter g;
  const uint32_t a = g.value({2, 3}, 0, false, DT::xnn_datatype_bf16);
  const uint32_t c = half_constant(g, {2, 3}, DT::xnn_datatype_bf16, cb);
  const uint32_t y = g.value({2, 3}, 1, true, DT::xnn_datatype_bf16);
  g.binary(T::XNNMultiply, a, c, y);
  Delegate d(g.payload());
  ASSERT_EQ(d.init_error, Error::Ok) << test::captured_logs();
  std::vector<uint16_t> yb(n, 0);
  int32_t sizes[2] = {2, 3};
  TensorImpl ai(ScalarType::BFloat16, 2, sizes, ab.data()),
      yi(ScalarType::BFloat16, 2, sizes, yb.data());
  EValue ea{Tensor(&ai)}, ey{Tensor(&yi)};
  ASSERT_EQ(d.execute({&ea, &ey}), Error::Ok);
  for (uint32_t i = 0; i < n; ++i) {
    const float want = round_bf16(from_bf16_bits(ab[i]) * from_bf16_bits(cb[i]));
    EXPECT_EQ(from_bf16_bits(yb[i]), want) << i;
  }
}

// A one-node fp16 graph: x [2, 3] + constant [2, 3].
GraphWriter fp16_add_graph(size_t constant_bytes) {
  GraphWriter g;
  const uint32_t x = g.value({2, 3}, 0, false, DT::xnn_datatype_fp16);
  const std::vector<uint8_t> bytes(constant_bytes, 0);
  const uint32_t c = g.value({2, 3}, -1, false, DT::xnn_datatype_fp16);
  g.tensor(c)->constant_buffer_idx = g.add_bytes(bytes.data(), bytes.size());
  const uint32_t y = g.value({2, 3}, 1, true, DT::xnn_datatype_fp16);
  g.binary(T::XNNAdd, x, c, y);
  return g;
}

TEST(XnnpackHalf, MalformedHalfGraphsAreRefused) {
  // An fp16 constant holds 2 bytes per element: the fp32 size is a corrupt payload.
  {
    test::clear_captured_logs();
    Delegate d(fp16_add_graph(6 * 4).payload());
    EXPECT_EQ(d.init_error, Error::InvalidProgram);
    EXPECT_NE(test::captured_logs().find("its shape needs 12"), std::string::npos)
        << test::captured_logs();
  }
  Delegate d(fp16_add_graph(6 * 2).payload());
  ASSERT_EQ(d.init_error, Error::Ok) << test::captured_logs();
  std::vector<uint16_t> half(6, fp16_bits(1.5f)), half_out(6, 0);
  std::vector<float> single(6, 1.5f);
  int32_t sizes[2] = {2, 3};
  TensorImpl hi(ScalarType::Half, 2, sizes, half.data()),
      ho(ScalarType::Half, 2, sizes, half_out.data()),
      fi(ScalarType::Float, 2, sizes, single.data()),
      bi(ScalarType::BFloat16, 2, sizes, half.data());
  EValue h{Tensor(&hi)}, hout{Tensor(&ho)}, f{Tensor(&fi)}, bf{Tensor(&bi)};
  // The arguments' dtypes must be the graph's.
  EXPECT_EQ(d.execute({&f, &hout}), Error::InvalidArgument);
  EXPECT_EQ(d.execute({&bf, &hout}), Error::InvalidArgument);
  EXPECT_EQ(d.execute({&h, &f}), Error::InvalidArgument);
  ASSERT_EQ(d.execute({&h, &hout}), Error::Ok);
  for (uint16_t bits : half_out)
    EXPECT_EQ(from_fp16_bits(bits), 1.5f);  // x + 0
}

}  // namespace
