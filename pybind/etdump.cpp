// ETDump recording for load_method(..., etdump=True) and Method.write_etdump.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common.h"

namespace etpy {

namespace {

// Writes [data, data + size) to `path`; 0 or the errno of the failure. Runs without the GIL.
int write_bytes(const std::string& path, const void* data, size_t size) {
  errno = 0;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    return errno != 0 ? errno : EIO;
  }
  const bool ok = std::fwrite(data, 1, size, f) == size;
  const int write_err = ok ? 0 : (errno != 0 ? errno : EIO);
  if (std::fclose(f) != 0 && write_err == 0) {
    return errno != 0 ? errno : EIO;
  }
  return write_err;
}

[[noreturn]] void raise_os_error(int err, const std::string& path) {
  errno = err;
  PyErr_SetFromErrnoWithFilename(PyExc_OSError, path.c_str());
  throw py::error_already_set();
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
  // The names are Python objects: resolved before the GIL is released.
  const std::string dump_path = file_name(path);
  const bool with_debug_buffer = !debug_buffer_path.is_none();
  const std::string debug_path = with_debug_buffer ? file_name(debug_buffer_path) : std::string();
  bool executed = true;
  int err = 0;
  const std::string* failed_path = nullptr;
  {
    // The files are written under the lock: the next execute would overwrite the debug buffer
    // and add to the dump.
    MethodLock lock(st.mu);
    const size_t used = st.etdump->get_debug_buffer_used_bytes();
    ::executorch::etdump::ETDumpResult dump = st.etdump->get_etdump_data();
    if (dump.buf == nullptr) {
      executed = false;
    } else {
      err = write_bytes(dump_path, dump.buf, dump.size);
      std::free(dump.buf);
      failed_path = err != 0 ? &dump_path : nullptr;
      if (err == 0 && with_debug_buffer) {
        err = write_bytes(debug_path, st.debug_buffer.data(), used);
        failed_path = err != 0 ? &debug_path : nullptr;
      }
    }
  }
  if (!executed) {
    throw py::value_error("method '" + st.name + "' has not been executed since it was loaded " +
                          "or since the last write_etdump");
  }
  if (failed_path != nullptr) {
    raise_os_error(err, *failed_path);
  }
}

}  // namespace etpy
