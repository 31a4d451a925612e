// Module on the zoo fixtures. No kernel library is linked: the tests that run
// compute methods hand Module a per-method kernel list (float add/mul).
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

using namespace ::executorch::extension;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Kernel;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::Span;

namespace {

std::string zoo(const std::string& name) {
  const char* dir = std::getenv("ET_ZOO_DIR");
  return std::string(dir ? dir : "test/fixtures/zoo") + "/" + name;
}

// Minimal .npy reader for little-endian float32 arrays.
std::vector<float> read_npy_f32(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), {});
  if (bytes.size() < 10 || bytes.compare(1, 5, "NUMPY") != 0) {
    ADD_FAILURE() << "not an npy file: " << path;
    return {};
  }
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len =
        static_cast<uint8_t>(bytes[8]) | (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    offset = 10;
  } else {
    uint32_t len = 0;
    std::memcpy(&len, bytes.data() + 8, 4);
    header_len = len;
    offset = 12;
  }
  const std::string header = bytes.substr(offset, header_len);
  EXPECT_NE(header.find("<f4"), std::string::npos) << header;
  const size_t data_off = offset + header_len;
  std::vector<float> out((bytes.size() - data_off) / sizeof(float));
  std::memcpy(out.data(), bytes.data() + data_off, out.size() * sizeof(float));
  return out;
}

// Test kernels: aten::add.out(self, other, *, alpha, out) and
// aten::mul.out(self, other, *, out) on float tensors (`other` may repeat
// along the leading dimensions). The boxed
// stack holds the arguments followed by the returned (out) value.
void add_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  if (stack.size() != 5) {
    ctx.fail(Error::InvalidArgument);
    return;
  }
  const Tensor& a = stack[0]->toTensor();
  const Tensor& b = stack[1]->toTensor();
  const double alpha =
      stack[2]->isInt() ? static_cast<double>(stack[2]->toInt()) : stack[2]->toDouble();
  Tensor& out = stack[3]->toTensor();
  if (a.numel() != out.numel() || b.numel() == 0 || out.numel() % b.numel() != 0) {
    ctx.fail(Error::InvalidArgument);
    return;
  }
  const float* pa = a.const_data_ptr<float>();
  const float* pb = b.const_data_ptr<float>();
  float* po = out.mutable_data_ptr<float>();
  for (ssize_t i = 0; i < out.numel(); ++i) {
    po[i] = pa[i] + static_cast<float>(alpha) * pb[i % b.numel()];
  }
}

void mul_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  if (stack.size() != 4) {
    ctx.fail(Error::InvalidArgument);
    return;
  }
  const Tensor& a = stack[0]->toTensor();
  Tensor& out = stack[2]->toTensor();
  float* po = out.mutable_data_ptr<float>();
  const float* pa = a.const_data_ptr<float>();
  if (stack[1]->isTensor()) {
    const Tensor& b = stack[1]->toTensor();
    if (b.numel() == 0 || out.numel() % b.numel() != 0) {
      ctx.fail(Error::InvalidArgument);
      return;
    }
    const float* pb = b.const_data_ptr<float>();
    for (ssize_t i = 0; i < out.numel(); ++i) {
      po[i] = pa[i] * pb[i % b.numel()];
    }
  } else {
    const double s = stack[1]->isInt() ? stack[1]->toInt() : stack[1]->toDouble();
    for (ssize_t i = 0; i < out.numel(); ++i) {
      po[i] = pa[i] * static_cast<float>(s);
    }
  }
}

std::vector<Kernel> test_kernels() {
  return {Kernel("aten::add.out", add_out), Kernel("aten::mul.out", mul_out)};
}

void expect_floats(const Tensor& t, const std::vector<float>& expected) {
  ASSERT_EQ(t.scalar_type(), ScalarType::Float);
  ASSERT_EQ(static_cast<size_t>(t.numel()), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(t.const_data_ptr<float>()[i], expected[i], 1e-5) << "at " << i;
  }
}

