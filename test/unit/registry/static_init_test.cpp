// Registration from static initializers of the test program itself, i.e.
// before main() and before runtime_init().
#include <gtest/gtest.h>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/kernel/operator_registry.h>

using executorch::runtime::ArrayRef;
using executorch::runtime::Backend;
using executorch::runtime::BackendExecutionContext;
using executorch::runtime::BackendInitContext;
using executorch::runtime::BackendInterface;
using executorch::runtime::CompileSpec;
using executorch::runtime::DelegateHandle;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Kernel;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::Result;
using executorch::runtime::Span;

namespace {

void static_kernel(KernelRuntimeContext&, Span<EValue*>) {}

class StaticBackend final : public BackendInterface {
 public:
  bool is_available() const override {
    return true;
  }
  Result<DelegateHandle*> init(BackendInitContext&, FreeableBuffer*,
                               ArrayRef<CompileSpec>) const override {
    return Error::NotSupported;
  }
  Error execute(BackendExecutionContext&, DelegateHandle*, Span<EValue*>) const override {
    return Error::NotSupported;
  }
};

// The same patterns real libraries use.
const Kernel static_kernels[] = {
    Kernel("registry_static::op.out", static_kernel),
    Kernel("registry_static::op.out", "v1/6;0,1", static_kernel),
};
const Error kernels_status = executorch::runtime::register_kernels(static_kernels);
const Error kernel_dup_status = executorch::runtime::register_kernel(static_kernels[0]);

StaticBackend backend_impl;
Backend backend{"RegistryStaticInitBackend", &backend_impl};
const Error backend_status = executorch::runtime::register_backend(backend);
const Error backend_dup_status = executorch::runtime::register_backend(backend);

// What the registry looked like right after, still before main().
const bool kernel_visible_before_main =
    executorch::runtime::registry_has_op_function("registry_static::op.out");
const bool backend_visible_before_main =
    executorch::runtime::get_backend_class("RegistryStaticInitBackend") == &backend_impl;

}  // namespace

TEST(StaticInitRegistrationTest, RegisteredBeforeMain) {
  EXPECT_EQ(kernels_status, Error::Ok);
  EXPECT_EQ(backend_status, Error::Ok);
  EXPECT_TRUE(kernel_visible_before_main);
  EXPECT_TRUE(backend_visible_before_main);
  EXPECT_TRUE(executorch::runtime::registry_has_op_function("registry_static::op.out"));
  EXPECT_EQ(executorch::runtime::get_backend_class("RegistryStaticInitBackend"), &backend_impl);
}

TEST(StaticInitRegistrationTest, DuplicatesBeforeMainReturnErrors) {
  // The process is still alive: duplicates at static-init time did not abort.
  EXPECT_EQ(kernel_dup_status, Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(backend_dup_status, Error::InvalidArgument);
}
