#include <executorch/runtime/platform/abort.h>

#include <executorch/runtime/platform/platform.h>

namespace executorch {
namespace runtime {

void runtime_abort() {
  pal_abort();
}

}  // namespace runtime
}  // namespace executorch
