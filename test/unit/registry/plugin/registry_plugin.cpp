// A plugin library for the registry tests: it links only libexecutorch.so.1
// and registers one backend and two kernels from static initializers, the
// way real backend and kernel libraries do.
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

class PluginBackend final : public BackendInterface {
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

// Reports through the context, so a test can tell which kernel ran.
void plugin_kernel_fallback(KernelRuntimeContext& ctx, Span<EValue*>) {
  ctx.fail(Error::NotImplemented);
}
void plugin_kernel_keyed(KernelRuntimeContext& ctx, Span<EValue*>) {
  ctx.fail(Error::NotSupported);
}

PluginBackend backend_impl;
const Error backend_status =
    executorch::runtime::register_backend(Backend{"RegistryPluginBackend", &backend_impl});

const Kernel plugin_kernels[] = {
    Kernel("registry_plugin::op.out", plugin_kernel_fallback),
    Kernel("registry_plugin::op.out", "v1/6;0", plugin_kernel_keyed),
};
const Error kernels_status = executorch::runtime::register_kernels(plugin_kernels);

}  // namespace

// How the static registrations went (the tests look this up with dlsym).
extern "C" __attribute__((visibility("default"))) int registry_plugin_status() {
  return static_cast<int>(backend_status) * 256 + static_cast<int>(kernels_status);
}
