// Kernel registration and lookup: keyed lookup with fallback, errors
// instead of aborts, all-or-nothing batches, capacity, method-scoped lists,
// the torch::executor aliases.
//
// Every test uses its own operator names: the registry is process-wide and
// has no unregistration.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/runtime/kernel/operator_registry.h>

using executorch::aten::DimOrderType;
using executorch::aten::ScalarType;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::get_op_function_from_registry;
using executorch::runtime::get_registered_kernels;
using executorch::runtime::Kernel;
using executorch::runtime::KernelKey;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::OpFunction;
using executorch::runtime::register_kernel;
using executorch::runtime::register_kernels;
using executorch::runtime::registry_has_op_function;
using executorch::runtime::Result;
using executorch::runtime::Span;
using executorch::runtime::TensorMeta;

namespace {

void fn_a(KernelRuntimeContext&, Span<EValue*>) {}
void fn_b(KernelRuntimeContext&, Span<EValue*>) {}
void fn_c(KernelRuntimeContext&, Span<EValue*>) {}

DimOrderType kDims2[] = {0, 1};
DimOrderType kDims2T[] = {1, 0};

TensorMeta float_2d() {
  return TensorMeta(ScalarType::Float, Span<DimOrderType>(kDims2, 2));
}
TensorMeta float_2d_transposed() {
  return TensorMeta(ScalarType::Float, Span<DimOrderType>(kDims2T, 2));
}
TensorMeta int_2d() {
  return TensorMeta(ScalarType::Int, Span<DimOrderType>(kDims2, 2));
}

bool has_entry(const char* name, OpFunction fn) {
  for (const Kernel& k : get_registered_kernels()) {
    if (std::string(k.name_) == name && k.op_ == fn) {
      return true;
    }
  }
  return false;
}

}  // namespace

TEST(KernelRegistryTest, KernelKeyBasics) {
  KernelKey fallback;
  KernelKey keyed("v1/6;0,1");
  KernelKey same(std::string("v1/6;0,1").c_str());
  EXPECT_TRUE(fallback.is_fallback());
  EXPECT_EQ(fallback.data(), nullptr);
  EXPECT_FALSE(keyed.is_fallback());
  EXPECT_TRUE(keyed == KernelKey("v1/6;0,1"));
  EXPECT_TRUE(keyed != fallback);
  EXPECT_TRUE(fallback == KernelKey());
  EXPECT_TRUE(keyed != KernelKey("v1/6;1,0"));
  (void)same;
  constexpr Kernel k("ns::op.out", fn_a);
  static_assert(k.kernel_key_.is_fallback(), "a Kernel without key is fallback");
}

TEST(KernelRegistryTest, UnknownOperatorIsMissing) {
  Result<OpFunction> fn = get_op_function_from_registry("registry_test::nope.out");
  EXPECT_EQ(fn.error(), Error::OperatorMissing);
  EXPECT_FALSE(registry_has_op_function("registry_test::nope.out"));
  EXPECT_EQ(get_op_function_from_registry(nullptr).error(), Error::InvalidArgument);
}

TEST(KernelRegistryTest, FallbackOnlyServesEveryKey) {
  static const Kernel k("registry_test::fallback_only.out", fn_a);
  ASSERT_EQ(register_kernel(k), Error::Ok);
  TensorMeta metas[] = {float_2d(), int_2d()};
  EXPECT_TRUE(registry_has_op_function("registry_test::fallback_only.out"));
  EXPECT_TRUE(registry_has_op_function("registry_test::fallback_only.out", metas));
  EXPECT_EQ(*get_op_function_from_registry("registry_test::fallback_only.out", metas), fn_a);
  EXPECT_TRUE(has_entry("registry_test::fallback_only.out", fn_a));
}

