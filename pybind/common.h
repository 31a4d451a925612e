// Shared declarations of the _C extension: the Program/Method state objects the bindings
// hand to Python, and the helpers each source file provides. Everything here has hidden
// visibility; the extension exports only PyInit__C (pybind/pybind.map).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <pybind11/pybind11.h>

#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/executor/program.h>

#include <executorch/devtools/etdump/etdump_flatcc.h>

#include "op_profiler.h"

namespace etpy {

namespace py = pybind11;
namespace rt = ::executorch::runtime;
using ScalarType = ::executorch::aten::ScalarType;

// ---- errors.cpp -------------------------------------------------------------------------

// Raised to Python as executorch_runtime.Error(what) with .code = ErrorCode(code).
struct RuntimeFailure : std::exception {
  RuntimeFailure(rt::Error c, std::string w) : code(c), what_(std::move(w)) {}
  const char* what() const noexcept override {
    return what_.c_str();
  }
  rt::Error code;
  std::string what_;
};

// Collects the runtime's Error/Fatal log lines of the current thread while alive, so the
// exception raised for a failed call can carry them (e.g. the names of missing operators).
class LogCapture {
 public:
  LogCapture();
  ~LogCapture();
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;
  // The collected lines, "; "-joined.
  std::string text() const;

 private:
  std::string lines_;
  std::string* previous_;
};

// Throws RuntimeFailure: "<context>: <Error::Name> (0x..)[: <captured log lines>]".
[[noreturn]] void fail(rt::Error code, const std::string& context, const LogCapture* log = nullptr);
// The same with the log lines already collected (`detail`, may be empty).
[[noreturn]] void fail(rt::Error code, const std::string& context, const std::string& detail);

// The value of the runtime call `call()` (a Result<T>), or, if it failed, RuntimeFailure naming
// `what` with the runtime's log lines about it. For metadata the bindings hand to Python: a
// malformed entry is an error to report, never a placeholder value or a skipped item.
template <typename Call>
auto value_or_raise(Call&& call, const std::string& what) -> std::decay_t<decltype(call().get())> {
  LogCapture log;
  auto result = call();
  if (!result.ok()) {
    fail(result.error(), what, &log);
  }
  return std::move(result.get());
}

void install_log_sink();
void bind_errors(py::module_& m);

// ---- dtypes (convert.cpp) -----------------------------------------------------------------

// numpy-style name of a ScalarType ("float32", "int64", "bool", ...; "bfloat16" etc. for
// those numpy lacks).
const char* dtype_name(ScalarType t);
// The numpy type number for t, or -1 if numpy has no such dtype.
int numpy_typenum(ScalarType t);
// The numpy dtype of t; executorch_runtime.Error (NotSupported) naming `what` if numpy has none.
py::object numpy_dtype(ScalarType t, const std::string& what);
size_t element_size(ScalarType t);

// ---- program.cpp ------------------------------------------------------------------------

struct ProgramState {
  // Aligned private copy of the program bytes when loaded from a buffer.
  std::unique_ptr<uint8_t, void (*)(void*)> bytes{nullptr, nullptr};
  std::unique_ptr<rt::DataLoader> loader;
  std::unique_ptr<rt::DataLoader> data_loader;
  std::unique_ptr<::executorch::extension::FlatTensorDataMap> data_map;
  std::unique_ptr<rt::Program> program;
  std::string origin;  // the path, or "<bytes>"
};

// One input or output slot of a method, cached at load for fast validation.
struct SlotInfo {
  rt::Tag tag = rt::Tag::None;
  ScalarType dtype = ScalarType::Undefined;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  size_t nbytes = 0;
  bool memory_planned = false;
  // Input only: the loaded method writes the bound buffer in place
  // (Method::input_is_written), so it must be writable.
  bool written_in_place = false;
};

// A Method's mutex. Only MethodLock can take it, so no binding can wait for it while holding
// the GIL (the compiler refuses std::lock_guard on it).
class MethodMutex {
 private:
  friend class MethodLock;
  std::mutex mu_;
};

// The one way a binding takes a Method's lock. Construct it with the GIL held: it releases the
// GIL, then waits for the lock; leaving the scope unlocks, then takes the GIL back.
// Why this order: the lock's owner may need the GIL before it lets go of the lock (run_method
// converts the outputs, which alias the Method's memory, to numpy under the lock), so a thread
// waiting for the lock with the GIL held deadlocks against it. The rule everywhere is lock
// first, GIL second. Code inside the scope runs without the GIL; it touches Python objects only
// inside a py::gil_scoped_acquire, and only when it must (the values it reads may change once the
// lock is gone). Python code run there must not call back into the same Method: the mutex is not
// recursive.
class MethodLock {
 public:
  explicit MethodLock(MethodMutex& m) : lock_(m.mu_) {}
  MethodLock(const MethodLock&) = delete;
  MethodLock& operator=(const MethodLock&) = delete;

