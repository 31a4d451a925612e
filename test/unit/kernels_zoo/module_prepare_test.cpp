// Module's load-time preparation option (Module::set_prepare_constants) on a zoo program run
// by the CPU kernel library (this group links it).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>

#include "../common/zoo_fixture.h"

namespace {

using executorch::aten::Tensor;
using executorch::extension::make_tensor_ptr;
using executorch::extension::Module;

std::string zoo(const std::string& name) {
  return test::zoo_dir() + "/" + name;
}

// Load-time preparation is on by default and set_prepare_constants(false) turns it off for
// the methods loaded afterwards; the outputs are the same bytes either way.
TEST(Module, PrepareConstantsOption) {
  std::vector<float> results[2];
  for (int on = 0; on < 2; ++on) {
    Module module(zoo("mlp.pte"));
    EXPECT_TRUE(module.prepare_constants());
    if (on == 0) {
      module.set_prepare_constants(false);
    }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    auto method = module.method("forward");
#pragma GCC diagnostic pop
    ASSERT_TRUE(method.ok());
    if (on == 1) {
      // mlp's three linear weights are permuted constants.
      EXPECT_EQ((*method)->prepared_instruction_count(), 3u);
      EXPECT_GT((*method)->prepared_constant_bytes(), 0u);
    } else {
      EXPECT_EQ((*method)->prepared_instruction_count(), 0u);
      EXPECT_EQ((*method)->prepared_constant_bytes(), 0u);
    }
    std::vector<float> in(4 * 16);
    for (size_t i = 0; i < in.size(); ++i) {
      in[i] = static_cast<float>(i % 7) - 3.0f;
    }
    auto out = module.forward(make_tensor_ptr({4, 16}, std::move(in)));
    ASSERT_TRUE(out.ok());
    const Tensor& t = (*out)[0].toTensor();
    results[on].assign(t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel());
  }
  ASSERT_FALSE(results[0].empty());
  EXPECT_EQ(std::memcmp(results[0].data(), results[1].data(), results[0].size() * sizeof(float)),
            0);
}

// The convolution weights are packed at load (more prepared bytes than the folded constants
// alone) and the outputs agree with those without preparation to float rounding: the layout
// pass runs the convolutions in NHWC (another summation order), and folding a batch norm into a
// convolution rounds differently too.
TEST(Module, PreparedConvolutionWeightsAgree) {
  std::vector<float> results[2];
  size_t prepared_bytes[2] = {0, 0};
  for (int on = 0; on < 2; ++on) {
    Module module(zoo("cnn.pte"));
    module.set_prepare_constants(on == 1);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    auto method = module.method("forward");
#pragma GCC diagnostic pop
    ASSERT_TRUE(method.ok());
    prepared_bytes[on] = (*method)->prepared_constant_bytes();
    std::vector<float> in(3 * 16 * 16);
    for (size_t i = 0; i < in.size(); ++i) {
      in[i] = static_cast<float>(i % 11) * 0.2f - 1.0f;
    }
    auto out = module.forward(make_tensor_ptr({1, 3, 16, 16}, std::move(in)));
    ASSERT_TRUE(out.ok());
    const Tensor& t = (*out)[0].toTensor();
    results[on].assign(t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel());
  }
  // At least the two convolutions' weights (8x3x3x3 and 16x8x3x3 floats), packed.
  EXPECT_GE(prepared_bytes[1], prepared_bytes[0] + (8 * 3 * 9 + 16 * 8 * 9) * sizeof(float));
  ASSERT_FALSE(results[0].empty());
  ASSERT_EQ(results[0].size(), results[1].size());
  for (size_t i = 0; i < results[0].size(); ++i) {
    EXPECT_NEAR(results[1][i], results[0][i], 1e-5 + 1e-5 * std::fabs(results[0][i]))
        << "element " << i;
  }
}

}  // namespace
