// Runs every case of every test/fixtures/kernels*/index.json (written by
// test/kernels/gen_goldens.py from eager PyTorch) through the kernel
// registry: the operator is looked up by name and called with an EValue
// argument array exactly as a Method calls it (schema arguments, then the
// return slot, which for out variants repeats the out). Error cases must
// fail the context without aborting.
#include <cmath>
#include <cstdlib>
#include <glob.h>
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
using executorch::runtime::Error;
using executorch::runtime::EValue;
using kernel_test::OwnedTensor;

// Every goldens directory: test/fixtures/kernels (the first families) and
// test/fixtures/kernels_<family>/ (one per later case file family), or the
// one directory ET_KERNEL_GOLDENS_DIR names.
std::vector<std::string> fixture_dirs() {
  const char* d = std::getenv("ET_KERNEL_GOLDENS_DIR");
  if (d != nullptr) {
    return {d};
  }
  std::vector<std::string> dirs;
  glob_t g{};
  if (glob("test/fixtures/kernels*/index.json", 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) {
      const std::string path = g.gl_pathv[i];
      dirs.push_back(path.substr(0, path.size() - std::string("/index.json").size()));
    }
  }
  globfree(&g);
  return dirs;
}

struct Index {
  std::string dir;
  test::Json json;
};

const std::vector<Index>& indexes() {
  static std::vector<Index> v;
  static bool loaded = false;
  if (!loaded) {
    loaded = true;
    for (const std::string& dir : fixture_dirs()) {
      v.push_back({dir, {}});
      test::read_json(dir + "/index.json", &v.back().json);
    }
  }
  return v;
}

struct CaseParam {
  size_t index;
  size_t i;
  std::string name;
};

