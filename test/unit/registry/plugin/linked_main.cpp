// Linked directly to libregistry_plugin.so (scoped --no-as-needed) without
// referencing any of its symbols: the plugin's static initializers must still
// have registered into the one registry of libexecutorch.so.1 before main().
#include <cstdio>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/kernel/operator_registry.h>

int main() {
  using namespace executorch::runtime;
  int failures = 0;
  if (get_backend_class("RegistryPluginBackend") == nullptr) {
    std::printf("FAIL: backend RegistryPluginBackend is not registered\n");
    ++failures;
  }
  if (!registry_has_op_function("registry_plugin::op.out")) {
    std::printf("FAIL: kernel registry_plugin::op.out is not registered\n");
    ++failures;
  }
  if (failures == 0) {
    std::printf("plugin registrations visible before main: OK\n");
  }
  return failures == 0 ? 0 : 1;
}
