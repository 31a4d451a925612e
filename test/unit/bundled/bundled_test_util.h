// Helpers of the BundledProgram tests: aligned file bytes, the fixtures' manifest, a .bpte whose
// program is loaded, and rewriting a .bpte through the flatbuffers object API. Methods are
// loaded with test::load() (../method/program_builder.h), logs read with ../common/log_capture.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <executorch/runtime/core/error.h>

#include <executorch_schema/bundled_program_schema_generated.h>

#include "../common/json.h"
#include "../common/log_capture.h"
#include "../method/program_builder.h"

namespace bptest {

// File bytes in max-aligned storage (a .pte inside a .bpte is 32-byte aligned in the file).
struct Bytes {
  std::vector<std::max_align_t> storage;
  size_t size = 0;
  void* data() {
    return storage.data();
  }
};
Bytes bytes_of(const void* data, size_t size);
Bytes read_bytes(const std::string& path);

// test/fixtures/bundled (ET_BUNDLED_DIR overrides) and its manifest.json.
const std::string& fixtures_dir();
const test::Json& manifest();

// A .bpte that get_program_data() accepted (error says why not), and its program's bytes.
struct Bundle {
  Bytes file;
  std::vector<uint8_t> program;
  executorch::runtime::Error error = executorch::runtime::Error::Ok;
};
std::unique_ptr<Bundle> open_bundle(Bytes file);

// Method `name` of the bundle's program, fully verified.
std::unique_ptr<test::Loaded> load_method(const Bundle& bundle, const char* name);

// Unpacks `file`, lets `edit` change it, packs it again with the BP08 identifier.
Bytes rewrite(const Bytes& file,
              const std::function<void(bundled_program_flatbuffer::BundledProgramT&)>& edit);

}  // namespace bptest