std::vector<CaseParam> all_cases() {
  std::vector<CaseParam> v;
  for (size_t k = 0; k < indexes().size(); ++k) {
    const test::Json& cases = indexes()[k].json["cases"];
    for (size_t i = 0; i < cases.size(); ++i) {
      v.push_back({k, i, cases[i]["name"].str});
    }
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

// Error names of the "error" field a case may expect exactly; any other name
// only requires the kernel to fail.
bool error_from_name(const std::string& n, Error* e) {
  static const struct {
    const char* name;
    Error err;
  } kMap[] = {{"InvalidArgument", Error::InvalidArgument},
              {"NotSupported", Error::NotSupported},
              {"NotImplemented", Error::NotImplemented}};
  for (const auto& m : kMap) {
    if (n == m.name) {
      *e = m.err;
      return true;
    }
  }
  return false;
}

// Compares a result tensor with the golden `ex` ({file, dtype, shape}).
void expect_matches(const std::string& dir, const test::Json& c, const test::Json& ex,
                    const executorch::aten::Tensor& got, const std::string& what) {
  SCOPED_TRACE(what);
  ScalarType edt = ScalarType::Undefined;
  ASSERT_TRUE(dtype_from_name(ex["dtype"].str, &edt));
  test::Npy want;
  std::string nerr;
  ASSERT_TRUE(test::read_npy(dir + "/" + ex["file"].str, &want, &nerr)) << nerr;
  ASSERT_EQ(got.scalar_type(), edt);
  std::vector<int32_t> got_shape(got.sizes().begin(), got.sizes().end());
  ASSERT_EQ(got_shape, want.shape) << "result shape";
  // values=false: random or uninitialized results, only dtype and shape are defined.
  if (c.has("values") && !c["values"].b) {
    return;
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

class KernelGoldens : public ::testing::TestWithParam<CaseParam> {};

TEST_P(KernelGoldens, MatchesEagerPyTorch) {
  const std::string& dir = indexes()[GetParam().index].dir;
  const test::Json& c = indexes()[GetParam().index].json["cases"][GetParam().i];
  const std::string op = c["op"].str;
  const test::Json& args = c["args"];

  // Storage that must outlive the call.
  std::vector<std::unique_ptr<OwnedTensor>> tensors;
  std::vector<std::string> strings;
  strings.reserve(args.size());
  std::vector<std::unique_ptr<kernel_test::IntList>> int_lists;
  std::vector<std::unique_ptr<kernel_test::TList>> tensor_lists;
  std::vector<std::unique_ptr<kernel_test::OptTList>> opt_tensor_lists;
  std::vector<ArrayRef<char>> string_refs;
  string_refs.reserve(args.size());
  std::vector<std::vector<double>> double_lists;
  double_lists.reserve(args.size());
  std::vector<ArrayRef<double>> double_list_refs;
  double_list_refs.reserve(args.size());
  std::vector<std::unique_ptr<bool[]>> bool_lists;
  std::vector<ArrayRef<bool>> bool_list_refs;
  bool_list_refs.reserve(args.size());
  std::vector<EValue> values(args.size());
  std::vector<OwnedTensor*> arg_tensor(args.size(), nullptr);
  // The tensors of list arguments, by argument.
  std::vector<std::vector<OwnedTensor*>> list_tensors(args.size());

  // A tensor or out argument `j` (kind "tensor" reads its .npy).
  auto make_tensor = [&](const test::Json& j, bool is_input) -> OwnedTensor* {
    ScalarType dt = ScalarType::Undefined;
    EXPECT_TRUE(dtype_from_name(j["dtype"].str, &dt)) << j["dtype"].str;
    std::vector<int32_t> shape;
    test::Npy npy;
    if (is_input) {
      std::string err;
      EXPECT_TRUE(test::read_npy(dir + "/" + j["file"].str, &npy, &err)) << err;
      shape = npy.shape;
    } else {
      for (size_t k = 0; k < j["shape"].size(); ++k) {
        shape.push_back(static_cast<int32_t>(j["shape"][k].num));
      }
    }
    auto t = std::make_unique<OwnedTensor>(dt, shape, dim_order_of(j["dim_order"]), j["dynamic"].b,
                                           static_cast<size_t>(j["capacity"].num));
    if (is_input) {
      EXPECT_EQ(npy.data.size(), static_cast<size_t>(t->tensor().nbytes()));
      if (npy.data.size() == static_cast<size_t>(t->tensor().nbytes())) {
        t->set_logical(npy.data.data());
      }
    }
    tensors.push_back(std::move(t));
    return tensors.back().get();
  };

  for (size_t a = 0; a < args.size(); ++a) {
    const test::Json& j = args[a];
    const std::string kind = j["kind"].str;
    if (kind == "tensor" || kind == "out") {
      OwnedTensor* t = make_tensor(j, kind == "tensor");
      values[a] = EValue(t->tensor());
      arg_tensor[a] = t;
    } else if (kind == "tensorlist" || kind == "outlist") {
      std::vector<executorch::aten::Tensor> ts;
      for (size_t k = 0; k < j["value"].size(); ++k) {
        OwnedTensor* t = make_tensor(j["value"][k], kind == "tensorlist");
        list_tensors[a].push_back(t);
        ts.push_back(t->tensor());
      }
      tensor_lists.push_back(std::make_unique<kernel_test::TList>(ts));
      values[a] = tensor_lists.back()->ev;
    } else if (kind == "opttensorlist") {
      std::vector<std::optional<executorch::aten::Tensor>> ts;
      for (size_t k = 0; k < j["value"].size(); ++k) {
        if (j["value"][k].type == test::Json::Type::Null) {
          ts.push_back(std::nullopt);
          list_tensors[a].push_back(nullptr);
        } else {
          OwnedTensor* t = make_tensor(j["value"][k], true);
          list_tensors[a].push_back(t);
          ts.push_back(t->tensor());
        }
      }
      opt_tensor_lists.push_back(std::make_unique<kernel_test::OptTList>(ts));
      values[a] = opt_tensor_lists.back()->ev;
    } else if (kind == "int" || kind == "scalartype") {
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
    } else if (kind == "doublelist") {
      double_lists.emplace_back();
      for (size_t k = 0; k < j["value"].size(); ++k) {
        double_lists.back().push_back(std::strtod(j["value"][k].str.c_str(), nullptr));
      }
      double_list_refs.emplace_back(double_lists.back().data(), double_lists.back().size());
      values[a] = EValue(&double_list_refs.back());
    } else if (kind == "boollist") {
      const size_t n = j["value"].size();
      bool_lists.push_back(std::make_unique<bool[]>(n > 0 ? n : 1));
      for (size_t k = 0; k < n; ++k) {
        bool_lists.back()[k] = j["value"][k].b;
      }
      bool_list_refs.emplace_back(bool_lists.back().get(), n);
      values[a] = EValue(&bool_list_refs.back());
    } else if (kind == "intlist") {
      std::vector<int64_t> v;
      for (size_t k = 0; k < j["value"].size(); ++k) {
        v.push_back(static_cast<int64_t>(j["value"][k].num));
      }
      int_lists.push_back(std::make_unique<kernel_test::IntList>(v));
      values[a] = int_lists.back()->ev;
    } else {
      FAIL() << "unknown argument kind " << kind;
    }
  }
  if (HasFailure()) {
    return;
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
    Error want = Error::Ok;
    if (error_from_name(c["error"].str, &want)) {
      EXPECT_EQ(err, want) << "expected " << c["error"].str;
    }
    return;
  }
  ASSERT_EQ(err, Error::Ok) << "kernel failed";

  if (c.has("results")) {
    // Several outs, or an out list: every one is compared.
    const test::Json& rs = c["results"];
    for (size_t k = 0; k < rs.size(); ++k) {
      const size_t arg = static_cast<size_t>(rs[k]["arg"].num);
      const int item = static_cast<int>(rs[k]["item"].num);
      ASSERT_LT(arg, args.size());
      OwnedTensor* t = item < 0 ? arg_tensor[arg] : list_tensors[arg].at(static_cast<size_t>(item));
      ASSERT_NE(t, nullptr);
      expect_matches(dir, c, rs[k], t->tensor(), "result " + std::to_string(k));
    }
    return;
  }
  // "result_arg": the case checks an argument the op mutates (a KV cache)
  // rather than what it returns.
  const bool mutated_arg = c.has("result_arg");
  const size_t checked = mutated_arg ? static_cast<size_t>(c["result_arg"].num) : ret;
  ASSERT_LT(checked, arg_tensor.size());
  ASSERT_NE(arg_tensor[checked], nullptr);
  const executorch::aten::Tensor got = arg_tensor[checked]->tensor();
  // The returned EValue is the result tensor too.
  ASSERT_TRUE(stack.back()->isTensor());
  if (!mutated_arg) {
    EXPECT_EQ(stack.back()->toTensor().const_data_ptr(), got.const_data_ptr());
  }
  expect_matches(dir, c, c["expect"], got, "result");
}

std::string case_name(const ::testing::TestParamInfo<CaseParam>& info) {
  std::string s = info.param.name;
  for (char& ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) {
      ch = '_';
    }
  }
  return s + "_" + std::to_string(info.param.index) + "_" + std::to_string(info.param.i);
}

INSTANTIATE_TEST_SUITE_P(Index, KernelGoldens, ::testing::ValuesIn(all_cases()), case_name);

TEST(KernelGoldensIndex, Loaded) {
  ASSERT_FALSE(indexes().empty())
      << "no test/fixtures/kernels*/index.json (run from the repository root)";
  for (const Index& ix : indexes()) {
    EXPECT_GT(ix.json["cases"].size(), 0u) << "cannot read " << ix.dir << "/index.json";
  }
}

}  // namespace
