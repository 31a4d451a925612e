// The load-time layout pass (runtime/executor/detail/layout_pass.h) with this library's layout
// rules (runtime/kernels/ops/layout_rules.cpp): which values of hand-built convolution programs
// it switches to channels-last, that the outputs agree with the pass off and do not depend on
// the thread count, and that a zoo CNN keeps its input and output dim orders.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/runtime/core/exec_aten/util/dim_order_util.h>

#include "../common/zoo_fixture.h"
#include "../method/program_builder.h"

namespace {

using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::Method;
using executorch::runtime::MethodLoadConfig;

constexpr int32_t kC = 4, kH = 6, kW = 6;
constexpr uint64_t kBytes = sizeof(float) * kC * kH * kW;  // one activation

// A planned tensor in activation slot `slot` of buffer 1.
test::TensorSpec planned(uint64_t slot, std::vector<int32_t> sizes = {1, kC, kH, kW}) {
  test::TensorSpec s;
  s.sizes = std::move(sizes);
  s.mem_id = 1;
  s.offset = slot * kBytes;
  return s;
}

class ConvProgram {
 public:
  ConvProgram() {
    b.buffer_sizes = {0, static_cast<int64_t>(8 * kBytes)};
    x = b.tensor(planned(0));
    b.inputs.push_back(x);
  }

  // out = conv3x3(in) with padding 1 (same size), a constant weight of its own.
  int conv(int in, int out) {
    std::vector<float> w(kC * kC * 9), bias(kC);
    for (size_t i = 0; i < w.size(); ++i) {
      w[i] = static_cast<float>((static_cast<int>(i + weights_made) * 5) % 9 - 4) * 0.125f;
    }
    for (size_t i = 0; i < bias.size(); ++i) {
      bias[i] = 0.1f * static_cast<float>(i) - 0.15f;
    }
    ++weights_made;
    const int one = b.int_value(1), zero = b.int_value(0);
    const int ones = b.int_list({one, one}), zeros = b.int_list({zero, zero});
    b.kernel(b.op("aten::convolution", "out"),
             {in, constant(w, {kC, kC, 3, 3}), constant(bias, {kC}), ones, ones, ones,
              b.bool_value(false), zeros, one, out, out});
    return out;
  }
  // out = unary `name`(in).
  int unary(const char* name, int in, int out) {
    b.kernel(b.op(name, "out"), {in, out, out});
    return out;
  }
  // out ([1, C, 1, 1]) = mean of in over H and W.
  int mean_hw(int in, uint64_t slot) {
    const int out = b.tensor(planned(slot, {1, kC, 1, 1}));
    const int dims = b.int_list({b.int_value(-1), b.int_value(-2)});
    b.kernel(b.op("aten::mean", "out"), {in, dims, b.bool_value(true), b.null_value(), out, out});
    return out;
  }

  test::ProgramBuilder b;
  int x = -1;

