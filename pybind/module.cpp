// PyInit__C: the extension module executorch_runtime._C. It links libexecutorch.so.1 and
// libexecutorch_kernels.so.1 and carries no runtime code of its own.
#include "common.h"

#include <executorch/runtime/platform/runtime.h>

#ifndef ET_PY_VERSION
#define ET_PY_VERSION "0.0.0"
#endif

PYBIND11_MODULE(_C, m) {
  m.doc() = "executorch_runtime._C: bindings of the shared ExecuTorch-compatible runtime.";
  ::executorch::runtime::runtime_init();
  etpy::install_log_sink();
  etpy::bind_errors(m);
  etpy::bind_program(m);
  etpy::bind_registry(m);
  etpy::bind_threads(m);
  etpy::bind_bundled(m);
  m.attr("__version__") = ET_PY_VERSION;
}
