// Method execution on the zoo fixtures (test/fixtures/zoo, written by the
// upstream exporter): every method whose operators are prim ops or test
// kernels runs every recorded call and matches the eager goldens; delegated
// programs fail with NotFound naming the backend; programs needing other
// kernels fail with OperatorMissing naming every missing operator.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>

#include "../common/json.h"
#include "../common/npy.h"
#include "../common/zoo_fixture.h"
#include "program_builder.h"
#include "test_support.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::Error;
using executorch::runtime::EValue;

namespace {

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)),
                              std::istreambuf_iterator<char>());
}

bool is_prim_op(const std::string& op) {
  return op.rfind("executorch_prim::", 0) == 0 || op == "aten::sym_size.int" ||
         op == "aten::sym_numel" || op == "aten::_local_scalar_dense";
}

bool runnable(const test::Json& method) {
  for (const auto& op : method["operators"].arr) {
    if (!is_prim_op(op.str) && !test::is_test_kernel(op.str)) {
      return false;
    }
  }
  return true;
}

class ZooTest : public ::testing::Test {
 protected:
  void SetUp() override {
    test::register_test_kernels();
    test::clear_logs();
    if (test::zoo_manifest().type != test::Json::Type::Object) {
      GTEST_SKIP() << "no zoo manifest at " << test::zoo_dir();
    }
  }
};

void expect_output(const EValue& got, const test::Json& want, double atol, double rtol,
                   const std::string& where) {
  const std::string kind = want["kind"].str;
  if (kind == "tensor") {
    ASSERT_TRUE(got.isTensor()) << where;
    test::Npy npy;
    std::string err;
    ASSERT_TRUE(test::read_npy(test::zoo_dir() + "/" + want["file"].str, &npy, &err)) << err;
    const Tensor& t = got.toTensor();
    ASSERT_EQ(t.scalar_type(), npy.dtype) << where;
    ASSERT_EQ(static_cast<size_t>(t.dim()), npy.shape.size()) << where;
    for (size_t d = 0; d < npy.shape.size(); ++d) {
      ASSERT_EQ(t.size(static_cast<ssize_t>(d)), npy.shape[d]) << where << " dim " << d;
    }
    TensorImpl gi(npy.dtype, static_cast<ssize_t>(npy.shape.size()), npy.shape.data(),
                  npy.data.data());
    Tensor golden(&gi);
    size_t bad = 0;
    for (size_t i = 0; i < npy.numel(); ++i) {
      const double a = test::element(t, i), b = test::element(golden, i);
      if (!(std::fabs(a - b) <= atol + rtol * std::fabs(b))) {
        if (bad++ < 3) {
          ADD_FAILURE() << where << " element " << i << ": " << a << " vs golden " << b;
        }
      }
    }
    EXPECT_EQ(bad, 0u) << where;
  } else if (kind == "int") {
    ASSERT_TRUE(got.isInt()) << where;
    EXPECT_EQ(got.toInt(), static_cast<int64_t>(want["value"].num)) << where;
  } else if (kind == "double") {
    ASSERT_TRUE(got.isDouble()) << where;
    EXPECT_NEAR(got.toDouble(), want["value"].num, atol + rtol * std::fabs(want["value"].num))
        << where;
  } else if (kind == "bool") {
    ASSERT_TRUE(got.isBool()) << where;
    EXPECT_EQ(got.toBool(), want["value"].b) << where;
  }
}

TEST_F(ZooTest, RunnableMethodsMatchGoldens) {
  size_t methods_run = 0;
  std::set<std::string> programs_run;
  for (const auto& prog : test::zoo_manifest()["programs"].arr) {
    if (prog["delegated"].b || prog["data_files"].size() > 0) {
      continue;
    }
    const std::vector<uint8_t> bytes = read_file(test::zoo_dir() + "/" + prog["file"].str);
    const double atol = prog["tolerance"]["atol"].num;
    const double rtol = prog["tolerance"]["rtol"].num;
    for (const auto& meth : prog["methods"].arr) {
      if (!runnable(meth)) {
        continue;
      }
      const std::string where0 = prog["name"].str + "." + meth["name"].str;
      auto l = test::load(bytes, meth["name"].str.c_str());
      ASSERT_EQ(l->program_error, Error::Ok) << where0;
      ASSERT_EQ(l->method_error, Error::Ok) << where0;
      // Outputs without planned storage write into buffers of ours.
      std::vector<std::vector<uint8_t>> out_buffers;
      auto meta = l->method->method_meta();
      for (size_t o = 0; o < meta.num_outputs(); ++o) {
        auto info = meta.output_tensor_meta(o);
        if (info.ok() && !info->is_memory_planned()) {
          out_buffers.emplace_back(info->nbytes() + 64);
          ASSERT_EQ(l->method->set_output_data_ptr(out_buffers.back().data(),
                                                   out_buffers.back().size(), o),
                    Error::Ok)
              << where0 << " output " << o;
        }
      }
      const auto& calls = meth["calls"].arr;
      for (size_t c = 0; c < calls.size(); ++c) {
        const std::string where = where0 + " call " + std::to_string(c);
        const auto& ins = calls[c]["inputs"].arr;
        std::vector<test::ZooValue> inputs(ins.size());
        for (size_t i = 0; i < ins.size(); ++i) {
          std::string err;
          ASSERT_TRUE(test::make_zoo_value(ins[i], &inputs[i], &err)) << where << ": " << err;
          ASSERT_EQ(l->method->set_input(inputs[i].value, i), Error::Ok) << where << " input " << i;
        }
        ASSERT_EQ(l->method->execute(), Error::Ok) << where;
        const auto& outs = calls[c]["outputs"].arr;
        ASSERT_EQ(l->method->outputs_size(), outs.size()) << where;
        for (size_t o = 0; o < outs.size(); ++o) {
          expect_output(l->method->get_output(o), outs[o], atol, rtol,
                        where + " output " + std::to_string(o));
        }
      }
      ++methods_run;
      programs_run.insert(prog["name"].str);
    }
  }
  // The zoo holds several such programs (constant methods, float16 add,
  // unplanned I/O, prim inputs, stateful buffers...).
  EXPECT_GE(methods_run, 4u);
  for (const char* name : {"stateful", "prim_inputs", "constant_methods"}) {
    bool in_zoo = false;
    for (const auto& prog : test::zoo_manifest()["programs"].arr) {
      in_zoo = in_zoo || prog["name"].str == name;
    }
    if (in_zoo) {
      EXPECT_EQ(programs_run.count(name), 1u) << name << " did not run";
    }
  }
}

