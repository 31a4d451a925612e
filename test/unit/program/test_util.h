// Shared helpers of the program tests: load a file image through a
// BufferDataLoader and report the error, with the log captured.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/executor/detail/program_access.h>
#include <executorch/runtime/executor/detail/program_validation.h>
#include <executorch/runtime/executor/program.h>

#include "pte_writer.h"

namespace executorch {
namespace runtime {
namespace testing {
// Program's private state, reached the way executor internals reach it.
class ProgramTestFriend {
 public:
  static const executorch_flatbuffer::Program* internal(const Program& p) {
    return internal::ProgramAccess::flatbuffer(p);
  }
  static Result<FreeableBuffer> load_segment(const Program& p, size_t i) {
    return internal::ProgramAccess::load_segment(
        p, DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Backend, i));
  }
  static Error mutable_into(const Program& p, size_t m, size_t k, size_t n, void* buf) {
    return internal::ProgramAccess::load_mutable_subsegment_into(p, m, k, n, buf);
  }
  static Error delegate_data(const Program& p, size_t i, const void** d, size_t* n) {
    return internal::ProgramAccess::backend_delegate_data(p, i, d, n);
  }
};
}  // namespace testing
}  // namespace runtime
}  // namespace executorch

namespace et_test {

using executorch::runtime::testing::ProgramTestFriend;

using executorch::extension::BufferDataLoader;
using executorch::runtime::Error;
using executorch::runtime::Program;
using executorch::runtime::Result;
using Verification = executorch::runtime::Program::Verification;

/// A program loaded from a file image, kept alive with its bytes and loader.
struct LoadedProgram {
  explicit LoadedProgram(const std::vector<uint8_t>& bytes, Verification v = Verification::Minimal)
      : mem(bytes), loader(mem.data, mem.size) {
    clear_log();
    auto r = Program::load(&loader, v);
    error = r.error();
    if (r.ok()) {
      program.emplace(std::move(r.get()));
    }
  }
  AlignedBytes mem;
  BufferDataLoader loader;
  Error error = Error::Ok;
  std::optional<Program> program;
};

/// Loads under `v`; under Minimal, also runs the per-method validation that
/// load_method() runs before it hands the plan to Method.
inline Error load_error(const std::vector<uint8_t>& bytes, Verification v,
                        std::string* log = nullptr) {
  LoadedProgram lp(bytes, v);
  Error e = lp.error;
  if (e == Error::Ok) {
    const auto* root = ProgramTestFriend::internal(*lp.program);
    for (size_t i = 0; i < lp.program->num_methods() && e == Error::Ok; ++i) {
      e = executorch::runtime::detail::validate_execution_plan(root, i);
    }
  }
  if (log != nullptr) {
    *log = captured_log();
  }
  return e;
}

}  // namespace et_test