TEST(Module, LazyLoadAndMethodNames) {
  Module module(zoo("multi_method.pte"));
  EXPECT_FALSE(module.is_loaded());
  auto names = module.method_names();
  ASSERT_TRUE(names.ok());
  EXPECT_TRUE(module.is_loaded());
  EXPECT_EQ(names->size(), 3u);
  EXPECT_EQ(names->count("forward"), 1u);
  EXPECT_EQ(names->count("scale"), 1u);
  EXPECT_EQ(names->count("project"), 1u);
  auto n = module.num_methods();
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 3u);
  EXPECT_NE(module.program(), nullptr);
}

TEST(Module, EveryLoadMode) {
  for (auto mode : {Module::LoadMode::File, Module::LoadMode::Mmap,
                    Module::LoadMode::MmapUseMlockIgnoreErrors, Module::LoadMode::MmapUseMadvise}) {
    Module module(zoo("multi_method.pte"), mode);
    EXPECT_EQ(module.load(), Error::Ok) << static_cast<int>(mode);
    EXPECT_TRUE(module.is_loaded());
  }
}

TEST(Module, MissingFileIsAnError) {
  Module module(zoo("does_not_exist.pte"));
  EXPECT_NE(module.load(), Error::Ok);
  EXPECT_FALSE(module.is_loaded());
  EXPECT_FALSE(module.method_names().ok());
  EXPECT_FALSE(module.forward().ok());
  Module file_mode(zoo("does_not_exist.pte"), Module::LoadMode::File);
  EXPECT_NE(file_mode.load(), Error::Ok);
}

TEST(Module, NotAProgramIsAnError) {
  Module module(zoo("data/identity/forward.call0.in0.npy"));
  EXPECT_NE(module.load(), Error::Ok);
  EXPECT_FALSE(module.is_loaded());
}

TEST(Module, MethodMetaWithoutLoadingTheMethod) {
  Module module(zoo("multi_method.pte"));
  auto meta = module.method_meta("forward");
  ASSERT_TRUE(meta.ok());
  EXPECT_STREQ(meta->name(), "forward");
  EXPECT_EQ(meta->num_inputs(), 2u);
  EXPECT_EQ(meta->num_outputs(), 1u);
  auto in0 = meta->input_tensor_meta(0);
  ASSERT_TRUE(in0.ok());
  EXPECT_EQ(in0->scalar_type(), ScalarType::Float);
  ASSERT_EQ(in0->sizes().size(), 2u);
  EXPECT_EQ(in0->sizes()[0], 2);
  EXPECT_EQ(in0->sizes()[1], 4);
  EXPECT_EQ(meta->output_tensor_meta(0)->sizes().size(), 2u);
  EXPECT_FALSE(module.is_method_loaded("forward"));
  EXPECT_FALSE(module.method_meta("nope").ok());
}

TEST(Module, MissingOperatorsFailTheMethodLoad) {
  Module module(zoo("multi_method.pte"));
  EXPECT_EQ(module.load_method("project"), Error::OperatorMissing);
  EXPECT_FALSE(module.is_method_loaded("project"));
  auto out = module.execute("project", make_tensor_ptr({2, 4}, std::vector<float>(8, 1.f)));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error(), Error::OperatorMissing);
}

TEST(Module, UnknownMethod) {
  Module module(zoo("multi_method.pte"));
  EXPECT_NE(module.load_method("nope"), Error::Ok);
  EXPECT_FALSE(module.execute("nope").ok());
  EXPECT_NE(module.set_input("nope", EValue(int64_t(1)), 0), Error::Ok);
}