 private:
  int constant(const std::vector<float>& data, std::vector<int32_t> sizes) {
    test::TensorSpec s;
    s.sizes = std::move(sizes);
    s.data_buffer_idx = b.constant(data.data(), data.size() * sizeof(float));
    return b.tensor(s);
  }
  int weights_made = 0;
};

void fill(size_t input, float* data, size_t numel) {
  for (size_t k = 0; k < numel; ++k) {
    data[k] =
        static_cast<float>((static_cast<int>(k) * 7 + static_cast<int>(input) * 3) % 11) - 5.0f;
  }
}

// Float i of planned buffer 0 (mem_id 1) after a run.
float planned_float(const test::PreparedRun& r, size_t i) {
  float f;
  std::memcpy(&f, r.planned[0].data() + i * sizeof(float), sizeof f);
  return f;
}

// The activation in `slot` of `on` holds the one of `off` (contiguous) stored channels-last
// (nhwc) or contiguous, within float rounding.
bool holds(const test::PreparedRun& on, const test::PreparedRun& off, uint64_t slot, bool nhwc) {
  const size_t base = static_cast<size_t>(slot * kBytes / sizeof(float));
  if (on.planned.empty() || off.planned.empty() || on.planned[0].size() < (slot + 1) * kBytes ||
      off.planned[0].size() != on.planned[0].size()) {
    return false;
  }
  for (int c = 0; c < kC; ++c) {
    for (int hw = 0; hw < kH * kW; ++hw) {
      const float want = planned_float(off, base + static_cast<size_t>(c * kH * kW + hw));
      const float got =
          planned_float(on, base + static_cast<size_t>(nhwc ? hw * kC + c : c * kH * kW + hw));
      if (std::fabs(got - want) > 1e-5f + 1e-5f * std::fabs(want)) {
        return false;
      }
    }
  }
  return true;
}

// The output with preparation off and on agrees within float rounding (NHWC sums in another
// order); on, it is the same bytes at 1 and 2 threads.
void expect_agreeing_outputs(const std::vector<uint8_t>& bytes) {
  const test::PreparedRun off = test::run_with_prepare(bytes, false, fill);
  ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(1));
  const test::PreparedRun on = test::run_with_prepare(bytes, true, fill);
  ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(2));
  const test::PreparedRun on2 = test::run_with_prepare(bytes, true, fill);
  EXPECT_TRUE(executorch::extension::threadpool::set_num_threads(0));
  ASSERT_FALSE(off.out.empty());
  ASSERT_EQ(on.out.size(), off.out.size());
  for (size_t i = 0; i < off.out.size(); ++i) {
    EXPECT_NEAR(on.out[i], off.out[i], 1e-5 + 1e-5 * std::fabs(off.out[i])) << "element " << i;
  }
  ASSERT_EQ(on2.out.size(), on.out.size());
  EXPECT_EQ(std::memcmp(on.out.data(), on2.out.data(), on.out.size() * sizeof(float)), 0);
}

// conv -> relu -> conv -> add (residual) -> mean over H, W: the activations between the method
// input and the mean run channels-last (the first convolution writes the relu's output, fused);
// the input and the output keep their order.
TEST(LayoutPass, SwitchesAConvolutionChain) {
  ConvProgram p;
  const int c1 = p.conv(p.x, p.b.tensor(planned(1)));
  const int r1 = p.unary("aten::relu", c1, p.b.tensor(planned(2)));
  const int c2 = p.conv(r1, p.b.tensor(planned(3)));
  const int s = p.b.tensor(planned(4));
  p.b.kernel(p.b.op("aten::add", "out"), {c2, r1, p.b.int_value(1), s, s});
  p.b.outputs.push_back(p.mean_hw(s, 5));
  const std::vector<uint8_t> bytes = p.b.finish();

  const test::PreparedRun off = test::run_with_prepare(bytes, false, fill);
  const test::PreparedRun on = test::run_with_prepare(bytes, true, fill);
  EXPECT_EQ(off.channels_last, 0u);
  EXPECT_EQ(on.channels_last, 4u);  // c1, r1, c2, s
  EXPECT_TRUE(holds(on, off, 0, /*nhwc=*/false)) << "the method input";
  for (uint64_t slot : {2, 3, 4}) {
    EXPECT_TRUE(holds(on, off, slot, /*nhwc=*/true)) << "slot " << slot;
  }
  expect_agreeing_outputs(bytes);
}

// An operator without a layout rule (neg) between two convolutions keeps the tensors it touches
// contiguous; the second convolution's output, read only by the mean, still switches.
TEST(LayoutPass, AnOperatorWithoutARuleKeepsItsTensorsContiguous) {
  ConvProgram p;
  const int c1 = p.conv(p.x, p.b.tensor(planned(1)));
  const int n = p.unary("aten::neg", c1, p.b.tensor(planned(2)));
  const int c2 = p.conv(n, p.b.tensor(planned(3)));
  p.b.outputs.push_back(p.mean_hw(c2, 4));
  const std::vector<uint8_t> bytes = p.b.finish();

  const test::PreparedRun off = test::run_with_prepare(bytes, false, fill);
  const test::PreparedRun on = test::run_with_prepare(bytes, true, fill);
  EXPECT_EQ(on.channels_last, 1u);
  EXPECT_TRUE(holds(on, off, 1, /*nhwc=*/false));
  EXPECT_TRUE(holds(on, off, 2, /*nhwc=*/false));
  EXPECT_TRUE(holds(on, off, 3, /*nhwc=*/true));
  expect_agreeing_outputs(bytes);
}

