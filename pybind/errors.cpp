// executorch_runtime.Error / ErrorCode, the translation of runtime failures into them, and
// the log sink that lets an exception carry the runtime's own explanation of a failure.
#include "common.h"

#include <cstdio>

#include <pybind11/native_enum.h>

#include <executorch/runtime/platform/platform.h>

namespace etpy {
namespace {

PyObject* g_error_type = nullptr;  // executorch_runtime.Error (a new reference kept forever)

thread_local std::string* t_capture = nullptr;
rt::PalImpl::pal_emit_log_message_method g_previous_sink = nullptr;

void log_sink(et_timestamp_t timestamp, et_pal_log_level_t level, const char* filename,
              const char* function, size_t line, const char* message, size_t length) {
  // Inside a binding call the error lines become part of the exception instead.
  if (t_capture != nullptr && (level == kError || level == kFatal)) {
    size_t n = length;
    while (n > 0 && (message[n - 1] == '\n' || message[n - 1] == '\r')) {
      --n;
    }
    if (t_capture->size() < 4096) {
      if (!t_capture->empty()) {
        t_capture->append("; ");
      }
      // Log lines may quote program bytes: keep the message valid (ASCII) text.
      for (size_t i = 0; i < n; ++i) {
        const unsigned char c = static_cast<unsigned char>(message[i]);
        t_capture->push_back(c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?');
      }
    }
    return;
  }
  if (g_previous_sink != nullptr) {
    g_previous_sink(timestamp, level, filename, function, line, message, length);
  } else {
    et_pal_emit_log_message(timestamp, level, filename, function, line, message, length);
  }
}

}  // namespace

LogCapture::LogCapture() : previous_(t_capture) {
  t_capture = &lines_;
}

LogCapture::~LogCapture() {
  t_capture = previous_;
}

std::string LogCapture::text() const {
  return lines_;
}

void fail(rt::Error code, const std::string& context, const std::string& detail) {
  char hex[16];
  std::snprintf(hex, sizeof(hex), "0x%02x", static_cast<unsigned>(code));
  std::string msg = context + ": " + rt::to_string(code) + " (" + hex + ")";
  if (!detail.empty()) {
    msg += ": " + detail;
  }
  throw RuntimeFailure(code, std::move(msg));
}

void fail(rt::Error code, const std::string& context, const LogCapture* log) {
  fail(code, context, log != nullptr ? log->text() : std::string());
}

void install_log_sink() {
  const rt::PalImpl* current = rt::get_pal_impl();
  if (current->emit_log_message == &log_sink) {
    return;
  }
  g_previous_sink = current->emit_log_message;
  // If the PAL table is full the runtime keeps logging to its own sink; errors then carry
  // only their code.
  (void)rt::register_pal(rt::PalImpl::create(&log_sink, __FILE__));
}

void bind_errors(py::module_& m) {
  py::native_enum<rt::Error>(m, "ErrorCode", "enum.IntEnum",
                             "The runtime's error codes (executorch::runtime::Error).")
      .value("Ok", rt::Error::Ok)
      .value("Internal", rt::Error::Internal)
      .value("InvalidState", rt::Error::InvalidState)
      .value("EndOfMethod", rt::Error::EndOfMethod)
      .value("AlreadyLoaded", rt::Error::AlreadyLoaded)
      .value("NotSupported", rt::Error::NotSupported)
      .value("NotImplemented", rt::Error::NotImplemented)
      .value("InvalidArgument", rt::Error::InvalidArgument)
      .value("InvalidType", rt::Error::InvalidType)
      .value("OperatorMissing", rt::Error::OperatorMissing)
      .value("RegistrationExceedingMaxKernels", rt::Error::RegistrationExceedingMaxKernels)
      .value("RegistrationAlreadyRegistered", rt::Error::RegistrationAlreadyRegistered)
      .value("NotFound", rt::Error::NotFound)
      .value("MemoryAllocationFailed", rt::Error::MemoryAllocationFailed)
      .value("AccessFailed", rt::Error::AccessFailed)
      .value("InvalidProgram", rt::Error::InvalidProgram)
      .value("InvalidExternalData", rt::Error::InvalidExternalData)
      .value("OutOfResources", rt::Error::OutOfResources)
      .value("DelegateInvalidCompatibility", rt::Error::DelegateInvalidCompatibility)
      .value("DelegateMemoryAllocationFailed", rt::Error::DelegateMemoryAllocationFailed)
      .value("DelegateInvalidHandle", rt::Error::DelegateInvalidHandle)
      .finalize();

  py::dict ns;
  ns["__module__"] = "executorch_runtime";
  g_error_type = PyErr_NewExceptionWithDoc(
      "executorch_runtime.Error",
      "A runtime call failed. `code` is the runtime's ErrorCode (name and value); the message "
      "names the operation and carries the runtime's log lines about it.",
      PyExc_RuntimeError, ns.ptr());
  if (g_error_type == nullptr) {
    throw py::error_already_set();
  }
  // The class attribute is the default for instances created from Python.
  PyObject_SetAttrString(g_error_type, "code", py::cast(rt::Error::Internal).ptr());
  m.add_object("Error", py::handle(g_error_type));

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) {
        std::rethrow_exception(p);
      }
    } catch (const RuntimeFailure& f) {
      py::object type = py::reinterpret_borrow<py::object>(g_error_type);
      py::object exc = type(f.what());
      exc.attr("code") = py::cast(f.code);
      PyErr_SetObject(g_error_type, exc.ptr());
    }
  });
}

}  // namespace etpy
