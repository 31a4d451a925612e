// set_num_threads() / get_num_threads(): the size of the process thread pool in
// libexecutorch.so.1, which the CPU kernels split their work across (shared with every C++
// library in the process).
#include "common.h"

#include <executorch/extension/threadpool/threadpool.h>

namespace etpy {
namespace {

namespace tp = ::executorch::extension::threadpool;

void set_num_threads(long long n) {
  if (n < 0 || static_cast<unsigned long long>(n) > tp::kMaxThreads) {
    throw py::value_error("set_num_threads(" + std::to_string(n) +
                          "): the thread count must be in [0, " + std::to_string(tp::kMaxThreads) +
                          "] (0 = the default)");
  }
  bool ok = false;
  {
    // Resizing waits for a parallel region another thread may be running.
    py::gil_scoped_release nogil;
    ok = tp::set_num_threads(static_cast<size_t>(n));
  }
  if (!ok) {
    throw py::value_error("set_num_threads(" + std::to_string(n) + ") was refused");
  }
}

}  // namespace

void bind_threads(py::module_& m) {
  m.def("set_num_threads", &set_num_threads, py::arg("n"),
        "Sets the number of threads the CPU kernels use, the calling thread included "
        "(1: no worker thread; 0: the default, the CPUs this process may run on). Takes effect "
        "for the next parallel region; safe while other threads execute methods.");
  m.def("get_num_threads", &tp::get_num_threads,
        "The number of threads the CPU kernels use (ET_NUM_THREADS or the CPUs this process "
        "may run on, unless set_num_threads() changed it).");
}

}  // namespace etpy