// A chain that ends in a convolution whose output an operator without a rule reads: that
// convolution reads channels-last and writes contiguous (through a scratch copy).
TEST(LayoutPass, AChainCanEndInAConvolution) {
  ConvProgram p;
  const int c1 = p.conv(p.x, p.b.tensor(planned(1)));
  const int c2 = p.conv(c1, p.b.tensor(planned(2)));
  p.b.outputs.push_back(p.unary("aten::neg", c2, p.b.tensor(planned(3))));
  const std::vector<uint8_t> bytes = p.b.finish();

  const test::PreparedRun off = test::run_with_prepare(bytes, false, fill);
  const test::PreparedRun on = test::run_with_prepare(bytes, true, fill);
  EXPECT_EQ(on.channels_last, 1u);
  EXPECT_TRUE(holds(on, off, 1, /*nhwc=*/true));
  EXPECT_TRUE(holds(on, off, 2, /*nhwc=*/false));
  expect_agreeing_outputs(bytes);
}

// A view: the export gives the flattened convolution output its own tensor in the same planned
// place, written by nobody. The convolution's output must keep the order the view assumes.
TEST(LayoutPass, AViewedValueStaysContiguous) {
  ConvProgram p;
  p.conv(p.x, p.b.tensor(planned(1)));
  const int flat = p.b.tensor(planned(1, {1, kC * kH * kW}));
  const int out = p.unary("aten::relu", flat, p.b.tensor(planned(2, {1, kC * kH * kW})));
  p.b.outputs.push_back(out);
  const std::vector<uint8_t> bytes = p.b.finish();

  const test::PreparedRun off = test::run_with_prepare(bytes, false, fill);
  const test::PreparedRun on = test::run_with_prepare(bytes, true, fill);
  EXPECT_EQ(on.channels_last, 0u);
  EXPECT_TRUE(holds(on, off, 1, /*nhwc=*/false));
  expect_agreeing_outputs(bytes);
}

// The int64 in `slot` of `on` holds the C x 3 x 3 indices of `off` (contiguous), stored
// channels-last (nhwc) or contiguous: exactly, they are positions.
bool holds_indices(const test::PreparedRun& on, const test::PreparedRun& off, uint64_t slot,
                   bool nhwc) {
  constexpr size_t kPixels = 9;
  const size_t base = static_cast<size_t>(slot * kBytes);
  if (on.planned.empty() || off.planned.empty() ||
      on.planned[0].size() < base + kC * kPixels * sizeof(int64_t) ||
      off.planned[0].size() != on.planned[0].size()) {
    return false;
  }
  for (size_t c = 0; c < kC; ++c) {
    for (size_t hw = 0; hw < kPixels; ++hw) {
      int64_t want, got;
      std::memcpy(&want, off.planned[0].data() + base + (c * kPixels + hw) * sizeof want,
                  sizeof want);
      std::memcpy(
          &got, on.planned[0].data() + base + (nhwc ? hw * kC + c : c * kPixels + hw) * sizeof got,
          sizeof got);
      if (got != want) {
        return false;
      }
    }
  }
  return true;
}