TEST(Module, IdentityForwardReturnsInputs) {
  Module module(zoo("identity.pte"));
  auto x = make_tensor_ptr({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  auto y = make_tensor_ptr({4}, {9.f, 8.f, 7.f, 6.f});
  auto out = module.forward({x, y});
  ASSERT_TRUE(out.ok()) << static_cast<int>(out.error());
  ASSERT_EQ(out->size(), 2u);
  expect_floats(out->at(0).toTensor(), {1, 2, 3, 4, 5, 6});
  expect_floats(out->at(1).toTensor(), {9, 8, 7, 6});
  EXPECT_TRUE(module.is_method_loaded("forward"));
  EXPECT_TRUE(module.unload_forward());
  EXPECT_FALSE(module.is_method_loaded("forward"));
  EXPECT_FALSE(module.unload_forward());
}

TEST(Module, ConstantMethods) {
  Module module(zoo("constant_methods.pte"));
  auto i = module.get("get_int");
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(i->toInt(), 7);
  auto d = module.get("get_float");
  ASSERT_TRUE(d.ok());
  EXPECT_DOUBLE_EQ(d->toDouble(), 0.25);
  auto b = module.execute("get_bool");
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->at(0).toBool());
  auto t = module.get("get_tensor");
  ASSERT_TRUE(t.ok());
  expect_floats(t->toTensor(),
                read_npy_f32(zoo("data/constant_methods/get_tensor.call0.out0.npy")));
}

TEST(Module, ForwardWithPerMethodKernels) {
  Module module(zoo("constant_methods.pte"));
  ASSERT_EQ(module.load_forward(nullptr, nullptr, nullptr, test_kernels()), Error::Ok);
  std::vector<float> in = read_npy_f32(zoo("data/constant_methods/forward.call0.in0.npy"));
  auto x = from_blob(in.data(), {2, 2});
  auto out = module.forward(x);
  ASSERT_TRUE(out.ok()) << static_cast<int>(out.error());
  expect_floats(out->at(0).toTensor(),
                read_npy_f32(zoo("data/constant_methods/forward.call0.out0.npy")));
}

// The program leaves its input and output unplanned: Module backs the output itself, so
// forward() works without set_output() (it used to run kernels into a null buffer).
TEST(Module, UnplannedOutputNeedsNoSetOutput) {
  Module module(zoo("unplanned_io.pte"));
  ASSERT_EQ(module.load_forward(nullptr, nullptr, nullptr, test_kernels()), Error::Ok);
  auto x = read_npy_f32(zoo("data/unplanned_io/forward.call0.in0.npy"));
  auto y = read_npy_f32(zoo("data/unplanned_io/forward.call0.in1.npy"));
  auto out = module.forward({from_blob(x.data(), {2, 4}), from_blob(y.data(), {2, 4})});
  ASSERT_TRUE(out.ok()) << static_cast<int>(out.error());
  expect_floats(out->at(0).toTensor(),
                read_npy_f32(zoo("data/unplanned_io/forward.call0.out0.npy")));
}

TEST(Module, MultiMethodExecuteMatchesReference) {
  for (bool share : {false, true}) {
    Module module(zoo("multi_method.pte"), Module::LoadMode::Mmap, nullptr, nullptr, nullptr,
                  share);
    ASSERT_EQ(module.load_method("forward", nullptr, nullptr, nullptr, test_kernels()), Error::Ok);
    ASSERT_EQ(module.load_method("scale", nullptr, nullptr, nullptr, test_kernels()), Error::Ok);
    auto x = read_npy_f32(zoo("data/multi_method/forward.call0.in0.npy"));
    auto y = read_npy_f32(zoo("data/multi_method/forward.call0.in1.npy"));
    auto out = module.forward({from_blob(x.data(), {2, 4}), from_blob(y.data(), {2, 4})});
    ASSERT_TRUE(out.ok()) << static_cast<int>(out.error());
    expect_floats(out->at(0).toTensor(),
                  read_npy_f32(zoo("data/multi_method/forward.call0.out0.npy")));
    auto s = read_npy_f32(zoo("data/multi_method/scale.call0.in0.npy"));
    auto scaled = module.execute("scale", from_blob(s.data(), {2, 4}));
    ASSERT_TRUE(scaled.ok());
    expect_floats(scaled->at(0).toTensor(),
                  read_npy_f32(zoo("data/multi_method/scale.call0.out0.npy")));
  }
}

TEST(Module, SetInputsThenForwardAndGetOutputs) {
  Module module(zoo("multi_method.pte"));
  ASSERT_EQ(module.load_forward(nullptr, nullptr, nullptr, test_kernels()), Error::Ok);
  auto x = make_tensor_ptr({2, 4}, std::vector<float>(8, 1.f));
  auto y = make_tensor_ptr({2, 4}, std::vector<float>(8, 3.f));
  ASSERT_EQ(module.set_inputs({x, y}), Error::Ok);
  auto out = module.forward();
  ASSERT_TRUE(out.ok());
  expect_floats(out->at(0).toTensor(), std::vector<float>(8, 7.f));
  ASSERT_EQ(module.set_input(make_tensor_ptr({2, 4}, std::vector<float>(8, 0.f)), 1), Error::Ok);
  ASSERT_TRUE(module.forward().ok());
  auto o = module.get_output();
  ASSERT_TRUE(o.ok());
  expect_floats(o->toTensor(), std::vector<float>(8, 1.f));
  auto all = module.get_outputs();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 1u);
  EXPECT_FALSE(module.get_output(5).ok());
  EXPECT_EQ(module.set_output(EValue(int64_t(3))), Error::InvalidArgument);
  EXPECT_EQ(module.set_outputs({}), Error::InvalidArgument);
  EXPECT_NE(module.set_input(EValue(int64_t(3)), 7), Error::Ok);
}

