// A C++ program that links only executorch::runtime and embeds the Python interpreter
// (test/wheel/wheelcheck.py, check 7): it imports executorch_runtime from the given
// site-packages directory, then compares what C++ sees in the registry with what Python reports.
//
//   embed <site-packages dir>
// Prints "cpp-before kernels N backends M", "python ..." and "cpp-after ..." lines and, on any
// difference, "mismatch: ..." lines. Exit 0 only if C++ (after the import) and Python list the same
// kernels and backends in the same order, and the import added kernels for C++ (the extension's
// kernel library registered into this program's registry).
#include <Python.h>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/kernel/operator_registry.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

namespace {

struct View {
  std::vector<std::string> kernels, backends;
};

View cpp_view() {
  View v;
  std::set<std::string> seen;
  for (const auto& k : executorch::runtime::get_registered_kernels()) {
    if (k.name_ != nullptr && seen.insert(k.name_).second)
      v.kernels.emplace_back(k.name_);
  }
  for (size_t i = 0; i < executorch::runtime::get_num_registered_backends(); ++i) {
    auto name = executorch::runtime::get_backend_name(i);
    v.backends.emplace_back(name.ok() ? name.get() : "?");
  }
  return v;
}

bool py_strings(PyObject* module, const char* fn, std::vector<std::string>* out) {
  PyObject* list = PyObject_CallMethod(module, fn, nullptr);
  if (list == nullptr || !PyList_Check(list))
    return false;
  for (Py_ssize_t i = 0; i < PyList_Size(list); ++i) {
    const char* s = PyUnicode_AsUTF8(PyList_GetItem(list, i));
    if (s == nullptr)
      return false;
    out->emplace_back(s);
  }
  Py_DECREF(list);
  return true;
}

void print(const char* who, const View& v) {
  std::printf("%s kernels %zu backends %zu\n", who, v.kernels.size(), v.backends.size());
}

int compare(const char* what, const std::vector<std::string>& cpp,
            const std::vector<std::string>& py) {
  if (cpp == py)
    return 0;
  std::printf("mismatch: %s: C++ sees %zu, Python %zu\n", what, cpp.size(), py.size());
  for (size_t i = 0; i < cpp.size() || i < py.size(); ++i) {
    const std::string a = i < cpp.size() ? cpp[i] : "-", b = i < py.size() ? py[i] : "-";
    if (a != b) {
      std::printf("mismatch: %s[%zu]: C++ '%s', Python '%s'\n", what, i, a.c_str(), b.c_str());
      break;
    }
  }
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <site-packages dir>\n", argv[0]);
    return 2;
  }
  const View before = cpp_view();
  print("cpp-before", before);

  Py_InitializeEx(0);
  PyObject* path = PySys_GetObject("path");  // borrowed
  PyObject* dir = PyUnicode_FromString(argv[1]);
  if (path == nullptr || dir == nullptr || PyList_Insert(path, 0, dir) != 0) {
    PyErr_Print();
    return 1;
  }
  Py_DECREF(dir);
  PyObject* et = PyImport_ImportModule("executorch_runtime");
  if (et == nullptr) {
    PyErr_Print();
    return 1;
  }
  View py;
  if (!py_strings(et, "operators", &py.kernels) || !py_strings(et, "backends", &py.backends)) {
    PyErr_Print();
    return 1;
  }
  PyObject* file = PyObject_GetAttrString(et, "__file__");
  std::printf("python module %s\n", file != nullptr ? PyUnicode_AsUTF8(file) : "?");
  Py_XDECREF(file);
  print("python", py);

  const View after = cpp_view();
  print("cpp-after", after);
  int bad = compare("kernels", after.kernels, py.kernels) +
            compare("backends", after.backends, py.backends);
  if (after.kernels.size() <= before.kernels.size()) {
    std::printf(
        "mismatch: importing the extension added no kernel for C++ (%zu before, %zu after)\n",
        before.kernels.size(), after.kernels.size());
    ++bad;
  }
  Py_DECREF(et);
  Py_FinalizeEx();
  return bad == 0 ? 0 : 1;
}
