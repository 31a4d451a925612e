// Fuzz target: a .ptd file (FlatTensor "FT01" data map) through FlatTensorDataMap::load, every
// key's layout and data (get_data and load_data_into), and then the zoo program that reads
// its constants from a .ptd (external_constants.pte) loaded and executed against the fuzzed
// map, so the program-side merge of named data runs on fuzzed layouts too.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>

#include "fuzz_common.h"

using executorch::extension::BufferDataLoader;
using executorch::extension::FlatTensorDataMap;
using executorch::runtime::Error;
using executorch::runtime::Program;
using executorch::runtime::Result;

namespace {

// The program that consumes the map (its bytes are read once).
const std::vector<uint8_t>& consumer_program() {
  static const std::vector<uint8_t> bytes = [] {
    const char* dir = std::getenv("ET_ZOO_DIR");
    const std::string path =
        std::string(dir != nullptr ? dir : ET_FUZZ_ZOO_DIR) + "/external_constants.pte";
    std::ifstream f(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f),
                                std::istreambuf_iterator<char>());
  }();
  return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::quiet_logs();
  const fuzz::AlignedInput input(data, size);
  BufferDataLoader loader(input.data(), input.size());
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&loader);
  if (!map.ok()) {
    return 0;
  }
  auto keys = map->get_num_keys();
  std::vector<uint8_t> scratch;
  for (uint32_t k = 0; keys.ok() && k <= keys.get() && k < 4096; ++k) {
    Result<const char*> key = map->get_key(k);
    if (!key.ok()) {
      continue;
    }
    auto layout = map->get_tensor_layout(key.get());
    auto blob = map->get_data(key.get());
    if (layout.ok() && layout->nbytes() <= fuzz::kMaxInputBytes) {
      scratch.assign(layout->nbytes(), 0);
      (void)map->load_data_into(key.get(), scratch.data(), scratch.size());
    }
    if (blob.ok()) {
      volatile uint8_t sink = 0;
      const uint8_t* bytes = static_cast<const uint8_t*>(blob->data());
      for (size_t b = 0; bytes != nullptr && b < blob->size(); ++b)
        sink = sink ^ bytes[b];
    }
  }

  const std::vector<uint8_t>& pte = consumer_program();
  const fuzz::AlignedInput program_bytes(pte.data(), pte.size());
  BufferDataLoader program_loader(program_bytes.data(), program_bytes.size());
  Result<Program> program = Program::load(&program_loader);
  if (!program.ok()) {
    return 0;
  }
  std::unique_ptr<fuzz::LoadedMethod> loaded =
      fuzz::load_method(program.get(), "forward", &map.get());
  fuzz::SynthesizedInputs inputs;
  if (loaded->method && inputs.set(*loaded->method) &&
      inputs.set_unplanned_outputs(*loaded->method)) {
    (void)loaded->method->execute();
  }
  return 0;
}
