// print_evalue (operator<< for EValue, evalue_edge_items) and
// prepare_input_tensors.
#include <executorch/extension/evalue_util/print_evalue.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/runner_util/inputs.h>
#include <executorch/extension/tensor/tensor.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

using namespace ::executorch::extension;
using executorch::aten::ScalarType;
using executorch::runtime::BoxedEvalueList;
using executorch::runtime::Error;
using executorch::runtime::EValue;

namespace {

template <typename T>
std::string str(const T& v, long edge = -1) {
  std::ostringstream os;
  if (edge >= 0) {
    os << evalue_edge_items(edge);
  }
  os << v;
  return os.str();
}

TEST(PrintEValue, Scalars) {
  EXPECT_EQ(str(EValue()), "None");
  EXPECT_EQ(str(EValue(true)), "True");
  EXPECT_EQ(str(EValue(false)), "False");
  EXPECT_EQ(str(EValue(int64_t(-42))), "-42");
  EXPECT_EQ(str(EValue(2.0)), "2.");
  EXPECT_EQ(str(EValue(0.0)), "0.");
  EXPECT_EQ(str(EValue(1.5)), "1.5");
}

TEST(PrintEValue, Tensors) {
  auto t = make_tensor_ptr({2, 2}, {1.0f, 2.5f, 3.0f, 4.0f});
  EXPECT_EQ(str(EValue(*t)), "tensor(sizes=[2, 2], [1., 2.5, 3., 4.])");
  auto i = make_tensor_ptr({8}, std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(str(EValue(*i)), "tensor(sizes=[8], [0, 1, 2, ..., 5, 6, 7])");
  EXPECT_EQ(str(EValue(*i), 1), "tensor(sizes=[8], [0, ..., 7])");
  EXPECT_EQ(str(EValue(*i), 100), "tensor(sizes=[8], [0, 1, 2, 3, 4, 5, 6, 7])");
  auto b = make_tensor_ptr({2}, std::vector<uint8_t>{1, 0}, ScalarType::Bool);
  EXPECT_EQ(str(EValue(*b)), "tensor(sizes=[2], [True, False])");
}

TEST(PrintEValue, LongListsWrap) {
  std::vector<int32_t> v(30);
  for (int k = 0; k < 30; ++k)
    v[k] = k;
  auto t = make_tensor_ptr({30}, v);
  const std::string s = str(EValue(*t), 100);
  EXPECT_EQ(s.find("tensor(sizes=[30], [\n  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, \n"), 0u) << s;
  EXPECT_NE(s.find("29, \n])"), std::string::npos) << s;
  const std::string elided = str(EValue(*t), 6);
  EXPECT_NE(elided.find("\n  ...,\n  24, 25, 26, 27, 28, 29, \n])"), std::string::npos) << elided;
}

TEST(PrintEValue, IntListHasLength) {
  int64_t values[3] = {4, 5, 6};
  EValue boxed[3] = {EValue(values[0]), EValue(values[1]), EValue(values[2])};
  EValue* ptrs[3] = {&boxed[0], &boxed[1], &boxed[2]};
  int64_t storage[3];
  BoxedEvalueList<int64_t> list(ptrs, storage, 3);
  EXPECT_EQ(str(EValue(&list)), "(len=3)[4, 5, 6]");
}

std::string zoo(const std::string& name) {
  const char* dir = std::getenv("ET_ZOO_DIR");
  return std::string(dir ? dir : "test/fixtures/zoo") + "/" + name;
}

TEST(PrepareInputs, FillsOnesAndCopiesBuffers) {
  Module module(zoo("identity.pte"));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  auto method = module.method("forward");  // deprecated, still supported
#pragma GCC diagnostic pop
  ASSERT_TRUE(method.ok());
  {
    auto cleanup = prepare_input_tensors(*method.get());
    ASSERT_TRUE(cleanup.ok());
    ASSERT_EQ(method.get()->execute(), Error::Ok);
    const auto& out = method.get()->get_output(1).toTensor();
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(out.const_data_ptr<float>()[i], 1.0f);
  }
  std::vector<float> x(6, 2.0f), y(4, 5.0f);
  std::vector<std::pair<char*, size_t>> buffers{
      {reinterpret_cast<char*>(x.data()), x.size() * sizeof(float)},
      {reinterpret_cast<char*>(y.data()), y.size() * sizeof(float)}};
  auto cleanup = prepare_input_tensors(*method.get(), {}, buffers);
  ASSERT_TRUE(cleanup.ok());
  ASSERT_EQ(method.get()->execute(), Error::Ok);
  EXPECT_EQ(method.get()->get_output(1).toTensor().const_data_ptr<float>()[3], 5.0f);

  buffers[1].second = 3;
  EXPECT_EQ(prepare_input_tensors(*method.get(), {}, buffers).error(), Error::InvalidArgument);
  buffers.pop_back();
  EXPECT_EQ(prepare_input_tensors(*method.get(), {}, buffers).error(), Error::InvalidArgument);
  PrepareInputTensorsOptions tight;
  tight.max_total_allocation_size = 8;
  EXPECT_EQ(prepare_input_tensors(*method.get(), tight).error(), Error::InvalidProgram);
  tight = {};
  tight.max_inputs = 1;
  EXPECT_EQ(prepare_input_tensors(*method.get(), tight).error(), Error::InvalidProgram);
}

}  // namespace
