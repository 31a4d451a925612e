// Fuzz target: a .pte file through Program::load (both verification levels), every method's
// metadata, load_method of every method, and the program's named data. Nothing executes (see
// method_execute_fuzzer.cpp). Mutations: the structure-aware .pte mutator (pte_mutator.cpp)
// and libFuzzer's byte mutator.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.h"

using executorch::extension::BufferDataLoader;
using executorch::runtime::Program;
using executorch::runtime::Result;

namespace {

void exercise(const fuzz::AlignedInput& input, Program::Verification verification) {
  BufferDataLoader loader(input.data(), input.size());
  Result<Program> program = Program::load(&loader, verification);
  if (!program.ok()) {
    return;
  }
  for (size_t i = 0; i <= program->num_methods(); ++i) {
    Result<const char*> name = program->get_method_name(i);
    if (!name.ok()) {
      continue;
    }
    auto meta = program->method_meta(name.get());
    if (meta.ok()) {
      fuzz::walk_method_meta(meta.get());
    }
    std::unique_ptr<fuzz::LoadedMethod> loaded = fuzz::load_method(program.get(), name.get());
    (void)loaded;
  }
  auto map = program->get_named_data_map();
  if (map.ok() && map.get() != nullptr) {
    auto keys = map.get()->get_num_keys();
    for (uint32_t k = 0; keys.ok() && k <= keys.get() && k < 4096; ++k) {
      auto key = map.get()->get_key(k);
      if (key.ok()) {
        (void)map.get()->get_tensor_layout(key.get());
        (void)map.get()->get_data(key.get());
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::quiet_logs();
  const fuzz::AlignedInput input(data, size);
  (void)Program::check_header(input.data(), input.size());
  exercise(input, Program::Verification::Minimal);
  exercise(input, Program::Verification::InternalConsistency);
  return 0;
}
