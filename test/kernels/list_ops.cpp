// Prints the operator names a kernel library registers, one per line, sorted
// and without repeats (an operator registered for several kernel keys is one
// name). The library is loaded with dlopen after main() starts, so the
// registry's entries from before (the runtime's own prim ops) and after the
// load tell exactly which kernels that library brought.
//
//   list_ops <path/to/libexecutorch_kernels.so.1>
#include <dlfcn.h>

#include <cstdio>
#include <set>
#include <string>

#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/runtime.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <kernel library>\n", argv[0]);
    return 2;
  }
  executorch::runtime::runtime_init();
  const size_t before = executorch::runtime::get_registered_kernels().size();
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "list_ops: cannot load %s: %s\n", argv[1], dlerror());
    return 1;
  }
  const auto kernels = executorch::runtime::get_registered_kernels();
  std::set<std::string> names;
  for (size_t i = before; i < kernels.size(); ++i) {
    names.insert(kernels[i].name_);
  }
  for (const std::string& n : names) {
    std::printf("%s\n", n.c_str());
  }
  return names.empty() ? 1 : 0;
}