// Max pool (3x3, stride 2, padding 1) of a convolution's output. Its int64 indices, read by
// nobody, switch to channels-last in a class of their own (a channels-last pool then stores them
// contiguously); as a method output they stay contiguous, while the pooled values still switch
// with the chain. Either way they are the indices the pass-off run computes.
TEST(LayoutPass, MaxPoolIndicesSwitchOnTheirOwn) {
  for (const bool indices_are_output : {false, true}) {
    ConvProgram p;
    const int c1 = p.conv(p.x, p.b.tensor(planned(1)));
    const int values = p.b.tensor(planned(2, {1, kC, 3, 3}));
    test::TensorSpec index_spec = planned(3, {1, kC, 3, 3});
    index_spec.dtype = 4;  // Long
    const int indices = p.b.tensor(index_spec);
    const int one = p.b.int_value(1), two = p.b.int_value(2), three = p.b.int_value(3);
    p.b.kernel(p.b.op("aten::max_pool2d_with_indices", "out"),
               {c1, p.b.int_list({three, three}), p.b.int_list({two, two}),
                p.b.int_list({one, one}), p.b.int_list({one, one}), p.b.bool_value(false), values,
                indices, p.b.tensor_list({values, indices})});
    p.b.outputs.push_back(p.mean_hw(values, 4));
    if (indices_are_output) {
      p.b.outputs.push_back(indices);
    }
    const std::vector<uint8_t> bytes = p.b.finish();

    const test::PreparedRun off = test::run_with_prepare(bytes, false, fill);
    const test::PreparedRun on = test::run_with_prepare(bytes, true, fill);
    EXPECT_EQ(on.channels_last, indices_are_output ? 2u : 3u);  // c1, values (and indices)
    EXPECT_TRUE(holds(on, off, 1, /*nhwc=*/true));
    EXPECT_TRUE(holds_indices(on, off, 3, /*nhwc=*/!indices_are_output))
        << (indices_are_output ? "indices as an output" : "unread indices");
    expect_agreeing_outputs(bytes);
  }
}

// ResNet-18 of the zoo (convolutions, batch norms, relu, residual adds, max pool, mean): many
// values switch, the input and output keep their contiguous order, and the result matches the
// one without preparation within the zoo tolerance (the goldens test compares it with eager).
TEST(LayoutPass, ZooResNetSwitchesAndKeepsItsInterface) {
  std::vector<float> results[2];
  for (int on = 0; on < 2; ++on) {
    executorch::extension::Module module(test::zoo_dir() + "/resnet18.pte");
    module.set_prepare_constants(on == 1);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    auto method = module.method("forward");
#pragma GCC diagnostic pop
    ASSERT_TRUE(method.ok());
    if (on == 1) {
      EXPECT_GE((*method)->channels_last_value_count(), 20u);
    } else {
      EXPECT_EQ((*method)->channels_last_value_count(), 0u);
    }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    const Tensor& in = (*method)->get_input(0).toTensor();
#pragma GCC diagnostic pop
    std::vector<float> data(static_cast<size_t>(in.numel()));
    fill(0, data.data(), data.size());
    std::vector<executorch::aten::SizesType> sizes(in.sizes().begin(), in.sizes().end());
    EXPECT_TRUE(executorch::runtime::is_contiguous_dim_order(in.dim_order().data(), in.dim()));
    auto out = module.forward(executorch::extension::make_tensor_ptr(sizes, std::move(data)));
    ASSERT_TRUE(out.ok());
    const Tensor& t = (*out)[0].toTensor();
    EXPECT_TRUE(executorch::runtime::is_contiguous_dim_order(t.dim_order().data(), t.dim()));
    results[on].assign(t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel());
  }
  ASSERT_EQ(results[0].size(), results[1].size());
  for (size_t i = 0; i < results[0].size(); ++i) {
    EXPECT_NEAR(results[1][i], results[0][i], 1e-4 + 1e-4 * std::fabs(results[0][i]))
        << "element " << i;
  }
}

// A tracer that logs every operator's output records the intermediate values' bytes, which are
// compared with the exported model's: the pass then leaves every value as exported. A tracer that
// only profiles does not stop it.
TEST(LayoutPass, OffWhenTheTracerLogsIntermediateOutputs) {
  for (const bool logs : {false, true}) {
    std::vector<uint8_t> debug_buffer(1 << 20);
    auto tracer = std::make_unique<executorch::etdump::ETDumpGen>();
    if (logs) {
      ASSERT_TRUE(tracer->set_debug_buffer({debug_buffer.data(), debug_buffer.size()}).ok());
      tracer->set_event_tracer_debug_level(
          executorch::runtime::EventTracerDebugLogLevel::kIntermediateOutputs);
    }
    executorch::extension::Module module(test::zoo_dir() + "/resnet18.pte",
                                         executorch::extension::Module::LoadMode::Mmap,
                                         std::move(tracer));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    auto method = module.method("forward");
#pragma GCC diagnostic pop
    ASSERT_TRUE(method.ok());
    EXPECT_EQ((*method)->channels_last_value_count() == 0, logs) << "logs: " << logs;
  }
}

}  // namespace
