// ETDump recording for load_method(..., etdump=True) and Method.write_etdump.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common.h"

namespace etpy {

namespace {

void write_bytes(const std::string& path, const void* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    PyErr_SetFromErrnoWithFilename(PyExc_OSError, path.c_str());
    throw py::error_already_set();
  }
  const bool ok = std::fwrite(data, 1, size, f) == size;
  if (std::fclose(f) != 0 || !ok) {
    PyErr_SetFromErrnoWithFilename(PyExc_OSError, path.c_str());
    throw py::error_already_set();
  }
}

}  // namespace

void setup_etdump(MethodState& st, bool etdump, const py::object& debug_buffer_size, bool profile) {
  const long long size = debug_buffer_size.cast<long long>();
  if (size < 0) {
    throw py::value_error("debug_buffer_size must be >= 0 bytes, got " + std::to_string(size));
  }
  if (!etdump) {
    if (size > 0) {
      throw py::value_error("debug_buffer_size needs etdump=True");
    }
    return;
  }
  if (profile) {
    // A Method reports to one tracer; the ETDump holds the same timings.
    throw py::value_error("profile=True and etdump=True cannot be combined");
  }
  st.etdump = std::make_unique<::executorch::etdump::ETDumpGen>();
  if (size > 0) {
    st.debug_buffer.resize(static_cast<size_t>(size));
    (void)st.etdump->set_debug_buffer({st.debug_buffer.data(), st.debug_buffer.size()});
    st.etdump->set_event_tracer_debug_level(
        ::executorch::runtime::EventTracerDebugLogLevel::kIntermediateOutputs);
  }
}

// A str or os.PathLike as a file name.
std::string file_name(const py::object& path) {
  return py::module_::import("os").attr("fspath")(path).cast<std::string>();
}

void write_etdump(MethodState& st, const py::object& path, const py::object& debug_buffer_path) {
  if (!st.etdump) {
    throw py::value_error("method '" + st.name + "' was not loaded with etdump=True");
  }
  std::lock_guard<std::mutex> lock(st.mu);
  const size_t used = st.etdump->get_debug_buffer_used_bytes();
  ::executorch::etdump::ETDumpResult dump = st.etdump->get_etdump_data();
  if (dump.buf == nullptr) {
    throw py::value_error("method '" + st.name + "' has not been executed since it was loaded " +
                          "or since the last write_etdump");
  }
  struct Free {
    void* p;
    ~Free() {
      std::free(p);
    }
  } owned{dump.buf};
  write_bytes(file_name(path), dump.buf, dump.size);
  if (!debug_buffer_path.is_none()) {
    write_bytes(file_name(debug_buffer_path), st.debug_buffer.data(), used);
  }
}

}  // namespace etpy
