/*
 * The process-wide table of constant preparers and instruction fusers
 * (prepared_constants.h).
 * Constant-initialized like the kernel registry, so kernel libraries can
 * register from static initializers in any order; lookups take the lock too
 * (they happen at method load only).
 */
#include <executorch/runtime/kernel/prepared_constants.h>

#include <cstring>
#include <mutex>

#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {

namespace {

// Preparers (second == null) and fusers (second != null) share one table.
constexpr size_t kMaxEntries = 64;

struct Entry {
  const char* first;
  const char* second;
  void (*fn)();  // a ConstantPreparer or an InstructionFuser
};

Entry g_entries[kMaxEntries];
size_t g_n_entries = 0;
std::mutex g_mutex;

bool same(const char* a, const char* b) {
  return a == nullptr || b == nullptr ? a == b : std::strcmp(a, b) == 0;
}

using AnyFn = void (*)();

AnyFn find_locked(const char* first, const char* second) {
  for (size_t i = 0; i < g_n_entries; ++i) {
    if (same(g_entries[i].first, first) && same(g_entries[i].second, second)) {
      return g_entries[i].fn;
    }
  }
  return nullptr;
}

Error add(const char* what, const char* first, const char* second, AnyFn fn) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (find_locked(first, second) != nullptr) {
    ET_LOG(
        Error,
        "%s: '%s'%s%s is already registered",
        what,
        first,
        second != nullptr ? " + " : "",
        second != nullptr ? second : "");
    return Error::InvalidArgument;
  }
  if (g_n_entries == kMaxEntries) {
    ET_LOG(Error, "%s: table full (%zu) at '%s'", what, kMaxEntries, first);
    return Error::RegistrationExceedingMaxKernels;
  }
  g_entries[g_n_entries++] = Entry{first, second, fn};
  return Error::Ok;
}

AnyFn find(const char* first, const char* second) {
  if (first == nullptr) {
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  return find_locked(first, second);
}

}  // namespace

Error register_constant_preparer(const char* op_name, ConstantPreparer fn) {
  if (op_name == nullptr || fn == nullptr) {
    ET_LOG(Error, "register_constant_preparer: null name or function");
    return Error::InvalidArgument;
  }
  return add(
      "register_constant_preparer",
      op_name,
      nullptr,
      reinterpret_cast<AnyFn>(fn));
}

ConstantPreparer find_constant_preparer(const char* op_name) {
  return reinterpret_cast<ConstantPreparer>(find(op_name, nullptr));
}

Error register_instruction_fuser(
    const char* first_op, const char* second_op, InstructionFuser fn) {
  if (first_op == nullptr || second_op == nullptr || fn == nullptr) {
    ET_LOG(Error, "register_instruction_fuser: null name or function");
    return Error::InvalidArgument;
  }
  return add(
      "register_instruction_fuser",
      first_op,
      second_op,
      reinterpret_cast<AnyFn>(fn));
}

InstructionFuser find_instruction_fuser(
    const char* first_op, const char* second_op) {
  if (second_op == nullptr) {
    return nullptr;
  }
  return reinterpret_cast<InstructionFuser>(find(first_op, second_op));
}

}  // namespace runtime
}  // namespace executorch