TEST(KernelRegistryTest, KeyedKernelWinsElseFallback) {
  static const Kernel kernels[] = {
      Kernel("registry_test::keyed.out", "v1/6;0,1|6;0,1", fn_b),
      Kernel("registry_test::keyed.out", fn_a),
      Kernel("registry_test::keyed.out", "v1/6;1,0|6;0,1", fn_c),
  };
  ASSERT_EQ(register_kernels(kernels), Error::Ok);

  TensorMeta ff[] = {float_2d(), float_2d()};
  TensorMeta tf[] = {float_2d_transposed(), float_2d()};
  TensorMeta ii[] = {int_2d(), int_2d()};
  TensorMeta f[] = {float_2d()};
  EXPECT_EQ(*get_op_function_from_registry("registry_test::keyed.out", ff), fn_b);
  EXPECT_EQ(*get_op_function_from_registry("registry_test::keyed.out", tf), fn_c);
  EXPECT_EQ(*get_op_function_from_registry("registry_test::keyed.out", ii), fn_a);
  // A prefix of a registered key is a different key.
  EXPECT_EQ(*get_op_function_from_registry("registry_test::keyed.out", f), fn_a);
  EXPECT_EQ(*get_op_function_from_registry("registry_test::keyed.out"), fn_a);
}

TEST(KernelRegistryTest, KeyedOnlyWithoutMatchIsMissing) {
  static const Kernel k("registry_test::keyed_only.out", "v1/6;0,1", fn_b);
  ASSERT_EQ(register_kernel(k), Error::Ok);
  TensorMeta f[] = {float_2d()};
  TensorMeta i[] = {int_2d()};
  EXPECT_EQ(*get_op_function_from_registry("registry_test::keyed_only.out", f), fn_b);
  EXPECT_EQ(get_op_function_from_registry("registry_test::keyed_only.out", i).error(),
            Error::OperatorMissing);
  EXPECT_FALSE(registry_has_op_function("registry_test::keyed_only.out"));
  EXPECT_TRUE(registry_has_op_function("registry_test::keyed_only.out", f));
}

TEST(KernelRegistryTest, EmptyKeyMatchesOperatorWithoutTensors) {
  static const Kernel kernels[] = {
      Kernel("registry_test::scalar_op.Scalar", "", fn_b),
      Kernel("registry_test::scalar_op.Scalar", fn_a),
  };
  ASSERT_EQ(register_kernels(kernels), Error::Ok);
  TensorMeta f[] = {float_2d()};
  EXPECT_EQ(*get_op_function_from_registry("registry_test::scalar_op.Scalar"), fn_b);
  EXPECT_EQ(*get_op_function_from_registry("registry_test::scalar_op.Scalar", f), fn_a);
}

TEST(KernelRegistryTest, UnencodableMetaIsInvalidArgument) {
  static const Kernel k("registry_test::bad_meta.out", fn_a);
  ASSERT_EQ(register_kernel(k), Error::Ok);
  DimOrderType dims[] = {0, 100};
  TensorMeta m[] = {TensorMeta(ScalarType::Float, Span<DimOrderType>(dims, 2))};
  EXPECT_EQ(get_op_function_from_registry("registry_test::bad_meta.out", m).error(),
            Error::InvalidArgument);
  EXPECT_FALSE(registry_has_op_function("registry_test::bad_meta.out", m));
}

