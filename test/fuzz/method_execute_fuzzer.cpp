// Fuzz target: a .pte file loaded (Minimal verification, the level that trusts the file the
// most) and every method executed once, step by step within an instruction budget, on inputs
// synthesized from its MethodMeta (sizes and dtypes from the meta, small deterministic values),
// with the real kernel library linked in. Outputs are read back. Mutations: the
// structure-aware .pte mutator (pte_mutator.cpp) and libFuzzer's byte mutator.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "fuzz_common.h"

using executorch::extension::BufferDataLoader;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Program;
using executorch::runtime::Result;

namespace {

// A program may loop (a JumpFalse back to an earlier instruction) up to execute()'s guard of ten
// million instructions: a slow but well-formed program, not a finding, and a single one holds
// the fuzzer for minutes. So the method runs through step() (the same instruction loop as
// execute(), without the guard) and gives up after this many instructions.
constexpr size_t kInstructionBudget = 20000;

// step() and reset_execution() are marked experimental (upstream's API, kept as is).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
Error run_with_budget(executorch::runtime::Method& method) {
  for (size_t n = 0; n < kInstructionBudget; ++n) {
    const Error err = method.step();
    if (err == Error::EndOfMethod) {
      return method.reset_execution();
    }
    if (err != Error::Ok) {
      return err;
    }
  }
  return Error::InvalidState;  // over budget: the outputs are not final
}
#pragma GCC diagnostic pop

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::quiet_logs();
  const fuzz::AlignedInput input(data, size);
  BufferDataLoader loader(input.data(), input.size());
  Result<Program> program = Program::load(&loader, Program::Verification::Minimal);
  if (!program.ok()) {
    return 0;
  }
  for (size_t i = 0; i < program->num_methods(); ++i) {
    Result<const char*> name = program->get_method_name(i);
    if (!name.ok()) {
      continue;
    }
    std::unique_ptr<fuzz::LoadedMethod> loaded = fuzz::load_method(program.get(), name.get());
    if (!loaded->method) {
      if (fuzz::tracing())
        std::fprintf(stderr, "method_execute: %s not loaded\n", name.get());
      continue;
    }
    fuzz::SynthesizedInputs inputs;
    const bool inputs_set =
        inputs.set(*loaded->method) && inputs.set_unplanned_outputs(*loaded->method);
    const Error executed = inputs_set ? run_with_budget(*loaded->method) : Error::InvalidArgument;
    if (fuzz::tracing()) {
      std::fprintf(stderr, "method_execute: %s inputs %s, execute 0x%x\n", name.get(),
                   inputs_set ? "set" : "refused", static_cast<unsigned>(executed));
    }
    if (executed != Error::Ok) {
      continue;
    }
    std::vector<EValue> outputs(loaded->method->outputs_size());
    if (loaded->method->get_outputs(outputs.data(), outputs.size()) != Error::Ok) {
      continue;
    }
    // Touch every byte of every tensor output, so a bad data pointer or size shows here.
    volatile uint8_t sink = 0;
    for (const EValue& out : outputs) {
      if (!out.isTensor())
        continue;
      const auto& t = out.toTensor();
      const uint8_t* bytes = static_cast<const uint8_t*>(t.const_data_ptr());
      for (size_t b = 0; bytes != nullptr && b < t.nbytes(); ++b)
        sink = sink ^ bytes[b];
    }
  }
  return 0;
}