TEST(Module, WrongInputShapeIsAnError) {
  Module module(zoo("multi_method.pte"));
  ASSERT_EQ(module.load_forward(nullptr, nullptr, nullptr, test_kernels()), Error::Ok);
  auto big = make_tensor_ptr({5, 5}, std::vector<float>(25, 1.f));
  auto out = module.forward({big, big});
  EXPECT_FALSE(out.ok());
}

TEST(Module, FromDataLoader) {
  auto loader = FileDataLoader::from(zoo("identity.pte").c_str());
  ASSERT_TRUE(loader.ok());
  Module module(std::make_unique<FileDataLoader>(std::move(loader.get())));
  EXPECT_EQ(module.load(), Error::Ok);
  auto names = module.method_names();
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(names->count("forward"), 1u);
}

TEST(Module, SharedProgram) {
  Module first(zoo("identity.pte"));
  ASSERT_EQ(first.load(), Error::Ok);
  Module second(first.program());
  EXPECT_TRUE(second.is_loaded());
  auto x = make_tensor_ptr({2, 3}, std::vector<float>(6, 2.f));
  auto y = make_tensor_ptr({4}, std::vector<float>(4, 3.f));
  auto a = first.forward({x, y});
  auto b = second.forward({x, y});
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  expect_floats(b->at(1).toTensor(), std::vector<float>(4, 3.f));
}

TEST(Module, BackendOptionsAreCopied) {
  Module module(zoo("identity.pte"));
  executorch::runtime::LoadBackendOptionsMap map;
  {
    executorch::runtime::BackendOption opts[1];
    std::strcpy(opts[0].key, "num_threads");
    opts[0].value = 4;
    ASSERT_EQ(map.set_options("SomeBackend", Span<executorch::runtime::BackendOption>(opts, 1)),
              Error::Ok);
    ASSERT_EQ(module.load(map), Error::Ok);
    std::strcpy(opts[0].key, "changed");
  }
  ASSERT_EQ(module.backend_options().size(), 1u);
  auto opts = module.backend_options().get_options("SomeBackend");
  ASSERT_EQ(opts.size(), 1u);
  EXPECT_STREQ(opts[0].key, "num_threads");
  EXPECT_TRUE(module
                  .forward({make_tensor_ptr({2, 3}, std::vector<float>(6, 0.f)),
                            make_tensor_ptr({4}, std::vector<float>(4, 0.f))})
                  .ok());
}

TEST(Module, ExternalDataFile) {
  Module with_data(zoo("external_constants.pte"), zoo("external_constants.ptd"));
  EXPECT_EQ(with_data.load(), Error::Ok);
  EXPECT_TRUE(with_data.method_meta("forward").ok());
  // No kernel library: the load fails on operators, not on the data.
  EXPECT_EQ(with_data.load_method("forward"), Error::OperatorMissing);

  Module bad_data(zoo("external_constants.pte"), zoo("identity.pte"));
  EXPECT_NE(bad_data.load(), Error::Ok);
  Module missing(zoo("external_constants.pte"), zoo("nope.ptd"));
  EXPECT_NE(missing.load(), Error::Ok);
}

TEST(Module, AliasesNameTheSameClass) {
  static_assert(
      std::is_same_v<executorch::extension::Module, executorch::extension::module::Module>);
  static_assert(std::is_same_v<torch::executor::Module, executorch::extension::module::Module>);
  static_assert(!std::is_copy_constructible_v<Module>);
  static_assert(!std::is_move_constructible_v<Module>);
}

}  // namespace