TEST(KernelRegistryTest, DuplicateIsAnErrorNotAnAbort) {
  static const Kernel k("registry_test::dup.out", fn_a);
  static const Kernel keyed("registry_test::dup.out", "v1/6;0,1", fn_b);
  static const Kernel again("registry_test::dup.out", fn_c);
  static const Kernel keyed_again("registry_test::dup.out", "v1/6;0,1", fn_c);
  ASSERT_EQ(register_kernel(k), Error::Ok);
  ASSERT_EQ(register_kernel(keyed), Error::Ok);
  const size_t before = get_registered_kernels().size();
  EXPECT_EQ(register_kernel(again), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(register_kernel(keyed_again), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(get_registered_kernels().size(), before);
  // The first registration stays in force.
  EXPECT_EQ(*get_op_function_from_registry("registry_test::dup.out"), fn_a);
}

TEST(KernelRegistryTest, BatchWithDuplicateRegistersNothing) {
  static const Kernel first("registry_test::batch_dup_existing.out", fn_a);
  ASSERT_EQ(register_kernel(first), Error::Ok);
  static const Kernel batch[] = {
      Kernel("registry_test::batch_new_1.out", fn_a),
      Kernel("registry_test::batch_dup_existing.out", fn_b),
      Kernel("registry_test::batch_new_2.out", fn_a),
  };
  const size_t before = get_registered_kernels().size();
  EXPECT_EQ(register_kernels(batch), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(get_registered_kernels().size(), before);
  EXPECT_FALSE(registry_has_op_function("registry_test::batch_new_1.out"));
  EXPECT_FALSE(registry_has_op_function("registry_test::batch_new_2.out"));
}

TEST(KernelRegistryTest, DuplicateWithinBatchRegistersNothing) {
  static const Kernel batch[] = {
      Kernel("registry_test::in_batch_a.out", fn_a),
      Kernel("registry_test::in_batch_b.out", "v1/6;0", fn_a),
      Kernel("registry_test::in_batch_b.out", "v1/6;0", fn_b),
  };
  const size_t before = get_registered_kernels().size();
  EXPECT_EQ(register_kernels(batch), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(get_registered_kernels().size(), before);
  EXPECT_FALSE(registry_has_op_function("registry_test::in_batch_a.out"));
}

TEST(KernelRegistryTest, InvalidKernelsAreRejected) {
  static const Kernel no_fn("registry_test::no_fn.out", nullptr);
  static const Kernel no_name(nullptr, fn_a);
  static const Kernel empty_name("", fn_a);
  static const Kernel batch[] = {
      Kernel("registry_test::invalid_batch_ok.out", fn_a),
      Kernel("registry_test::invalid_batch_bad.out", nullptr),
  };
  const size_t before = get_registered_kernels().size();
  EXPECT_EQ(register_kernel(no_fn), Error::InvalidArgument);
  EXPECT_EQ(register_kernel(no_name), Error::InvalidArgument);
  EXPECT_EQ(register_kernel(empty_name), Error::InvalidArgument);
  EXPECT_EQ(register_kernels(batch), Error::InvalidArgument);
  EXPECT_EQ(get_registered_kernels().size(), before);
  EXPECT_FALSE(registry_has_op_function("registry_test::invalid_batch_ok.out"));
}

TEST(KernelRegistryTest, EmptyBatchIsOk) {
  const size_t before = get_registered_kernels().size();
  EXPECT_EQ(register_kernels(Span<const Kernel>()), Error::Ok);
  EXPECT_EQ(get_registered_kernels().size(), before);
}

TEST(KernelRegistryTest, MethodScopedListIsSearchedFirst) {
  static const Kernel global_kernels[] = {
      Kernel("registry_test::scoped.out", fn_a),
      Kernel("registry_test::scoped_global_only.out", fn_a),
  };
  ASSERT_EQ(register_kernels(global_kernels), Error::Ok);
  const Kernel scoped[] = {
      Kernel("registry_test::scoped.out", "v1/6;0,1", fn_b),
      Kernel("registry_test::scoped_list_only.out", fn_c),
  };
  TensorMeta f[] = {float_2d()};
  TensorMeta i[] = {int_2d()};
  Span<const Kernel> list(scoped, 2);
  EXPECT_EQ(*get_op_function_from_registry("registry_test::scoped.out", f, list), fn_b);
  // No match in the list (no fallback there): the global registry decides.
  EXPECT_EQ(*get_op_function_from_registry("registry_test::scoped.out", i, list), fn_a);
  EXPECT_EQ(*get_op_function_from_registry("registry_test::scoped_global_only.out", f, list), fn_a);
  EXPECT_EQ(*get_op_function_from_registry("registry_test::scoped_list_only.out", f, list), fn_c);
  // The list is not registered globally.
  EXPECT_FALSE(registry_has_op_function("registry_test::scoped_list_only.out"));
  EXPECT_EQ(get_op_function_from_registry("registry_test::nowhere.out", f, list).error(),
            Error::OperatorMissing);
}

TEST(KernelRegistryTest, TorchExecutorAliases) {
  static Kernel kernels[] = {
      torch::executor::Kernel("registry_test::torch_alias.out", fn_a),
  };
  ASSERT_EQ(torch::executor::register_kernels(
                executorch::runtime::ArrayRef<torch::executor::Kernel>(kernels, 1)),
            Error::Ok);
  EXPECT_TRUE(torch::executor::hasOpsFn("registry_test::torch_alias.out"));
  EXPECT_EQ(torch::executor::getOpsFn("registry_test::torch_alias.out"), fn_a);
  EXPECT_EQ(torch::executor::get_kernels().size(), get_registered_kernels().size());
  torch::executor::KernelRuntimeContext ctx;
  torch::executor::RuntimeContext& alias = ctx;
  (void)alias;
}

TEST(KernelRegistryTest, RegisteredKernelIsCallable) {
  struct Called {
    static void fn(KernelRuntimeContext& ctx, Span<EValue*> args) {
      ctx.fail(args.size() == 2 ? Error::Ok : Error::InvalidArgument);
    }
  };
  static const Kernel k("registry_test::callable.out", Called::fn);
  ASSERT_EQ(register_kernel(k), Error::Ok);
  OpFunction fn = *get_op_function_from_registry("registry_test::callable.out");
  EValue a, b;
  EValue* args[] = {&a, &b};
  KernelRuntimeContext ctx;
  ctx.fail(Error::Internal);
  fn(ctx, Span<EValue*>(args, 2));
  EXPECT_EQ(ctx.failure_state(), Error::Ok);
}

// Filling the registry changes it for the rest of the process, so these run
// in a child process (gtest death tests, re-executed in "threadsafe" style).
// Each returns an exit code: 0 when every expectation held.
namespace {

// Registers uniquely named kernels one at a time until registration fails.
// The names must outlive the registry entries: a static holds them until the child exits, so
// they stay reachable for LeakSanitizer's exit-time scan whatever the optimization level.
Error fill_registry(const char* prefix, std::vector<std::string>*& names) {
  static std::vector<std::string>* kept = nullptr;
  names = kept = new std::vector<std::string>();
  names->reserve(20000);
  Error last = Error::Ok;
  for (size_t i = 0; last == Error::Ok && i < 20000; ++i) {
    names->push_back(std::string(prefix) + std::to_string(i) + ".out");
    const Kernel k(names->back().c_str(), fn_a);
    last = register_kernel(k);
  }
  return last;
}

int capacity_child() {
  std::vector<std::string>* names = nullptr;
  const Error last = fill_registry("registry_test::fill_", names);
  const size_t total = get_registered_kernels().size();
  std::fprintf(stderr, "capacity=%zu\n", total);
  if (last != Error::RegistrationExceedingMaxKernels)
    return 2;
  if (total < 4096)
    return 3;
  // The kernel that did not fit is not there; the first one is.
  if (registry_has_op_function(names->back().c_str()))
    return 4;
  if (!registry_has_op_function("registry_test::fill_0.out"))
    return 5;
  return 0;
}

int full_registry_child() {
  std::vector<std::string>* names = nullptr;
  if (fill_registry("registry_test::fit_", names) != Error::RegistrationExceedingMaxKernels) {
    return 2;
  }
  const size_t full = get_registered_kernels().size();
  static const Kernel two[] = {
      Kernel("registry_test::fit_batch_a.out", fn_a),
      Kernel("registry_test::fit_batch_b.out", fn_a),
  };
  if (register_kernels(two) != Error::RegistrationExceedingMaxKernels)
    return 3;
  if (get_registered_kernels().size() != full)
    return 4;
  if (registry_has_op_function("registry_test::fit_batch_a.out"))
    return 5;
  // A duplicate is still reported as a duplicate when the table is full.
  static const Kernel dup("registry_test::fit_0.out", fn_b);
  if (register_kernel(dup) != Error::RegistrationAlreadyRegistered)
    return 6;
  // Lookups keep working on a full table.
  if (!registry_has_op_function("registry_test::fit_100.out"))
    return 7;
  return 0;
}

}  // namespace

TEST(KernelRegistryDeathTest, CapacityLimitIsAnError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(capacity_child()), ::testing::ExitedWithCode(0), "capacity=");
}

TEST(KernelRegistryDeathTest, FullRegistryRejectsBatchesWhole) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(full_registry_child()), ::testing::ExitedWithCode(0), "");
}
