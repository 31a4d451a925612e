// _C.BundledFile: a checked .bpte (upstream's BundledProgram) for executorch_runtime.bundled:
// its embedded program's bytes, its test suites, their input and expected values as Python
// objects, and running one test case on a Method through the runtime's own
// load_bundled_input / verify_method_outputs, so Python, et_run and C++ share one verdict.
#include "common.h"

#include <cstdlib>
#include <cstring>
#include <optional>

#include <executorch/devtools/bundled_program/bundled_program.h>
#include <executorch/devtools/bundled_program/bundled_program_reader.h>
#include <executorch/runtime/core/exec_aten/util/tensor_dimension_limit.h>

namespace etpy {
namespace {

namespace bp = ::executorch::bundled_program;

struct BundledFile {
  // A private aligned copy: the embedded program keeps its alignment, and the runtime's
  // length-less functions read the bundle while the Python caller's buffer may change.
  std::unique_ptr<uint8_t, void (*)(void*)> bytes{nullptr, nullptr};
  size_t size = 0;
  std::optional<bp::BundledProgramReader> reader;
};

std::shared_ptr<BundledFile> open_bundled(const py::buffer& source) {
  auto file = std::make_shared<BundledFile>();
  {
    py::buffer_info info = source.request();
    file->size = static_cast<size_t>(info.size * info.itemsize);
    void* mem = std::aligned_alloc(64, (file->size + 63) / 64 * 64 + 64);
    if (mem == nullptr) {
      throw std::bad_alloc();
    }
    std::memcpy(mem, info.ptr, file->size);
    file->bytes = std::unique_ptr<uint8_t, void (*)(void*)>(static_cast<uint8_t*>(mem), &std::free);
  }
  LogCapture log;
  const void* program = nullptr;
  size_t program_size = 0;
  const rt::Error err =
      bp::get_program_data(file->bytes.get(), file->size, &program, &program_size);
  if (err != rt::Error::Ok) {
    fail(err, "reading bundled program", &log);
  }
  file->reader.emplace(
      value_or_raise([&] { return bp::BundledProgramReader::load(file->bytes.get(), file->size); },
                     "reading bundled program"));
  return file;
}

py::object value_to_python(const bp::BundledValue& v, size_t idx) {
  switch (v.kind) {
    case bp::BundledValueKind::Int:
      return py::int_(v.int_value);
    case bp::BundledValueKind::Bool:
      return py::bool_(v.bool_value);
    case bp::BundledValueKind::Double:
      return py::float_(v.double_value);
    case bp::BundledValueKind::Tensor:
      break;
  }
  // The reader proved rank, sizes, dim order and data length; the tensor only views them.
  ::executorch::aten::TensorImpl::SizesType sizes[rt::kTensorDimensionLimit];
  ::executorch::aten::TensorImpl::DimOrderType dim_order[rt::kTensorDimensionLimit];
  for (size_t d = 0; d < v.sizes.size(); ++d) {
    sizes[d] = v.sizes[d];
    dim_order[d] = v.dim_order[d];
  }
  ::executorch::aten::TensorImpl impl(v.scalar_type, static_cast<ssize_t>(v.sizes.size()), sizes,
                                      const_cast<void*>(v.data), dim_order);
  return tensor_to_numpy(::executorch::aten::Tensor(&impl), idx);
}

enum class Values { Inputs, ExpectedOutputs };

py::list values(const BundledFile& f, size_t suite, size_t test_case, Values which) {
  const bool inputs = which == Values::Inputs;
  const std::string where =
      "suite " + std::to_string(suite) + ", test case " + std::to_string(test_case);
  const size_t n = value_or_raise(
      [&] {
        return inputs ? f.reader->num_inputs(suite, test_case)
                      : f.reader->num_expected_outputs(suite, test_case);
      },
      where);
  py::list out;
  for (size_t i = 0; i < n; ++i) {
    const bp::BundledValue v = value_or_raise(
        [&] {
          return inputs ? f.reader->input(suite, test_case, i)
                        : f.reader->expected_output(suite, test_case, i);
        },
        where);
    out.append(value_to_python(v, i));
  }
  return out;
}

// Runs test case `test_case` of the method's suite on `st` and compares the outputs.
// Returns (passed, mean_abs_error, max_abs_error, mean_rel_error, max_rel_error); any failure
// other than a value mismatch raises executorch_runtime.Error.
py::tuple verify(const BundledFile& f, MethodState& st, size_t test_case, double rtol,
                 double atol) {
  rt::Error verdict = rt::Error::Ok;
  bp::ErrorStats stats{};
  {
    // Nothing here touches Python: the GIL stays released until the lock is let go.
    MethodLock lock(st.mu);
    LogCapture log;
    const std::string where =
        "method '" + st.name + "', bundled test case " + std::to_string(test_case);
    auto raise = [&](rt::Error err, const char* step) { fail(err, where + ": " + step, &log); };
    rt::Error err = bp::load_bundled_input(*st.method, f.bytes.get(), test_case);
    if (err != rt::Error::Ok) {
      raise(err, "loading its inputs");
    }
    err = st.method->execute();
    if (err != rt::Error::Ok) {
      raise(err, "executing");
    }
    verdict = bp::verify_method_outputs(*st.method, f.bytes.get(), test_case, rtol, atol);
    if (verdict != rt::Error::Ok && verdict != rt::Error::NotFound) {
      raise(verdict, "comparing its outputs");
    }
    stats = bp::compute_method_output_error_stats(*st.method, f.bytes.get(), test_case);
    if (stats.status != rt::Error::Ok) {
      raise(stats.status, "measuring its output errors");
    }
  }
  return py::make_tuple(verdict == rt::Error::Ok, stats.mean_abs_error, stats.max_abs_error,
                        stats.mean_relative_error, stats.max_relative_error);
}

}  // namespace

void bind_bundled(py::module_& m) {
  py::class_<BundledFile, std::shared_ptr<BundledFile>>(
      m, "BundledFile",
      "A verified .bpte (private: use executorch_runtime.load_bundled()). Construct from a "
      "bytes-like object; it is copied.")
      .def(py::init(&open_bundled), py::arg("data"))
      .def("program_bytes",
           [](const BundledFile& f) {
             return py::bytes(static_cast<const char*>(f.reader->program_data()),
                              f.reader->program_size());
           })
      .def(
          "suites",
          [](const BundledFile& f) {
            py::list out;
            for (size_t s = 0; s < f.reader->num_method_test_suites(); ++s) {
              out.append(py::make_tuple(std::string(f.reader->method_name(s).get()),
                                        f.reader->num_test_cases(s).get()));
            }
            return out;
          },
          "[(method_name, number_of_test_cases), ...] in file order.")
      .def(
          "inputs",
          [](const BundledFile& f, size_t suite, size_t test_case) {
            return values(f, suite, test_case, Values::Inputs);
          },
          py::arg("suite"), py::arg("test_case"))
      .def(
          "expected_outputs",
          [](const BundledFile& f, size_t suite, size_t test_case) {
            return values(f, suite, test_case, Values::ExpectedOutputs);
          },
          py::arg("suite"), py::arg("test_case"))
      .def("verify", &verify, py::arg("method"), py::arg("test_case"), py::arg("rtol"),
           py::arg("atol"),
           "Runs the test case on `method` and compares: (passed, mean_abs_error, "
           "max_abs_error, mean_rel_error, max_rel_error).");
}

}  // namespace etpy
