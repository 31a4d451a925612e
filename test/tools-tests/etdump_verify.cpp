// etdump_verify FILE: checks FILE with the flatbuffers Verifier against our ETDump schema
// copy (size-prefixed, identifier "ED00") and prints what the checks compare:
//   runs N
//   op NAME COUNT        (operator events inside instructions, summed over the runs)
//   method NAME COUNT    (events outside any instruction)
//   delegate NAME COUNT  (events a backend logged by name, e.g. XnnpackBackend per node)
//   debug N              (logged values)
// Exit status 1 (with a message) when the file does not verify.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <executorch_schema/etdump_schema_flatcc_generated.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: etdump_verify FILE\n");
    return 2;
  }
  std::ifstream f(argv[1], std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)),
                                   std::istreambuf_iterator<char>());
  flatbuffers::Verifier v(bytes.data(), bytes.size());
  if (bytes.size() < 12 || !etdump::VerifySizePrefixedETDumpBuffer(v)) {
    std::fprintf(stderr, "etdump_verify: %s is not a valid ETDump\n", argv[1]);
    return 1;
  }
  const etdump::ETDump* root = etdump::GetSizePrefixedETDump(bytes.data());
  const auto* runs = root->run_data();
  std::printf("runs %u\n", runs != nullptr ? runs->size() : 0u);
  std::map<std::string, int> ops, method, delegate;
  int debug = 0;
  for (const etdump::RunData* run : *runs) {
    if (run->events() == nullptr) {
      continue;
    }
    for (const etdump::Event* e : *run->events()) {
      if (e->debug_event() != nullptr) {
        ++debug;
      }
      const etdump::ProfileEvent* p = e->profile_event();
      if (p != nullptr && p->delegate_debug_id_str() != nullptr) {
        delegate[p->delegate_debug_id_str()->str()] += 1;
      }
      if (p == nullptr || p->name() == nullptr) {
        continue;
      }
      (p->chain_index() >= 0 ? ops : method)[p->name()->str()] += 1;
    }
  }
  for (const auto& kv : ops) {
    std::printf("op %s %d\n", kv.first.c_str(), kv.second);
  }
  for (const auto& kv : method) {
    std::printf("method %s %d\n", kv.first.c_str(), kv.second);
  }
  for (const auto& kv : delegate) {
    std::printf("delegate %s %d\n", kv.first.c_str(), kv.second);
  }
  std::printf("debug %d\n", debug);
  return 0;
}
