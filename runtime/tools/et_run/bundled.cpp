#include "bundled.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <executorch/devtools/bundled_program/bundled_program.h>
#include <executorch/devtools/bundled_program/bundled_program_reader.h>
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/platform/runtime.h>

#include "method_loader.h"
#include "print.h"

namespace et_run {
namespace {

namespace bp = executorch::bundled_program;
using executorch::runtime::Error;
using executorch::runtime::Program;

// The file in max-aligned memory: the program inside keeps its alignment.
bool read_aligned(
    const std::string& path, std::vector<std::max_align_t>* out, size_t* size) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    return false;
  }
  const std::vector<char> raw(
      (std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  out->assign(raw.size() / sizeof(std::max_align_t) + 1, std::max_align_t{});
  std::copy(raw.begin(), raw.end(), reinterpret_cast<char*>(out->data()));
  *size = raw.size();
  return true;
}

struct Tally {
  size_t passed = 0;
  size_t failed = 0;
};

// One test case: inputs, execute, compare. Prints its line; counts it in `tally`.
void run_case(
    executorch::runtime::Method& method,
    void* file,
    size_t c,
    const Options& opt,
    Tally* tally) {
  std::printf("  case %zu: ", c);
  Error e = bp::load_bundled_input(method, file, c);
  const char* step = "loading inputs";
  if (e == Error::Ok) {
    e = method.execute();
    step = "execute";
  }
  if (e == Error::Ok) {
    e = bp::verify_method_outputs(method, file, c, opt.rtol, opt.atol);
    step = "comparing outputs";
  }
  if (e == Error::Ok) {
    std::printf("pass\n");
    tally->passed++;
    return;
  }
  tally->failed++;
  if (e == Error::NotFound) {  // values differ beyond the tolerance
    const bp::ErrorStats stats =
        bp::compute_method_output_error_stats(method, file, c);
    std::printf(
        "FAIL: max abs error %g, max rel error %g (rtol %g, atol %g)\n",
        stats.max_abs_error,
        stats.max_relative_error,
        opt.rtol,
        opt.atol);
    return;
  }
  std::printf(
      "ERROR %s: %s (0x%x)\n",
      step,
      error_meaning(e),
      static_cast<unsigned>(e));
}

}  // namespace

int run_bundled(const Options& opt) {
  executorch::runtime::runtime_init();
  std::vector<std::max_align_t> storage;
  size_t size = 0;
  if (!read_aligned(opt.bundled, &storage, &size)) {
    std::fprintf(stderr, "et_run: cannot read '%s'\n", opt.bundled.c_str());
    return 1;
  }
  void* file = storage.data();
  const void* pte = nullptr;
  size_t pte_size = 0;
  Error e = bp::get_program_data(file, size, &pte, &pte_size);
  if (e != Error::Ok) {
    print_error("reading bundled program '" + opt.bundled + "'", e);
    return 1;
  }
  auto reader = bp::BundledProgramReader::load(file, size);
  if (!reader.ok()) {
    print_error(
        "reading bundled program '" + opt.bundled + "'", reader.error());
    return 1;
  }
  executorch::extension::BufferDataLoader loader(pte, pte_size);
  auto program = Program::load(
      &loader,
      opt.full_verification ? Program::Verification::InternalConsistency
                            : Program::Verification::Minimal);
  if (!program.ok()) {
    print_error(
        "loading the program inside '" + opt.bundled + "'", program.error());
    return 1;
  }
  std::printf(
      "bundled program: %s (program %zu bytes, %zu method test suite%s)\n",
      opt.bundled.c_str(),
      pte_size,
      reader->num_method_test_suites(),
      reader->num_method_test_suites() == 1 ? "" : "s");

  Tally tally;
  size_t suites_run = 0;
  executorch::extension::MemoryBudget budget(
      opt.max_memory, "raise it with --max-memory BYTES");
  for (size_t s = 0; s < reader->num_method_test_suites(); ++s) {
    const std::string name = reader->method_name(s).get();
    if (!opt.method.empty() && opt.method != name) {
      continue;
    }
    ++suites_run;
    const size_t cases = reader->num_test_cases(s).get();
    std::printf(
        "method '%s': %zu test case%s\n",
        name.c_str(),
        cases,
        cases == 1 ? "" : "s");
    auto meta = program->method_meta(name.c_str());
    LoadedMethod lm;
    e = meta.ok() ? load_method(
                        program.get(),
                        meta.get(),
                        name.c_str(),
                        nullptr,
                        nullptr,
                        executorch::runtime::MethodLoadConfig{},
                        &budget,
                        &lm)
                  : meta.error();
    if (e != Error::Ok) {
      print_error("loading method '" + name + "'", e);
      tally.failed += cases;
      continue;
    }
    for (size_t c = 0; c < cases; ++c) {
      run_case(*lm.method, file, c, opt, &tally);
    }
  }
  if (!opt.method.empty() && suites_run == 0) {
    std::fprintf(
        stderr,
        "et_run: '%s' has no test suite for method '%s'\n",
        opt.bundled.c_str(),
        opt.method.c_str());
    return 1;
  }
  std::printf("%zu passed, %zu failed\n", tally.passed, tally.failed);
  return tally.failed == 0 ? 0 : 1;
}

}  // namespace et_run
