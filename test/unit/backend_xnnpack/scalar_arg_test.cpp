// A 0-dim tensor argument: the exporter serializes a scalar tensor passed to the delegate (a
// lifted constant such as ViT's or BERT's attention scale, MobileNetV3's hardswish constants)
// as a value of dims [1]; the Method hands the delegate the 0-dim tensor. The backend takes it
// for the one element, and keeps a 0-dim output 0-dim. A 0-dim tensor for a value of more than
// one element is still refused with the rank in the message.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "../common/log_capture.h"
#include "../kernels_elementwise/kernel_test_util.h"
#include "xnn_test_util.h"

using executorch::aten::ScalarType;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using kernel_test::OwnedTensor;
using xnn_test::Delegate;
using xnn_test::GraphWriter;
namespace fb = xnn_test::fb;
using T = fb::XNodeUnion;

namespace {

// y[2, 3] = x[2, 3] * s[1]; z[1] = s + s.
GraphWriter scale_graph(uint32_t s_elements) {
  GraphWriter g;
  const uint32_t x = g.value({2, 3}, 0);
  const uint32_t s = g.value({s_elements}, 1);
  const uint32_t y = g.value({2, 3}, 2, true);
  const uint32_t z = g.value({s_elements}, 3, true);
  g.binary(T::XNNMultiply, x, s, y);
  g.binary(T::XNNAdd, s, s, z);
  return g;
}

TEST(XnnpackScalarArgument, ZeroDimTensorsStandForOneElementValues) {
  Delegate d(scale_graph(1).payload());
  ASSERT_EQ(d.init_error, Error::Ok);
  const std::vector<float> xv{1, -2, 3, -4, 5, -6};
  OwnedTensor x(ScalarType::Float, {2, 3});
  x.set_logical(reinterpret_cast<const uint8_t*>(xv.data()));
  OwnedTensor s(ScalarType::Float, {});
  const float sv = 0.5f;
  s.set_logical(reinterpret_cast<const uint8_t*>(&sv));
  OwnedTensor y(ScalarType::Float, {2, 3});
  OwnedTensor z(ScalarType::Float, {});
  EValue ex(x.tensor()), es(s.tensor()), ey(y.tensor()), ez(z.tensor());
  ASSERT_EQ(d.execute({&ex, &es, &ey, &ez}), Error::Ok);
  const float* out = y.tensor().const_data_ptr<float>();
  for (size_t i = 0; i < xv.size(); ++i) {
    EXPECT_EQ(out[i], xv[i] * sv) << i;
  }
  EXPECT_EQ(z.tensor().dim(), 0);
  EXPECT_EQ(z.tensor().const_data_ptr<float>()[0], 1.0f);
}

TEST(XnnpackScalarArgument, ZeroDimTensorForSeveralElementsIsRefused) {
  Delegate d(scale_graph(3).payload());
  ASSERT_EQ(d.init_error, Error::Ok);
  OwnedTensor x(ScalarType::Float, {2, 3});
  OwnedTensor s(ScalarType::Float, {});
  OwnedTensor y(ScalarType::Float, {2, 3});
  OwnedTensor z(ScalarType::Float, {3});
  EValue ex(x.tensor()), es(s.tensor()), ey(y.tensor()), ez(z.tensor());
  test::clear_captured_logs();
  EXPECT_EQ(d.execute({&ex, &es, &ey, &ez}), Error::InvalidArgument);
  EXPECT_NE(test::captured_logs().find("argument 1 has rank 0, the graph's value 1"),
            std::string::npos)
      << test::captured_logs();
}

}  // namespace
