#include "bundled_test_util.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include <executorch/devtools/bundled_program/bundled_program.h>

namespace bptest {

using executorch::runtime::Error;

Bytes bytes_of(const void* data, size_t size) {
  Bytes b;
  b.storage.resize(size / sizeof(std::max_align_t) + 1);
  if (size > 0) {
    std::memcpy(b.storage.data(), data, size);
  }
  b.size = size;
  return b;
}

Bytes read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  const std::vector<char> raw((std::istreambuf_iterator<char>(f)),
                              std::istreambuf_iterator<char>());
  return bytes_of(raw.data(), raw.size());
}

const std::string& fixtures_dir() {
  static const std::string dir =
      std::getenv("ET_BUNDLED_DIR") ? std::getenv("ET_BUNDLED_DIR") : "test/fixtures/bundled";
  return dir;
}

const test::Json& manifest() {
  static test::Json m;
  static bool loaded = test::read_json(fixtures_dir() + "/manifest.json", &m);
  (void)loaded;
  return m;
}

std::unique_ptr<Bundle> open_bundle(Bytes file) {
  auto b = std::make_unique<Bundle>();
  b->file = std::move(file);
  const void* pte = nullptr;
  size_t pte_len = 0;
  b->error =
      executorch::bundled_program::get_program_data(b->file.data(), b->file.size, &pte, &pte_len);
  if (b->error == Error::Ok) {
    const auto* p = static_cast<const uint8_t*>(pte);
    b->program.assign(p, p + pte_len);
  }
  return b;
}

std::unique_ptr<test::Loaded> load_method(const Bundle& bundle, const char* name) {
  return test::load(bundle.program, name, nullptr,
                    executorch::runtime::Program::Verification::InternalConsistency);
}

Bytes rewrite(const Bytes& file,
              const std::function<void(bundled_program_flatbuffer::BundledProgramT&)>& edit) {
  std::unique_ptr<bundled_program_flatbuffer::BundledProgramT> obj(
      bundled_program_flatbuffer::GetBundledProgram(file.storage.data())->UnPack());
  edit(*obj);
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(bundled_program_flatbuffer::BundledProgram::Pack(fbb, obj.get()),
             bundled_program_flatbuffer::BundledProgramIdentifier());
  return bytes_of(fbb.GetBufferPointer(), fbb.GetSize());
}

}  // namespace bptest