TEST_F(ZooTest, DelegatedProgramsNeedTheirBackend) {
  size_t seen = 0;
  for (const auto& prog : test::zoo_manifest()["programs"].arr) {
    if (!prog["delegated"].b) {
      continue;
    }
    const std::vector<uint8_t> bytes = read_file(test::zoo_dir() + "/" + prog["file"].str);
    for (const auto& meth : prog["methods"].arr) {
      if (meth["backend_ids"].size() == 0) {
        continue;
      }
      test::clear_logs();
      auto l = test::load(bytes, meth["name"].str.c_str());
      ASSERT_EQ(l->program_error, Error::Ok) << prog["name"].str;
      EXPECT_EQ(l->method_error, Error::NotFound) << prog["name"].str;
      const std::string log = test::logs();
      for (const auto& id : meth["backend_ids"].arr) {
        EXPECT_NE(log.find("'" + id.str + "' is not registered"), std::string::npos)
            << prog["name"].str << ": " << log;
      }
      ++seen;
    }
  }
  EXPECT_GE(seen, 1u);
}

TEST_F(ZooTest, MissingOperatorsAreAllNamed) {
  size_t seen = 0;
  for (const auto& prog : test::zoo_manifest()["programs"].arr) {
    if (prog["delegated"].b || prog["data_files"].size() > 0) {
      continue;
    }
    const std::vector<uint8_t> bytes = read_file(test::zoo_dir() + "/" + prog["file"].str);
    for (const auto& meth : prog["methods"].arr) {
      if (runnable(meth)) {
        continue;
      }
      test::clear_logs();
      auto l = test::load(bytes, meth["name"].str.c_str());
      ASSERT_EQ(l->program_error, Error::Ok) << prog["name"].str;
      EXPECT_EQ(l->method_error, Error::OperatorMissing) << prog["name"].str;
      const std::string log = test::logs();
      for (const auto& op : meth["operators"].arr) {
        if (is_prim_op(op.str) || test::is_test_kernel(op.str)) {
          continue;
        }
        EXPECT_NE(log.find("missing operator: '" + op.str + "'"), std::string::npos)
            << prog["name"].str << "." << meth["name"].str << " does not name " << op.str;
      }
      ++seen;
    }
  }
  EXPECT_GE(seen, 1u);
}

TEST_F(ZooTest, ExternalConstantsNeedTheirDataMap) {
  bool found = false;
  for (const auto& prog : test::zoo_manifest()["programs"].arr) {
    if (prog["data_files"].size() == 0) {
      continue;
    }
    found = true;
    const std::vector<uint8_t> bytes = read_file(test::zoo_dir() + "/" + prog["file"].str);
    // Without the .ptd: the external constants cannot be resolved.
    auto without = test::load(bytes);
    ASSERT_EQ(without->program_error, Error::Ok);
    EXPECT_EQ(without->method_error, Error::InvalidState) << prog["name"].str;

    // With it, values parse; the load then fails only on the model kernels
    // this test binary does not carry (or succeeds if it needs none).
    auto loader = executorch::extension::FileDataLoader::from(
        (test::zoo_dir() + "/" + prog["data_files"][0].str).c_str());
    ASSERT_TRUE(loader.ok());
    auto map = executorch::extension::FlatTensorDataMap::load(&loader.get());
    ASSERT_TRUE(map.ok());
    auto with = test::load(bytes, "forward", &map.get());
    ASSERT_EQ(with->program_error, Error::Ok);
    bool needs_other = false;
    for (const auto& op : prog["operators"].arr) {
      needs_other = needs_other || (!is_prim_op(op.str) && !test::is_test_kernel(op.str));
    }
    EXPECT_EQ(with->method_error, needs_other ? Error::OperatorMissing : Error::Ok)
        << prog["name"].str;
  }
  if (!found) {
    GTEST_SKIP() << "no program with external data in the zoo";
  }
}

}  // namespace
