// backends(), is_available(), operators() and load_library(): views of the one process-wide
// registry in libexecutorch.so.1, which this extension shares with every C++ library loaded
// in the process.
#include "common.h"

#include <set>

#include <dlfcn.h>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/kernel/operator_registry.h>

namespace etpy {
namespace {

std::mutex g_libs_mu;
std::vector<void*> g_libs;  // never closed: their registrations point into them

py::list backends() {
  py::list out;
  const size_t n = rt::get_num_registered_backends();
  for (size_t i = 0; i < n; ++i) {
    out.append(py::str(value_or_raise([i] { return rt::get_backend_name(i); },
                                      "name of registered backend " + std::to_string(i))));
  }
  return out;
}

bool is_available(const std::string& name) {
  rt::BackendInterface* b = rt::get_backend_class(name.c_str());
  return b != nullptr && b->is_available();
}

py::list operators() {
  py::list out;
  std::set<std::string> seen;
  for (const rt::Kernel& k : rt::get_registered_kernels()) {
    if (k.name_ != nullptr && seen.insert(k.name_).second)
      out.append(py::str(k.name_));
  }
  return out;
}

void load_library(const py::object& path_obj) {
  py::object p = py::module_::import("os").attr("fspath")(path_obj);
  if (!py::isinstance<py::str>(p)) {
    throw py::type_error("load_library() takes a str path");
  }
  const std::string path = p.cast<std::string>();
  void* handle = nullptr;
  std::string err;
  {
    py::gil_scoped_release nogil;
    // RTLD_GLOBAL: a kernel library may be used by a later plugin that links against it.
    handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) {
      const char* e = ::dlerror();
      err = e != nullptr ? e : "dlopen failed";
    }
  }
  if (handle == nullptr) {
    PyErr_SetObject(PyExc_OSError, py::str("load_library('" + path + "'): " + err).ptr());
    throw py::error_already_set();
  }
  std::lock_guard<std::mutex> lock(g_libs_mu);
  g_libs.push_back(handle);
}

}  // namespace

void bind_registry(py::module_& m) {
  m.def("backends", &backends,
        "Names of the registered backends, in registration order (the process-wide registry).");
  m.def("is_available", &is_available, py::arg("name"),
        "Whether a backend of that name is registered and reports itself available.");
  m.def("operators", &operators,
        "Names of the registered operators (kernels), in registration order, without repeats.");
  m.def("load_library", &load_library, py::arg("path"),
        "Loads a kernel or backend library (dlopen RTLD_NOW | RTLD_GLOBAL); its static "
        "registrations then appear in backends()/operators() and to C++ in this process.");
}

}  // namespace etpy
