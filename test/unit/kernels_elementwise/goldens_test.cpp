// Runs every case of test/fixtures/kernels/index.json (written by
// test/kernels/gen_goldens.py from eager PyTorch) through the kernel
// registry: the operator is looked up by name and called with an EValue
// argument array exactly as a Method calls it (schema arguments, then the
// return slot, which for out variants repeats the out). Error cases must
// fail the context without aborting.
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

// kernel_test_util.h first: npy.h needs the executorch::aten names.
#include "kernel_test_util.h"

#include "../common/json.h"
#include "../common/npy.h"

namespace {

using executorch::aten::ArrayRef;
using executorch::aten::ScalarType;
using executorch::runtime::BoxedEvalueList;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using kernel_test::OwnedTensor;

std::string fixture_dir() {
  const char* d = std::getenv("ET_KERNEL_GOLDENS_DIR");
  return d != nullptr ? d : "test/fixtures/kernels";
}

const test::Json& index_json() {
  static test::Json j;
  static bool loaded = false;
  if (!loaded) {
    loaded = true;
    test::read_json(fixture_dir() + "/index.json", &j);
  }
  return j;
}

struct CaseParam {
  size_t i;
  std::string name;
};

std::vector<CaseParam> all_cases() {
  std::vector<CaseParam> v;
  const test::Json& cases = index_json()["cases"];
  for (size_t i = 0; i < cases.size(); ++i) {
    v.push_back({i, cases[i]["name"].str});
  }
  return v;
}

bool dtype_from_name(const std::string& n, ScalarType* t) {
  static const struct {
    const char* name;
    ScalarType type;
  } kMap[] = {{"float32", ScalarType::Float}, {"float64", ScalarType::Double},
              {"float16", ScalarType::Half},  {"bfloat16", ScalarType::BFloat16},
              {"int64", ScalarType::Long},    {"int32", ScalarType::Int},
              {"int16", ScalarType::Short},   {"int8", ScalarType::Char},
              {"uint8", ScalarType::Byte},    {"bool", ScalarType::Bool}};
  for (const auto& e : kMap) {
    if (n == e.name) {
      *t = e.type;
      return true;
    }
  }
  return false;
}

std::vector<uint8_t> dim_order_of(const test::Json& j) {
  std::vector<uint8_t> v;
  if (j.type == test::Json::Type::Array) {
    for (size_t i = 0; i < j.size(); ++i) {
      v.push_back(static_cast<uint8_t>(j[i].num));
    }
  }
  return v;
}

class KernelGoldens : public ::testing::TestWithParam<CaseParam> {};

TEST_P(KernelGoldens, MatchesEagerPyTorch) {
  const test::Json& c = index_json()["cases"][GetParam().i];
  const std::string op = c["op"].str;
  const test::Json& args = c["args"];

  // Storage that must outlive the call.
  std::vector<std::unique_ptr<OwnedTensor>> tensors;
  std::vector<std::string> strings;
  strings.reserve(args.size());
  std::vector<std::vector<int64_t>> int_lists;
  int_lists.reserve(args.size());
  std::vector<std::vector<EValue>> int_list_items;
  int_list_items.reserve(args.size());
  std::vector<std::vector<EValue*>> int_list_ptrs;
  int_list_ptrs.reserve(args.size());
  std::vector<std::unique_ptr<BoxedEvalueList<int64_t>>> boxed;
  std::vector<ArrayRef<char>> string_refs;
  string_refs.reserve(args.size());
  std::vector<EValue> values(args.size());
  std::vector<OwnedTensor*> arg_tensor(args.size(), nullptr);

  for (size_t a = 0; a < args.size(); ++a) {
    const test::Json& j = args[a];
    const std::string kind = j["kind"].str;
    if (kind == "tensor" || kind == "out") {
      ScalarType dt = ScalarType::Undefined;
      ASSERT_TRUE(dtype_from_name(j["dtype"].str, &dt)) << j["dtype"].str;
      std::vector<int32_t> shape;
      test::Npy npy;
      if (kind == "tensor") {
        std::string err;
        ASSERT_TRUE(test::read_npy(fixture_dir() + "/" + j["file"].str, &npy, &err)) << err;
        shape = npy.shape;
      } else {
        for (size_t k = 0; k < j["shape"].size(); ++k) {
          shape.push_back(static_cast<int32_t>(j["shape"][k].num));
        }
      }
      auto t =
          std::make_unique<OwnedTensor>(dt, shape, dim_order_of(j["dim_order"]), j["dynamic"].b,
                                        static_cast<size_t>(j["capacity"].num));
      if (kind == "tensor") {
        ASSERT_EQ(npy.data.size(), static_cast<size_t>(t->tensor().nbytes()));
        t->set_logical(npy.data.data());
      }
      values[a] = EValue(t->tensor());
      arg_tensor[a] = t.get();
      tensors.push_back(std::move(t));
    } else if (kind == "int") {
      values[a] = EValue(static_cast<int64_t>(j["value"].num));
    } else if (kind == "double") {
      values[a] = EValue(std::strtod(j["value"].str.c_str(), nullptr));
    } else if (kind == "bool") {
      values[a] = EValue(j["value"].b);
    } else if (kind == "none") {
      values[a] = EValue();
    } else if (kind == "string") {
      strings.push_back(j["value"].str);
      string_refs.emplace_back(strings.back().data(), strings.back().size());
      values[a] = EValue(&string_refs.back());
    } else if (kind == "intlist") {
      int_lists.emplace_back();
      int_list_items.emplace_back();
      int_list_ptrs.emplace_back();
      for (size_t k = 0; k < j["value"].size(); ++k) {
        int_list_items.back().push_back(EValue(static_cast<int64_t>(j["value"][k].num)));
      }
      int_lists.back().resize(int_list_items.back().size() + 1);
      for (EValue& e : int_list_items.back()) {
        int_list_ptrs.back().push_back(&e);
      }
      boxed.push_back(std::make_unique<BoxedEvalueList<int64_t>>(
          int_list_ptrs.back().data(), int_lists.back().data(),
          static_cast<int>(int_list_items.back().size())));
      values[a] = EValue(boxed.back().get());
    } else {
      FAIL() << "unknown argument kind " << kind;
    }
  }

  // Schema arguments, then the return slot (the out again, or self for an
  // in-place op).
  const size_t ret = static_cast<size_t>(c["ret"].num);
  std::vector<EValue*> stack;
  for (EValue& v : values) {
    stack.push_back(&v);
  }
  stack.push_back(&values[ret]);

  Error lookup = Error::Ok;
  const Error err = kernel_test::call_op(op.c_str(), stack, &lookup);
  ASSERT_EQ(lookup, Error::Ok) << "operator " << op << " is not registered";

  if (c.has("error")) {
    EXPECT_NE(err, Error::Ok) << "expected the kernel to fail the context";
    if (c["error"].str == "InvalidArgument") {
      EXPECT_EQ(err, Error::InvalidArgument);
    }
    return;
  }
  ASSERT_EQ(err, Error::Ok) << "kernel failed";

  const test::Json& ex = c["expect"];
  ScalarType edt = ScalarType::Undefined;
  ASSERT_TRUE(dtype_from_name(ex["dtype"].str, &edt));
  test::Npy want;
  std::string nerr;
  ASSERT_TRUE(test::read_npy(fixture_dir() + "/" + ex["file"].str, &want, &nerr)) << nerr;

  // "result_arg": the case checks an argument the op mutates (a KV cache)
  // rather than what it returns.
  const bool mutated_arg = c.has("result_arg");
  const size_t checked = mutated_arg ? static_cast<size_t>(c["result_arg"].num) : ret;
  ASSERT_LT(checked, arg_tensor.size());
  ASSERT_NE(arg_tensor[checked], nullptr);
  const executorch::aten::Tensor got = arg_tensor[checked]->tensor();
  ASSERT_EQ(got.scalar_type(), edt);
  std::vector<int32_t> got_shape(got.sizes().begin(), got.sizes().end());
  ASSERT_EQ(got_shape, want.shape) << "result shape";
  // The returned EValue is the result tensor too.
  ASSERT_TRUE(stack.back()->isTensor());
  if (!mutated_arg) {
    EXPECT_EQ(stack.back()->toTensor().const_data_ptr(), got.const_data_ptr());
  }

  const std::vector<uint8_t> bytes = kernel_test::logical_bytes(got);
  ASSERT_EQ(bytes.size(), want.data.size());
  const double rtol = c["rtol"].num;
  const double atol = c["atol"].num;
  const bool exact = rtol == 0 && atol == 0;
  size_t bad = 0;
  for (size_t i = 0; i < static_cast<size_t>(got.numel()); ++i) {
    const double g = kernel_test::element_as_double(edt, bytes.data(), i);
    const double w = kernel_test::element_as_double(edt, want.data.data(), i);
    bool ok;
    if (std::isnan(w) || std::isnan(g)) {
      ok = std::isnan(w) && std::isnan(g);
    } else if (std::isinf(w) || exact) {
      ok = g == w;
    } else {
      ok = std::fabs(g - w) <= atol + rtol * std::fabs(w);
    }
    if (!ok && bad++ < 5) {
      ADD_FAILURE() << "element " << i << ": got " << g << ", want " << w;
    }
  }
  EXPECT_EQ(bad, 0u) << bad << " of " << got.numel() << " elements differ";
}

std::string case_name(const ::testing::TestParamInfo<CaseParam>& info) {
  std::string s = info.param.name;
  for (char& ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) {
      ch = '_';
    }
  }
  return s + "_" + std::to_string(info.param.i);
}

INSTANTIATE_TEST_SUITE_P(Index, KernelGoldens, ::testing::ValuesIn(all_cases()), case_name);

TEST(KernelGoldensIndex, Loaded) {
  ASSERT_GT(index_json()["cases"].size(), 100u)
      << "cannot read " << fixture_dir() << "/index.json (run from the repository root)";
}

}  // namespace
