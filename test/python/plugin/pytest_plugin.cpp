// A plugin for the Python tests: linked only against libexecutorch.so.1, it registers a
// backend and a kernel from static initializers, and exports a few C functions through which
// the tests ask *C++ code* in the same process what the one registry holds.
#include <cstddef>
#include <cstring>

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

class PyTestBackend final : public BackendInterface {
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

void noop_kernel(KernelRuntimeContext&, Span<EValue*>) {}

PyTestBackend backend_impl;
const Error backend_status =
    executorch::runtime::register_backend(Backend{"PyTestPluginBackend", &backend_impl});
const Error kernel_status =
    executorch::runtime::register_kernel(Kernel("pytest_plugin::noop.out", noop_kernel));

}  // namespace

#define PLUGIN_API extern "C" __attribute__((visibility("default")))

PLUGIN_API int pytest_plugin_status() {
  return static_cast<int>(backend_status) * 256 + static_cast<int>(kernel_status);
}

PLUGIN_API size_t pytest_plugin_cpp_num_backends() {
  return executorch::runtime::get_num_registered_backends();
}

PLUGIN_API const char* pytest_plugin_cpp_backend_name(size_t i) {
  auto r = executorch::runtime::get_backend_name(i);
  return r.ok() ? r.get() : nullptr;
}

PLUGIN_API size_t pytest_plugin_cpp_num_kernels() {
  return executorch::runtime::get_registered_kernels().size();
}

PLUGIN_API int pytest_plugin_cpp_has_op(const char* name) {
  return executorch::runtime::registry_has_op_function(name) ? 1 : 0;
}
