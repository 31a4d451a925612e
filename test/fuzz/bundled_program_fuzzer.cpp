// Fuzz target: a .bpte (upstream BundledProgram) through get_program_data, every value of
// every test case through BundledProgramReader, then the embedded program loaded and each
// test case run the way upstream runners do: load_bundled_input, execute,
// verify_method_outputs and compute_method_output_error_stats. Seeds: test/fixtures/bundled.
#include <cstddef>
#include <cstdint>
#include <memory>

#include <executorch/devtools/bundled_program/bundled_program.h>
#include <executorch/devtools/bundled_program/bundled_program_reader.h>

#include "fuzz_common.h"

namespace bp = executorch::bundled_program;
using executorch::extension::BufferDataLoader;
using executorch::runtime::Error;
using executorch::runtime::Program;
using executorch::runtime::Result;

namespace {

// Caps on the work per input (a valid file may list thousands of cases).
constexpr size_t kMaxSuites = 8;
constexpr size_t kMaxCases = 8;

// Reads every byte of every value the reader hands out, so a wrong data length shows as an
// out-of-bounds read under ASan.
void touch_values(const bp::BundledProgramReader& reader) {
  volatile uint8_t sink = 0;
  for (size_t s = 0; s < reader.num_method_test_suites() && s < kMaxSuites; ++s) {
    const size_t cases = reader.num_test_cases(s).get();
    for (size_t c = 0; c < cases && c < kMaxCases; ++c) {
      for (int outputs = 0; outputs < 2; ++outputs) {
        const size_t n =
            outputs ? reader.num_expected_outputs(s, c).get() : reader.num_inputs(s, c).get();
        for (size_t i = 0; i <= n; ++i) {  // one past the end must be an error
          Result<bp::BundledValue> v =
              outputs ? reader.expected_output(s, c, i) : reader.input(s, c, i);
          if (!v.ok()) {
            continue;
          }
          const auto* bytes = static_cast<const uint8_t*>(v->data);
          for (size_t b = 0; bytes != nullptr && b < v->nbytes; ++b) {
            sink = sink ^ bytes[b];
          }
          for (size_t d = 0; d < v->sizes.size(); ++d) {
            sink = sink ^ static_cast<uint8_t>(v->sizes[d] ^ v->dim_order[d]);
          }
        }
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::quiet_logs();
  const fuzz::AlignedInput input(data, size);
  // The API takes a mutable pointer as upstream's does; nothing writes through it.
  void* file = const_cast<uint8_t*>(input.data());
  const void* pte = nullptr;
  size_t pte_size = 0;
  if (bp::get_program_data(file, input.size(), &pte, &pte_size) != Error::Ok) {
    return 0;
  }
  Result<bp::BundledProgramReader> reader = bp::BundledProgramReader::load(file, input.size());
  if (!reader.ok()) {
    __builtin_trap();  // get_program_data accepted the same bytes
  }
  touch_values(reader.get());

  BufferDataLoader loader(pte, pte_size);
  Result<Program> program = Program::load(&loader);
  if (!program.ok()) {
    return 0;
  }
  for (size_t s = 0; s < reader->num_method_test_suites() && s < kMaxSuites; ++s) {
    std::unique_ptr<fuzz::LoadedMethod> loaded =
        fuzz::load_method(program.get(), reader->method_name(s).get());
    if (!loaded->method) {
      continue;
    }
    fuzz::SynthesizedInputs outputs;
    if (!outputs.set_unplanned_outputs(*loaded->method)) {
      continue;
    }
    const size_t cases = reader->num_test_cases(s).get();
    for (size_t c = 0; c <= cases && c < kMaxCases; ++c) {  // one past the end too
      if (bp::load_bundled_input(*loaded->method, file, c) != Error::Ok) {
        continue;
      }
      if (loaded->method->execute() != Error::Ok) {
        continue;
      }
      (void)bp::verify_method_outputs(*loaded->method, file, c, 1e-3, 1e-5);
      (void)bp::compute_method_output_error_stats(*loaded->method, file, c);
    }
  }
  return 0;
}
