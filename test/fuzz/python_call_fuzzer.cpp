// Fuzz target: Method.__call__ / Method.execute of the Python bindings, driven from Python.
// This binary embeds CPython, registers the bindings' extension (pybind/*.cpp, compiled into
// this binary with the sanitizers and coverage) as executorch_runtime._C, imports the
// package from the source tree and hands every input to fuzz_one() of
// test/fuzz/python_call_fuzzer.py, which turns the bytes into call arguments (numpy arrays
// of fuzzed dtype, shape and layout, scalars, lists, DLPack producers) for a method of a zoo
// program. Python exceptions other than the documented TypeError/ValueError/Error abort, so
// libFuzzer keeps the input.
#include <Python.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" PyObject* PyInit__C();

namespace {

PyObject* g_fuzz_one = nullptr;

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "python_call_fuzzer: %s\n", what);
  if (PyErr_Occurred())
    PyErr_Print();
  std::abort();
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : fallback;
}

// Creates executorch_runtime._C from the linked-in init function (single- or multi-phase
// initialization) and puts it in sys.modules, where the package's `from ._C import ...` finds
// it without searching for a shared object.
void register_extension() {
  PyObject* init = PyInit__C();
  if (init == nullptr)
    die("PyInit__C failed");
  PyObject* module = init;
  if (PyObject_TypeCheck(init, &PyModuleDef_Type)) {
    PyObject* machinery = PyImport_ImportModule("importlib.machinery");
    if (machinery == nullptr)
      die("importlib.machinery");
    PyObject* spec =
        PyObject_CallMethod(machinery, "ModuleSpec", "sO", "executorch_runtime._C", Py_None);
    if (spec == nullptr)
      die("ModuleSpec");
    PyModuleDef* def = reinterpret_cast<PyModuleDef*>(init);
    module = PyModule_FromDefAndSpec(def, spec);
    // importlib sets __spec__ before running the exec slots, and pybind11's exec reads it.
    if (module == nullptr || PyObject_SetAttrString(module, "__spec__", spec) != 0 ||
        PyModule_ExecDef(module, def) != 0) {
      die("_C module init");
    }
    Py_DECREF(spec);
    Py_DECREF(machinery);
  }
  PyObject* modules = PyImport_GetModuleDict();
  if (PyDict_SetItemString(modules, "executorch_runtime._C", module) != 0)
    die("sys.modules");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Py_InitializeEx(0);
  register_extension();
  const std::string source_dir = env_or("ET_FUZZ_SOURCE_DIR", ET_FUZZ_SOURCE_DIR);
  const std::string setup =
      "import sys\n"
      "sys.path[:0] = ['" +
      source_dir + "/pybind', '" + source_dir +
      "/test/fuzz']\n"
      "import python_call_fuzzer\n"
      "python_call_fuzzer.setup('" +
      env_or("ET_ZOO_DIR", ET_FUZZ_ZOO_DIR) + "')\n";
  if (PyRun_SimpleString(setup.c_str()) != 0)
    die("setup failed");
  PyObject* driver = PyImport_ImportModule("python_call_fuzzer");
  if (driver == nullptr)
    die("import python_call_fuzzer");
  g_fuzz_one = PyObject_GetAttrString(driver, "fuzz_one");
  if (g_fuzz_one == nullptr)
    die("python_call_fuzzer.fuzz_one");
  Py_DECREF(driver);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  PyObject* bytes =
      PyBytes_FromStringAndSize(reinterpret_cast<const char*>(data), static_cast<Py_ssize_t>(size));
  PyObject* result = PyObject_CallOneArg(g_fuzz_one, bytes);
  Py_DECREF(bytes);
  if (result == nullptr)
    die("unexpected Python exception");
  Py_DECREF(result);
  return 0;
}
