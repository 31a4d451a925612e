// Whole-model test of the CPU kernel library: every non-delegated program (and
// every delegated one whose backends are linked here) of
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
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/backend/interface.h>
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
using executorch::runtime::Program;
using executorch::runtime::Span;

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
  auto loader = FileDataLoader::from((test::zoo_dir() + "/" + (*prog)["file"].str).c_str());
  ASSERT_TRUE(loader.ok()) << name;
  auto program = Program::load(&loader.get());
  ASSERT_TRUE(program.ok()) << name << ": Program::load error "
                            << static_cast<int>(program.error());
  std::unique_ptr<FileDataLoader> ptd_loader;
  std::unique_ptr<FlatTensorDataMap> data_map;
  if ((*prog)["data_files"].size() > 0) {
    auto l = FileDataLoader::from((test::zoo_dir() + "/" + (*prog)["data_files"][0].str).c_str());
    ASSERT_TRUE(l.ok());
    ptd_loader = std::make_unique<FileDataLoader>(std::move(l.get()));
    auto m = FlatTensorDataMap::load(ptd_loader.get());
    ASSERT_TRUE(m.ok());
    data_map = std::make_unique<FlatTensorDataMap>(std::move(m.get()));
  }
  const double atol = (*prog)["tolerance"]["atol"].num;
  const double rtol = (*prog)["tolerance"]["rtol"].num;
  double prog_max = 0;
  for (const auto& meth : (*prog)["methods"].arr) {
    const std::string mname = meth["name"].str;
    const std::string where0 = name + "." + mname;
    auto meta = program->method_meta(mname.c_str());
    ASSERT_TRUE(meta.ok()) << where0;
    std::vector<std::vector<uint8_t>> buffers;
    std::vector<Span<uint8_t>> spans;
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      buffers.emplace_back(static_cast<size_t>(meta->memory_planned_buffer_size(i).get()));
    }
    for (auto& b : buffers) {
      spans.emplace_back(b.data(), b.size());
    }
    HierarchicalAllocator planned({spans.data(), spans.size()});
    MallocMemoryAllocator method_alloc;
    MallocMemoryAllocator temp_alloc;
    MemoryManager mm(&method_alloc, &planned, &temp_alloc);
    auto method = program->load_method(mname.c_str(), &mm, nullptr, data_map.get());
    ASSERT_TRUE(method.ok()) << where0 << ": load_method error 0x" << std::hex
                             << static_cast<int>(method.error());
    std::vector<std::vector<uint8_t>> out_buffers;
    for (size_t o = 0; o < meta->num_outputs(); ++o) {
      auto tag = meta->output_tag(o);
      if (!tag.ok() || tag.get() != executorch::runtime::Tag::Tensor) {
        continue;
      }
      auto info = meta->output_tensor_meta(o);
      if (info.ok() && !info->is_memory_planned()) {
        out_buffers.emplace_back(info->nbytes() + 64);
        ASSERT_EQ(
            method->set_output_data_ptr(out_buffers.back().data(), out_buffers.back().size(), o),
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

INSTANTIATE_TEST_SUITE_P(Zoo, KernelsZoo, ::testing::ValuesIn(program_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
