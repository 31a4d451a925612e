#include "etdump_output.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace et_run {

using executorch::runtime::EventTracerDebugLogLevel;

namespace {

bool write_file(const std::string& path, const void* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    std::fprintf(
        stderr,
        "et_run: cannot write '%s': %s\n",
        path.c_str(),
        std::strerror(errno));
    return false;
  }
  const bool ok = std::fwrite(data, 1, size, f) == size;
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) {
    std::fprintf(stderr, "et_run: writing '%s' failed\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace

EtdumpRecorder::EtdumpRecorder(std::string path, uint64_t debug_buffer_size)
    : path_(std::move(path)), debug_buffer_(debug_buffer_size) {
  if (debug_buffer_size > 0) {
    (void)gen_.set_debug_buffer({debug_buffer_.data(), debug_buffer_.size()});
    gen_.set_event_tracer_debug_level(
        EventTracerDebugLogLevel::kIntermediateOutputs);
  }
}

bool EtdumpRecorder::write() {
  const size_t runs = gen_.get_num_blocks();
  executorch::etdump::ETDumpResult dump = gen_.get_etdump_data();
  if (dump.buf == nullptr) {
    std::fprintf(stderr, "et_run: nothing was recorded for --etdump\n");
    return false;
  }
  const bool ok = write_file(path_, dump.buf, dump.size);
  std::free(dump.buf);
  if (!ok) {
    return false;
  }
  std::printf(
      "\netdump: wrote %s (%zu bytes, %zu run%s)\n",
      path_.c_str(),
      dump.size,
      runs,
      runs == 1 ? "" : "s");
  if (!debug_buffer_.empty()) {
    const std::string debug_path = debug_path_for(path_);
    const size_t used = gen_.get_debug_buffer_used_bytes();
    if (!write_file(debug_path, debug_buffer_.data(), used)) {
      return false;
    }
    std::printf(
        "etdump: wrote %s (%zu of %zu debug buffer bytes used)\n",
        debug_path.c_str(),
        used,
        debug_buffer_.size());
  }
  return true;
}

}  // namespace et_run
