// A backend and kernels registered from a SECOND shared library
// (libregistry_plugin.so, linked only against libexecutorch.so.1) are seen by
// this program, which links only libexecutorch.so.1: once through dlopen,
// once through a helper program linked directly to the plugin.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/kernel/operator_registry.h>

using executorch::aten::DimOrderType;
using executorch::aten::ScalarType;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::get_backend_class;
using executorch::runtime::get_op_function_from_registry;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::OpFunction;
using executorch::runtime::Result;
using executorch::runtime::Span;
using executorch::runtime::TensorMeta;

namespace {

std::string exe_dir() {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) {
    return ".";
  }
  path[n] = '\0';
  std::string s(path);
  return s.substr(0, s.rfind('/'));
}

// The plugin is only built (and only meaningful) when the runtime is a
// shared library.
bool runtime_is_shared() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&executorch::runtime::get_backend_class), &info) == 0 ||
      info.dli_fname == nullptr) {
    return false;
  }
  return std::string(info.dli_fname).find("libexecutorch.so") != std::string::npos;
}

}  // namespace

TEST(PluginRegistrationTest, DlopenedPluginRegistersIntoTheOneRegistry) {
  if (!runtime_is_shared()) {
    GTEST_SKIP() << "runtime linked statically (SHARED=0): no plugin";
  }
  // Nothing of the plugin is visible before it is loaded.
  EXPECT_EQ(get_backend_class("RegistryPluginBackend"), nullptr);
  EXPECT_FALSE(executorch::runtime::registry_has_op_function("registry_plugin::op.out"));
  const size_t backends_before = executorch::runtime::get_num_registered_backends();
  const size_t kernels_before = executorch::runtime::get_registered_kernels().size();

  const std::string path = exe_dir() + "/libregistry_plugin.so";
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();

  auto status = reinterpret_cast<int (*)()>(dlsym(handle, "registry_plugin_status"));
  ASSERT_NE(status, nullptr) << dlerror();
  EXPECT_EQ(status(), 0) << "backend*256+kernels error codes";

  // The backend, found through this program's view of the registry.
  executorch::runtime::BackendInterface* backend = get_backend_class("RegistryPluginBackend");
  ASSERT_NE(backend, nullptr);
  EXPECT_TRUE(backend->is_available());
  EXPECT_EQ(executorch::runtime::get_num_registered_backends(), backends_before + 1);

  // The kernels: fallback and keyed, both callable.
  EXPECT_EQ(executorch::runtime::get_registered_kernels().size(), kernels_before + 2);
  Result<OpFunction> fallback = get_op_function_from_registry("registry_plugin::op.out");
  ASSERT_TRUE(fallback.ok());
  DimOrderType dims[] = {0};
  TensorMeta meta[] = {TensorMeta(ScalarType::Float, Span<DimOrderType>(dims, 1))};
  Result<OpFunction> keyed = get_op_function_from_registry("registry_plugin::op.out", meta);
  ASSERT_TRUE(keyed.ok());
  KernelRuntimeContext ctx1;
  KernelRuntimeContext ctx2;
  (*fallback)(ctx1, Span<EValue*>());
  (*keyed)(ctx2, Span<EValue*>());
  EXPECT_EQ(ctx1.failure_state(), Error::NotImplemented);
  EXPECT_EQ(ctx2.failure_state(), Error::NotSupported);

  // The plugin stays loaded: the registry holds pointers into it.
}

TEST(PluginRegistrationTest, ProgramLinkedToPluginSeesItBeforeMain) {
  if (!runtime_is_shared()) {
    GTEST_SKIP() << "runtime linked statically (SHARED=0): no plugin";
  }
  const std::string prog = exe_dir() + "/registry_linked_plugin";
  ASSERT_EQ(access(prog.c_str(), X_OK), 0) << prog << " was not built";
  // Run without LD_LIBRARY_PATH: RUNPATH alone must find both libraries. Under emulation (a
  // cross build's tests, test/tools/qemu-run.sh) ET_TEST_EXEC is the emulator to run it with.
  const char* exec = std::getenv("ET_TEST_EXEC");
  const std::string cmd =
      "env -u LD_LIBRARY_PATH " + std::string(exec != nullptr ? exec : "") + " '" + prog + "'";
  const int rc = std::system(cmd.c_str());
  ASSERT_NE(rc, -1);
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 0);
}

// The XNNPACK backend library (and the kernel library it needs), loaded at run time, registers
// into the same registry this program sees, once. In a child process: loading it also registers
// every kernel, which must not leak into the other tests' view of the registry.
TEST(PluginRegistrationTest, DlopenedXnnpackBackendRegistersIntoTheOneRegistry) {
  if (!runtime_is_shared()) {
    GTEST_SKIP() << "runtime linked statically (SHARED=0): no backend library";
  }
  EXPECT_EXIT(
      {
        const bool absent_before = get_backend_class("XnnpackBackend") == nullptr;
        const size_t before = executorch::runtime::get_num_registered_backends();
        const std::string path = exe_dir() + "/../../../lib/libexecutorch_backend_xnnpack.so.1";
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        void* again = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        const bool ok = absent_before && handle != nullptr && again == handle &&
                        get_backend_class("XnnpackBackend") != nullptr &&
                        executorch::runtime::get_num_registered_backends() == before + 1 &&
                        executorch::runtime::registry_has_op_function("aten::linear.out");
        std::exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}
