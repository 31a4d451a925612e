// An SDK consumer: built by test/sdk/check-install.sh against an installed prefix only, once with
// `pkg-config --cflags --libs executorch` and plain g++, once through find_package(executorch).
// It registers a backend from a static initializer (before main) and checks that the one
// registry in libexecutorch sees it, and uses Error, Result and ET_LOG. Prints "sdk-consumer: ok"
// and exits 0, or names every failed expectation and exits 1. It also checks that the prim ops the
// runtime registers from its own static initializers are there: for a static (SHARED=0) install
// that proves the --whole-archive in executorch.pc and the CMake target.
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/runtime.h>

#include <cstdio>
#include <cstring>

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
using executorch::runtime::Result;
using executorch::runtime::Span;

namespace {

class SdkProbeBackend final : public BackendInterface {
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

SdkProbeBackend probe_backend;
// Runs before main: registration must work from a static initializer.
const Error probe_registered =
    executorch::runtime::register_backend(Backend{"SdkProbeBackend", &probe_backend});

Result<int> half(int v) {
  if (v % 2 != 0) {
    return Error::InvalidArgument;
  }
  return v / 2;
}

int failures = 0;
void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "sdk-consumer: FAILED: %s\n", what);
    ++failures;
  }
}
#define EXPECT(cond) expect((cond), #cond)

}  // namespace

int main() {
  executorch::runtime::runtime_init();

  EXPECT(probe_registered == Error::Ok);
  const size_t n = executorch::runtime::get_num_registered_backends();
  EXPECT(n >= 1);
  EXPECT(executorch::runtime::get_backend_class("SdkProbeBackend") == &probe_backend);
  EXPECT(executorch::runtime::get_backend_class("NoSuchBackend") == nullptr);
  bool named = false;
  for (size_t i = 0; i < n; ++i) {
    Result<const char*> name = executorch::runtime::get_backend_name(i);
    if (name.ok() && std::strcmp(*name, "SdkProbeBackend") == 0) {
      named = true;
    }
  }
  EXPECT(named);
  // A duplicate name is an error, not an abort.
  EXPECT(executorch::runtime::register_backend(Backend{"SdkProbeBackend", &probe_backend}) !=
         Error::Ok);
  EXPECT(executorch::runtime::get_num_registered_backends() == n);

  // Registered by the runtime itself, from a static initializer inside the library.
  EXPECT(executorch::runtime::get_registered_kernels().size() > 0);
  EXPECT(executorch::runtime::registry_has_op_function("aten::sym_size.int"));

  Result<int> even = half(42);
  EXPECT(even.ok() && *even == 21);
  Result<int> odd = half(7);
  EXPECT(!odd.ok() && odd.error() == Error::InvalidArgument);
  EXPECT(std::strcmp(executorch::runtime::to_string(Error::InvalidArgument),
                     "Error::InvalidArgument") == 0);
  EXPECT(static_cast<int>(Error::NotFound) == 0x20);

  ET_LOG(Info, "sdk-consumer: %zu backend(s) registered", n);
  if (failures != 0) {
    return 1;
  }
  std::printf("sdk-consumer: ok\n");
  return 0;
}
