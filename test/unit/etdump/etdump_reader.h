// Reading an ETDump back in the tests: the flatbuffers Verifier against our schema copy,
// then the generated accessors; and what a .pte says its method executes.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <executorch_schema/etdump_schema_flatcc_generated.h>
#include <executorch_schema/program_generated.h>

#include <executorch/devtools/etdump/etdump_flatcc.h>

namespace test {

// An ETDump copied out of an ETDumpResult (freeing the result's malloc'd buffer).
struct Dump {
  std::vector<uint8_t> bytes;

  // Null unless the bytes verify as a size-prefixed ETDump with identifier "ED00".
  const ::etdump::ETDump* root() const {
    flatbuffers::Verifier v(bytes.data(), bytes.size());
    if (bytes.size() < 8 || !::etdump::VerifySizePrefixedETDumpBuffer(v)) {
      return nullptr;
    }
    return ::etdump::GetSizePrefixedETDump(bytes.data());
  }
};

inline Dump take_dump(executorch::etdump::ETDumpResult r) {
  Dump d;
  if (r.buf != nullptr) {
    const uint8_t* p = static_cast<const uint8_t*>(r.buf);
    d.bytes.assign(p, p + r.size);
    std::free(r.buf);
  }
  return d;
}

// The operator profile events of one run (those inside an instruction), in order.
inline std::vector<std::string> operator_names(const ::etdump::RunData* run) {
  std::vector<std::string> out;
  if (run->events() == nullptr) {
    return out;
  }
  for (const ::etdump::Event* e : *run->events()) {
    const ::etdump::ProfileEvent* p = e->profile_event();
    if (p != nullptr && p->name() != nullptr && p->chain_index() >= 0) {
      out.push_back(p->name()->str());
    }
  }
  return out;
}

// Names of the profile events outside any instruction (chain index -1).
inline std::vector<std::string> method_event_names(const ::etdump::RunData* run) {
  std::vector<std::string> out;
  for (const ::etdump::Event* e : *run->events()) {
    const ::etdump::ProfileEvent* p = e->profile_event();
    if (p != nullptr && p->name() != nullptr && p->chain_index() < 0) {
      out.push_back(p->name()->str());
    }
  }
  return out;
}

inline std::vector<const ::etdump::DebugEvent*> debug_events(const ::etdump::RunData* run) {
  std::vector<const ::etdump::DebugEvent*> out;
  for (const ::etdump::Event* e : *run->events()) {
    if (e->debug_event() != nullptr) {
      out.push_back(e->debug_event());
    }
  }
  return out;
}

inline std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// The KernelCalls of a straight-line method ("name.overload", in instruction order), read
// from the program itself.
inline std::vector<std::string> kernel_calls_of(const std::vector<uint8_t>& pte,
                                                const std::string& method) {
  std::vector<std::string> out;
  const auto* program = executorch_flatbuffer::GetProgram(pte.data());
  for (const auto* plan : *program->execution_plan()) {
    if (plan->name()->str() != method) {
      continue;
    }
    for (const auto* chain : *plan->chains()) {
      for (const auto* ins : *chain->instructions()) {
        const auto* k = ins->instr_args_as_KernelCall();
        if (k == nullptr) {
          continue;
        }
        const auto* op = plan->operators()->Get(static_cast<flatbuffers::uoffset_t>(k->op_index()));
        std::string name = op->name()->str();
        if (op->overload() != nullptr && op->overload()->size() > 0) {
          name += "." + op->overload()->str();
        }
        out.push_back(name);
      }
    }
  }
  return out;
}

}  // namespace test
