// Whole-model test of the CPU kernel library: every non-delegated program (and
// every delegated one whose backends are linked here) of the zoo (test/fixtures/zoo, real upstream exports) is loaded through
// Program / Method with libexecutorch_kernels.so linked, and every method
// runs every recorded call in order on one loaded method (stateful programs
// carry their state; dynamic-shape programs get both sizes; prim inputs are
// passed as recorded). Outputs must match the eager goldens within the
// program's manifest tolerance. One test per program; the max error is
// printed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/executor/method.h>

#include "../common/json.h"
#include "../common/npy.h"
#include "../common/split_every_loop.h"
#include "../common/zoo_fixture.h"
#include "../common/zoo_runner.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::EValue;
using executorch::runtime::Method;
using executorch::runtime::MethodLoadConfig;

namespace {

// A delegated program runs here when every backend it names is linked into this test (the
// XNNPACK backend is: mk/test-backend-xnnpack.mk), so lowered twins are checked against the
// same goldens.
bool backends_registered(const test::Json& program) {
  for (const auto& id : program["backend_ids"].arr) {
    if (executorch::runtime::get_backend_class(id.str.c_str()) == nullptr) {
      return false;
    }
  }
  return true;
}

std::vector<std::string> program_names() {
  std::vector<std::string> names;
  for (const auto& p : test::zoo_manifest()["programs"].arr) {
    if (!p["delegated"].b || backends_registered(p)) {
      names.push_back(p["name"].str);
    }
  }
  if (names.empty()) {
    names.push_back("none");
  }
  return names;
}

const test::Json* find_program(const std::string& name) {
  for (const auto& p : test::zoo_manifest()["programs"].arr) {
    if (p["name"].str == name) {
      return &p;
    }
  }
  return nullptr;
}

// Element i (logical order) of t as double.
double element(const Tensor& t, int64_t i) {
  int64_t off = 0;
  for (ssize_t d = t.dim() - 1; d >= 0; --d) {
    const int64_t s = t.size(d);
    off += (i % s) * t.strides()[d];
    i /= s;
  }
  const void* p = t.const_data_ptr();
  switch (t.scalar_type()) {
    case ScalarType::Float:
      return static_cast<const float*>(p)[off];
    case ScalarType::Double:
      return static_cast<const double*>(p)[off];
    case ScalarType::Half:
      return static_cast<float>(static_cast<const executorch::aten::Half*>(p)[off]);
    case ScalarType::BFloat16:
      return static_cast<float>(static_cast<const executorch::aten::BFloat16*>(p)[off]);
    case ScalarType::Long:
      return static_cast<double>(static_cast<const int64_t*>(p)[off]);
    case ScalarType::Int:
      return static_cast<const int32_t*>(p)[off];
    case ScalarType::Short:
      return static_cast<const int16_t*>(p)[off];
    case ScalarType::Char:
      return static_cast<const int8_t*>(p)[off];
    case ScalarType::Byte:
      return static_cast<const uint8_t*>(p)[off];
    case ScalarType::Bool:
      return static_cast<const bool*>(p)[off] ? 1.0 : 0.0;
    default:
      return NAN;
  }
}

// Compares one output; returns the max abs error (tensors) and counts mismatches.
double compare(const EValue& got, const test::Json& want, double atol, double rtol,
               const std::string& where) {
  const std::string kind = want["kind"].str;
  if (kind == "tensor") {
    EXPECT_TRUE(got.isTensor()) << where;
    if (!got.isTensor()) {
      return INFINITY;
    }
    test::Npy npy;
    std::string err;
    EXPECT_TRUE(test::read_npy(test::zoo_dir() + "/" + want["file"].str, &npy, &err)) << err;
    const Tensor& t = got.toTensor();
    EXPECT_EQ(t.scalar_type(), npy.dtype) << where;
    EXPECT_EQ(static_cast<size_t>(t.dim()), npy.shape.size()) << where;
    if (static_cast<size_t>(t.dim()) != npy.shape.size()) {
      return INFINITY;
    }
    for (size_t d = 0; d < npy.shape.size(); ++d) {
      EXPECT_EQ(t.size(static_cast<ssize_t>(d)), npy.shape[d]) << where << " dim " << d;
      if (t.size(static_cast<ssize_t>(d)) != npy.shape[d]) {
        return INFINITY;
      }
    }
    TensorImpl gi(npy.dtype, static_cast<ssize_t>(npy.shape.size()), npy.shape.data(),
                  npy.data.data());
    const Tensor golden(&gi);
    const bool exact = !executorch::runtime::isFloatingType(npy.dtype);
    double max_err = 0;
    size_t bad = 0;
    for (int64_t i = 0; i < golden.numel(); ++i) {
      const double a = element(t, i), b = element(golden, i);
      const double e = std::fabs(a - b);
      const bool same_special = (std::isnan(a) && std::isnan(b)) || (a == b);
      if (!same_special) {
        max_err = std::isnan(e) ? INFINITY : std::max(max_err, e);
      }
      const bool ok = same_special || (!exact && e <= atol + rtol * std::fabs(b));
      if (!ok && bad++ < 3) {
        ADD_FAILURE() << where << " element " << i << ": " << a << " vs golden " << b;
      }
    }
    EXPECT_EQ(bad, 0u) << where;
    return max_err;
  }
  if (kind == "int") {
    EXPECT_TRUE(got.isInt() && got.toInt() == static_cast<int64_t>(want["value"].num)) << where;
  } else if (kind == "double") {
    EXPECT_TRUE(got.isDouble()) << where;
    if (got.isDouble()) {
      EXPECT_NEAR(got.toDouble(), want["value"].num, atol + rtol * std::fabs(want["value"].num))
          << where;
      return std::fabs(got.toDouble() - want["value"].num);
    }
  } else if (kind == "bool") {
    EXPECT_TRUE(got.isBool() && got.toBool() == want["value"].b) << where;
  }
  return 0;
}

class KernelsZoo : public ::testing::TestWithParam<std::string> {};

TEST_P(KernelsZoo, AllMethodsMatchGoldens) {
  const test::Json* prog = find_program(GetParam());
  if (prog == nullptr) {
    GTEST_SKIP() << "no zoo manifest at " << test::zoo_dir();
  }
  const std::string name = (*prog)["name"].str;
  const double atol = (*prog)["tolerance"]["atol"].num;
  const double rtol = (*prog)["tolerance"]["rtol"].num;
  double prog_max = 0;
  test::run_zoo_program(
      *prog, [&](const std::string& where, Method& method, const test::Json& call) {
        const auto& outs = call["outputs"].arr;
        ASSERT_EQ(method.outputs_size(), outs.size()) << where;
        double call_max = 0;
        for (size_t o = 0; o < outs.size(); ++o) {
          call_max = std::max(call_max, compare(method.get_output(o), outs[o], atol, rtol,
                                                where + " output " + std::to_string(o)));
        }
        std::printf("[ zoo      ] %-22s %s: max abs error %.3g\n", name.c_str(),
                    where.substr(name.size() + 1).c_str(), call_max);
        prog_max = std::max(prog_max, call_max);
      });
  std::printf("[ zoo      ] %-22s max abs error %.3g (atol %g, rtol %g)\n", name.c_str(), prog_max,
              atol, rtol);
}

// Every output of a call as bytes (tensors: their data; scalars: their value's bytes).
std::vector<std::string> output_bytes(const Method& method) {
  std::vector<std::string> bytes;
  for (size_t o = 0; o < method.outputs_size(); ++o) {
    const EValue& v = method.get_output(o);
    if (v.isTensor()) {
      const Tensor& t = v.toTensor();
      bytes.emplace_back(static_cast<const char*>(t.const_data_ptr()), t.nbytes());
    } else if (v.isDouble()) {
      const double d = v.toDouble();
      bytes.emplace_back(reinterpret_cast<const char*>(&d), sizeof(d));
    } else if (v.isInt()) {
      bytes.push_back(std::to_string(v.toInt()));
    } else {
      bytes.push_back(v.isBool() ? (v.toBool() ? "true" : "false") : "other");
    }
  }
  return bytes;
}

// Every float32 output element of the method, in order.
std::vector<float> float_outputs(const Method& method) {
  std::vector<float> values;
  for (size_t o = 0; o < method.outputs_size(); ++o) {
    const EValue& v = method.get_output(o);
    if (v.isTensor() && v.toTensor().scalar_type() == executorch::aten::ScalarType::Float) {
      const Tensor& t = v.toTensor();
      values.insert(values.end(), t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel());
    }
  }
  return values;
}

// The CPU kernels split work across the thread pool only along outputs, never inside a sum:
// every program must give bit-identical outputs at 1, 2 and 3 threads. The zoo's tensors are
// small, below the work a chunk normally needs, so this binary sets the chunk minimum to one
// item (ET_KERNELS_MIN_PARALLEL_WORK, read once by the kernel library before its first split):
// at 2 and 3 threads every loop that can split does, and the goldens above are checked on the
// split paths too.
::testing::Environment* const kSplitEverything = split_every_loop::install();

class KernelsZooThreads : public ::testing::TestWithParam<std::string> {
 protected:
  void TearDown() override {
    EXPECT_TRUE(executorch::extension::threadpool::set_num_threads(0));
  }
};

TEST_P(KernelsZooThreads, OutputsDoNotDependOnTheThreadCount) {
  const test::Json* prog = find_program(GetParam());
  if (prog == nullptr) {
    GTEST_SKIP() << "no zoo manifest at " << test::zoo_dir();
  }
  std::vector<std::vector<std::string>> single;
  for (size_t threads : {1, 2, 3}) {
    ASSERT_TRUE(executorch::extension::threadpool::set_num_threads(threads));
    size_t index = 0;
    test::run_zoo_program(*prog, [&](const std::string& where, Method& method, const test::Json&) {
      std::vector<std::string> got = output_bytes(method);
      if (threads == 1) {
        single.push_back(std::move(got));
        return;
      }
      ASSERT_LT(index, single.size()) << where;
      const std::vector<std::string>& want = single[index++];
      ASSERT_EQ(got.size(), want.size()) << where;
      for (size_t o = 0; o < got.size(); ++o) {
        EXPECT_TRUE(got[o] == want[o])
            << where << " output " << o << " differs at " << threads << " threads from 1 thread";
      }
    });
    if (threads > 1) {
      EXPECT_EQ(index, single.size());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, KernelsZooThreads, ::testing::ValuesIn(program_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// Load-time preparation moves data that execute() would have moved and fuses activations that
// compute the same floats: with it on and off every output of every call must be bit-identical
// (and it must have folded something in the programs whose weights are permuted, so the
// comparison is not vacuous). The exceptions round differently: a batch norm folded into the
// convolution before it, and convolutions the layout pass runs in NHWC (another summation
// order). Programs with inference batch norms or convolutions must agree within their manifest
// tolerance instead (the goldens test checks them against eager too).
TEST_P(KernelsZoo, PrepareOnAndOffAgree) {
  const test::Json* prog = find_program(GetParam());
  if (prog == nullptr) {
    GTEST_SKIP() << "no zoo manifest at " << test::zoo_dir();
  }
  const std::string name = (*prog)["name"].str;
  bool folds_batch_norm = false;
  for (const auto& op : (*prog)["operators"].arr) {
    folds_batch_norm = folds_batch_norm ||
                       op.str == "aten::_native_batch_norm_legit_no_training.out" ||
                       op.str == "aten::convolution.out";
  }
  const double atol = (*prog)["tolerance"]["atol"].num;
  const double rtol = (*prog)["tolerance"]["rtol"].num;
  std::vector<std::vector<float>> prepared_floats;
  // Prepared instructions per method (the same at every call of one loaded method).
  std::map<std::string, size_t> folded_by_method;
  std::vector<std::vector<std::string>> prepared;
  test::run_zoo_program(*prog, [&](const std::string& where, Method& method, const test::Json&) {
    folded_by_method[where.substr(0, where.rfind(" call "))] = method.prepared_instruction_count();
    prepared.push_back(output_bytes(method));
    prepared_floats.push_back(float_outputs(method));
  });
  MethodLoadConfig no_prepare;
  no_prepare.prepare_constants = false;
  size_t index = 0;
  test::run_zoo_program(
      *prog,
      [&](const std::string& where, Method& method, const test::Json&) {
        EXPECT_EQ(method.prepared_instruction_count(), 0u) << where;
        EXPECT_EQ(method.prepared_constant_bytes(), 0u) << where;
        ASSERT_LT(index, prepared.size()) << where;
        const std::vector<std::string> got = output_bytes(method);
        const std::vector<std::string>& want = prepared[index++];
        ASSERT_EQ(got.size(), want.size()) << where;
        if (folds_batch_norm) {
          const std::vector<float> off = float_outputs(method);
          const std::vector<float>& on = prepared_floats[index - 1];
          ASSERT_EQ(off.size(), on.size()) << where;
          double worst = 0;
          for (size_t i = 0; i < off.size(); ++i) {
            const double e = std::fabs(static_cast<double>(on[i]) - off[i]);
            worst = std::max(worst, e);
            EXPECT_LE(e, atol + rtol * std::fabs(off[i]))
                << where << " element " << i << ": " << on[i] << " (prepared) vs " << off[i];
          }
          std::printf("[ zoo      ] %-22s prepare on/off max abs difference %.3g\n", name.c_str(),
                      worst);
          return;
        }
        for (size_t o = 0; o < got.size(); ++o) {
          EXPECT_TRUE(got[o] == want[o])
              << where << " output " << o << " differs between preparation on and off";
        }
      },
      no_prepare);
  EXPECT_EQ(index, prepared.size());
  size_t folded = 0;
  for (const auto& entry : folded_by_method) {
    folded += entry.second;
  }
  // A program whose weights are dequantized per channel permutes the dequantized values, which
  // preparation does not fold (the dequantize is computation, not a move of constant data).
  bool permutes_weights = false;
  bool dequantizes_weights = false;
  for (const auto& op : (*prog)["operators"].arr) {
    permutes_weights = permutes_weights || op.str == "aten::permute_copy.out";
    dequantizes_weights =
        dequantizes_weights || op.str == "quantized_decomposed::dequantize_per_channel.out";
  }
  if (permutes_weights && !dequantizes_weights && !(*prog)["delegated"].b) {
    EXPECT_GT(folded, 0u) << name << ": no permute_copy of a weight was prepared";
    std::printf("[ zoo      ] %-22s %zu instructions prepared at load\n", name.c_str(), folded);
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, KernelsZoo, ::testing::ValuesIn(program_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