 private:
  // Members are built in order and destroyed in reverse: GIL released before the wait, and
  // taken back only after the unlock.
  py::gil_scoped_release nogil_;
  std::lock_guard<std::mutex> lock_;
};

struct MethodState {
  std::shared_ptr<ProgramState> program;
  std::string name;
  ::executorch::extension::MallocMemoryAllocator method_allocator;
  ::executorch::extension::MallocMemoryAllocator buffer_allocator;  // planned + unplanned outputs
  std::vector<rt::Span<uint8_t>> planned_spans;
  std::unique_ptr<rt::HierarchicalAllocator> planned;
  std::unique_ptr<rt::MemoryManager> memory_manager;
  std::unique_ptr<rt::Method> method;
  std::vector<SlotInfo> inputs;
  std::vector<SlotInfo> outputs;
  // Set when loaded with profile=True; receives the Method's per-operator events.
  std::unique_ptr<OpProfiler> profiler;
  // Set when loaded with etdump=True (etdump.cpp); debug_buffer backs its logged tensors.
  std::unique_ptr<::executorch::etdump::ETDumpGen> etdump;
  std::vector<uint8_t> debug_buffer;
  // Serializes calls on this Method; taken only through MethodLock.
  MethodMutex mu;
};

void bind_program(py::module_& m);

// ---- etdump.cpp -------------------------------------------------------------------------

// load_method(..., etdump=True, debug_buffer_size=N): gives `st` an ETDumpGen (and an N-byte
// debug buffer logging every operator output when N > 0). Before the method is loaded.
void setup_etdump(MethodState& st, bool etdump, const py::object& debug_buffer_size, bool profile);
// Method.write_etdump(path, debug_buffer_path=None).
void write_etdump(MethodState& st, const py::object& path, const py::object& debug_buffer_path);

// ---- convert.cpp ------------------------------------------------------------------------

// Runs one call: validates and converts `inputs` (a sequence), executes with the GIL
// released, returns the outputs as a list of owning numpy arrays / Python scalars.
py::list run_method(MethodState& st, const py::handle& inputs);
// The value a non-tensor input was fixed to at export (None for tensor inputs).
py::object fixed_input(MethodState& st, size_t idx);
// An owning numpy copy of tensor `t` (output `idx` in error messages).
py::object tensor_to_numpy(const ::executorch::aten::Tensor& t, size_t idx);

// ---- dlpack.cpp -------------------------------------------------------------------------

// A tensor imported through __dlpack__: a view of the producer's memory (or a contiguous
// copy of it), released through the producer's deleter when this object dies.
class DLPackImport {
 public:
  DLPackImport() = default;
  ~DLPackImport();
  DLPackImport(const DLPackImport&) = delete;
  DLPackImport& operator=(const DLPackImport&) = delete;

  // Imports obj (which has __dlpack__); `where` names the input in error messages.
  void import(const py::handle& obj, const std::string& where);

  ScalarType dtype = ScalarType::Undefined;
  std::vector<int64_t> shape;
  const void* data = nullptr;  // C-contiguous data of `shape`
  bool read_only = false;      // `data` is the producer's read-only memory

 private:
  void release();
  void* managed_ = nullptr;
  bool versioned_ = false;
  bool producer_read_only_ = false;
  std::vector<uint8_t> copy_;
};

// ---- registry.cpp -----------------------------------------------------------------------
void bind_registry(py::module_& m);

// ---- threads.cpp ------------------------------------------------------------------------
void bind_threads(py::module_& m);
// ---- bundled.cpp ------------------------------------------------------------------------
void bind_bundled(py::module_& m);

}  // namespace etpy
