#include <executorch/runtime/platform/runtime.h>

#include <mutex>

namespace executorch {
namespace runtime {

void runtime_init() {
  // Clients may call this from several places (or threads); the PAL hook is
  // documented to run once.
  static std::once_flag once;
  std::call_once(once, [] { pal_init(); });
}

}  // namespace runtime
}  // namespace executorch
