// et_run --etdump FILE [--debug-buffer-size N]: records the run into an ETDump (upstream
// ExecuTorch's profiling format, read by executorch.devtools.Inspector) and writes it to
// FILE; with a debug buffer, also every operator's output tensor, whose data goes to
// FILE.debug (the Inspector's debug_buffer_path).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <executorch/devtools/etdump/etdump_flatcc.h>

namespace et_run {

class EtdumpRecorder {
 public:
  /// `debug_buffer_size` 0: profiling only, no values logged.
  EtdumpRecorder(std::string path, uint64_t debug_buffer_size);

  executorch::etdump::ETDumpGen* tracer() {
    return &gen_;
  }
  /// Forgets what was recorded so far (the warmup iterations).
  void restart() {
    gen_.clear_builder();
  }
  /// Writes the ETDump (and the used part of the debug buffer); prints where. Returns
  /// false with a message on stderr when nothing could be written.
  bool write();

  static std::string debug_path_for(const std::string& etdump_path) {
    return etdump_path + ".debug";
  }

 private:
  std::string path_;
  std::vector<uint8_t> debug_buffer_;
  executorch::etdump::ETDumpGen gen_;
};

}  // namespace et_run
