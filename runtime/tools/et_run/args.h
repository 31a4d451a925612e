// Command-line options of et_run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <executorch/extension/module/memory_limit.h>

namespace et_run {

struct Options {
  std::string model;
  std::string method;     // empty: "forward" if present, else the first method
  std::string data_path;  // optional .ptd with external constants
  std::vector<std::string> inputs;  // .npy files, in input order
  std::string output_dir;
  int iterations = 1;
  int warmup = 0;
  int top = 0;     // print the top-K entries of each output (0: off)
  int values = 8;  // leading values printed per output
  bool profile = false;
  bool full_verification = false;
  // Off with --no-prepare: every instruction runs at every execute (MethodLoadConfig).
  bool prepare = true;
  // Cap on the bytes allocated from sizes the program declares (planned buffers, unplanned
  // outputs, inputs).
  uint64_t max_memory = executorch::extension::default_max_memory();
  // --etdump FILE: record an ETDump; --debug-buffer-size N: also log operator outputs.
  std::string etdump_path;
  uint64_t debug_buffer_size = 0;
  // --bundled FILE.bpte: run every test case of every method instead (bundled.h), with this
  // tolerance (the defaults of upstream's bundled example runner).
  std::string bundled;
  double rtol = 1e-3;
  double atol = 1e-5;
};

/// Parses argv. Returns 0 to run, otherwise the exit status to end with
/// (0 after --help, 2 on a usage error, with a message on stderr).
int parse_args(int argc, char** argv, Options* out, bool* exit_now);

void print_usage(const char* argv0);

}  // namespace et_run
