// Whole-model test of the CPU kernel library: every non-delegated program of
// the zoo (test/fixtures/zoo, real upstream exports) is loaded through
// Program / Method with libexecutorch_kernels.so linked, and every method
// runs every recorded call in order on one loaded method (stateful programs
// carry their state; dynamic-shape programs get both sizes; prim inputs are
// passed as recorded). Outputs must match the eager goldens within the
// program's manifest tolerance. One test per program; the max error is
// printed.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>

#include "../common/json.h"
#include "../common/npy.h"
#include "../common/zoo_fixture.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::extension::FileDataLoader;
using executorch::extension::FlatTensorDataMap;
using executorch::extension::MallocMemoryAllocator;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::MethodLoadConfig;
using executorch::runtime::Program;
using executorch::runtime::Span;

namespace {

std::vector<std::string> program_names() {
  std::vector<std::string> names;
  for (const auto& p : test::zoo_manifest()["programs"].arr) {
    if (!p["delegated"].b) {
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

// A method of a zoo program loaded with its own planned memory, allocators and storage for
// unplanned tensor outputs.
struct LoadedMethod {
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<Span<uint8_t>> spans;
  std::unique_ptr<HierarchicalAllocator> planned;
  MallocMemoryAllocator method_alloc;
  MallocMemoryAllocator temp_alloc;
  std::unique_ptr<MemoryManager> mm;
  std::vector<std::vector<uint8_t>> out_buffers;
  std::optional<Method> method;
};

void load_zoo_method(const Program& program, const std::string& mname,
                     const executorch::runtime::NamedDataMap* data_map,
                     const MethodLoadConfig& config, std::unique_ptr<LoadedMethod>* out) {
  auto lm = std::make_unique<LoadedMethod>();
  auto meta = program.method_meta(mname.c_str());
  ASSERT_TRUE(meta.ok()) << mname;
  for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
    lm->buffers.emplace_back(static_cast<size_t>(meta->memory_planned_buffer_size(i).get()));
  }
  for (auto& b : lm->buffers) {
    lm->spans.emplace_back(b.data(), b.size());
  }
  lm->planned = std::make_unique<HierarchicalAllocator>(
      Span<Span<uint8_t>>(lm->spans.data(), lm->spans.size()));
  lm->mm = std::make_unique<MemoryManager>(&lm->method_alloc, lm->planned.get(), &lm->temp_alloc);
  auto method = program.load_method(mname.c_str(), lm->mm.get(), config, nullptr, data_map);
  ASSERT_TRUE(method.ok()) << mname << ": load_method error 0x" << std::hex
                           << static_cast<int>(method.error());
  lm->method.emplace(std::move(method.get()));
  for (size_t o = 0; o < meta->num_outputs(); ++o) {
    auto tag = meta->output_tag(o);
    if (!tag.ok() || tag.get() != executorch::runtime::Tag::Tensor) {
      continue;
    }
    auto info = meta->output_tensor_meta(o);
    if (info.ok() && !info->is_memory_planned()) {
      lm->out_buffers.emplace_back(info->nbytes() + 64);
      ASSERT_EQ(lm->method->set_output_data_ptr(lm->out_buffers.back().data(),
                                                lm->out_buffers.back().size(), o),
                Error::Ok)
          << mname << " output " << o;
    }
  }
  *out = std::move(lm);
}

// A zoo program file and its external data (if any), loaded.
struct LoadedProgram {
  std::optional<FileDataLoader> loader;
  std::optional<Program> program;
  std::unique_ptr<FileDataLoader> ptd_loader;
  std::unique_ptr<FlatTensorDataMap> data_map;
};

void load_zoo_program(const test::Json& prog, std::unique_ptr<LoadedProgram>* out) {
  auto lp = std::make_unique<LoadedProgram>();
  const std::string name = prog["name"].str;
  auto loader = FileDataLoader::from((test::zoo_dir() + "/" + prog["file"].str).c_str());
  ASSERT_TRUE(loader.ok()) << name;
  lp->loader.emplace(std::move(loader.get()));
  auto program = Program::load(&*lp->loader);
  ASSERT_TRUE(program.ok()) << name << ": Program::load error "
                            << static_cast<int>(program.error());
  lp->program.emplace(std::move(program.get()));
  if (prog["data_files"].size() > 0) {
    auto l = FileDataLoader::from((test::zoo_dir() + "/" + prog["data_files"][0].str).c_str());
    ASSERT_TRUE(l.ok());
    lp->ptd_loader = std::make_unique<FileDataLoader>(std::move(l.get()));
    auto m = FlatTensorDataMap::load(lp->ptd_loader.get());
    ASSERT_TRUE(m.ok());
    lp->data_map = std::make_unique<FlatTensorDataMap>(std::move(m.get()));
  }
  *out = std::move(lp);
}

class KernelsZoo : public ::testing::TestWithParam<std::string> {};

TEST_P(KernelsZoo, AllMethodsMatchGoldens) {
  const test::Json* prog = find_program(GetParam());
  if (prog == nullptr) {
    GTEST_SKIP() << "no zoo manifest at " << test::zoo_dir();
  }
  const std::string name = (*prog)["name"].str;
  std::unique_ptr<LoadedProgram> lp;
  load_zoo_program(*prog, &lp);
  if (HasFatalFailure()) {
    return;
  }
  const Program* program = &*lp->program;
  const FlatTensorDataMap* data_map = lp->data_map.get();
  const double atol = (*prog)["tolerance"]["atol"].num;
  const double rtol = (*prog)["tolerance"]["rtol"].num;
  double prog_max = 0;
  for (const auto& meth : (*prog)["methods"].arr) {
    const std::string mname = meth["name"].str;
    const std::string where0 = name + "." + mname;
    std::unique_ptr<LoadedMethod> loaded;
    load_zoo_method(*program, mname, data_map, MethodLoadConfig{}, &loaded);
    if (HasFatalFailure()) {
      return;
    }
    Method* method = &*loaded->method;
    const auto& calls = meth["calls"].arr;
    for (size_t c = 0; c < calls.size(); ++c) {
      const std::string where = where0 + " call " + std::to_string(c);
      const auto& ins = calls[c]["inputs"].arr;
      std::vector<test::ZooValue> inputs(ins.size());
      for (size_t i = 0; i < ins.size(); ++i) {
        std::string err;
        ASSERT_TRUE(test::make_zoo_value(ins[i], &inputs[i], &err)) << where << ": " << err;
        ASSERT_EQ(method->set_input(inputs[i].value, i), Error::Ok) << where << " input " << i;
      }
      const Error e = method->execute();
      ASSERT_EQ(e, Error::Ok) << where << ": execute error 0x" << std::hex << static_cast<int>(e);
      const auto& outs = calls[c]["outputs"].arr;
      ASSERT_EQ(method->outputs_size(), outs.size()) << where;
      double call_max = 0;
      for (size_t o = 0; o < outs.size(); ++o) {
        call_max = std::max(call_max, compare(method->get_output(o), outs[o], atol, rtol,
                                              where + " output " + std::to_string(o)));
      }
      std::printf("[ zoo      ] %-22s %-12s call %zu: max abs error %.3g\n", name.c_str(),
                  mname.c_str(), c, call_max);
      prog_max = std::max(prog_max, call_max);
    }
  }
  std::printf("[ zoo      ] %-22s max abs error %.3g (atol %g, rtol %g)\n", name.c_str(), prog_max,
              atol, rtol);
}

// Load-time preparation only moves data that execute() would have moved: with it on and off
// every output of every call must be bit-identical (and it must have folded something in the
// programs whose weights are permuted, so the comparison is not vacuous).
TEST_P(KernelsZoo, PrepareOnAndOffAreBitIdentical) {
  const test::Json* prog = find_program(GetParam());
  if (prog == nullptr) {
    GTEST_SKIP() << "no zoo manifest at " << test::zoo_dir();
  }
  const std::string name = (*prog)["name"].str;
  std::unique_ptr<LoadedProgram> lp;
  load_zoo_program(*prog, &lp);
  if (HasFatalFailure()) {
    return;
  }
  const Program* program = &*lp->program;
  const FlatTensorDataMap* data_map = lp->data_map.get();
  size_t folded = 0;
  for (const auto& meth : (*prog)["methods"].arr) {
    const std::string mname = name + "." + meth["name"].str;
    std::unique_ptr<LoadedMethod> on, off;
    MethodLoadConfig no_prepare;
    no_prepare.prepare_constants = false;
    load_zoo_method(*program, meth["name"].str, data_map, MethodLoadConfig{}, &on);
    load_zoo_method(*program, meth["name"].str, data_map, no_prepare, &off);
    if (HasFatalFailure()) {
      return;
    }
    EXPECT_EQ(off->method->prepared_instruction_count(), 0u);
    EXPECT_EQ(off->method->prepared_constant_bytes(), 0u);
    folded += on->method->prepared_instruction_count();
    const auto& calls = meth["calls"].arr;
    for (size_t c = 0; c < calls.size(); ++c) {
      const std::string where = mname + " call " + std::to_string(c);
      const auto& ins = calls[c]["inputs"].arr;
      std::vector<test::ZooValue> inputs(ins.size());
      for (size_t i = 0; i < ins.size(); ++i) {
        std::string err;
        ASSERT_TRUE(test::make_zoo_value(ins[i], &inputs[i], &err)) << where << ": " << err;
        ASSERT_EQ(on->method->set_input(inputs[i].value, i), Error::Ok) << where;
        ASSERT_EQ(off->method->set_input(inputs[i].value, i), Error::Ok) << where;
      }
      ASSERT_EQ(on->method->execute(), Error::Ok) << where;
      ASSERT_EQ(off->method->execute(), Error::Ok) << where;
      ASSERT_EQ(on->method->outputs_size(), off->method->outputs_size()) << where;
      for (size_t o = 0; o < on->method->outputs_size(); ++o) {
        const EValue& a = on->method->get_output(o);
        const EValue& b = off->method->get_output(o);
        ASSERT_EQ(a.isTensor(), b.isTensor()) << where << " output " << o;
        if (!a.isTensor()) {
          continue;
        }
        const Tensor& ta = a.toTensor();
        const Tensor& tb = b.toTensor();
        ASSERT_EQ(ta.nbytes(), tb.nbytes()) << where << " output " << o;
        EXPECT_EQ(std::memcmp(ta.const_data_ptr(), tb.const_data_ptr(), ta.nbytes()), 0)
            << where << " output " << o << " differs with preparation on";
      }
    }
  }
  bool permutes_weights = false;
  for (const auto& op : (*prog)["operators"].arr) {
    permutes_weights = permutes_weights || op.str == "aten::permute_copy.out";
  }
  if (permutes_weights && !(*prog)["delegated"].b) {
    EXPECT_GT(folded, 0u) << name << ": no permute_copy of a weight was prepared";
    std::printf("[ zoo      ] %-22s %zu instructions prepared at load\n", name.c_str(), folded);
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, KernelsZoo, ::testing::ValuesIn(program_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
