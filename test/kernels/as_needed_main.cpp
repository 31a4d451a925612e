// Looks up aten::add.out in the registry and reports what a user sees.
// Linked twice by mk/test-kernels.mk: with a plain --as-needed (the kernel
// library is dropped: nothing references it) and with KERNELS_LINK.
#include <cstdio>

#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/runtime.h>

int main() {
  executorch::runtime::runtime_init();
  auto fn = executorch::runtime::get_op_function_from_registry("aten::add.out");
  if (!fn.ok()) {
    std::printf("aten::add.out: not registered (error 0x%x, OperatorMissing)\n",
                static_cast<unsigned>(fn.error()));
    return 1;
  }
  std::printf("aten::add.out: registered\n");
  return 0;
}
