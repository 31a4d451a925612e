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

// Preparers (second == null), fusers and folders (second != null) share one
// table; `kind` keeps a fuser and a folder of the same pair apart.
constexpr size_t kMaxEntries = 128;

enum class Kind : uint8_t { Preparer, Fuser, Folder, RunFuser, LayoutRule };

struct Entry {
  Kind kind;
  const char* first;
  const char* second;
  void (*fn)();  // a ConstantPreparer, InstructionFuser or InstructionFolder
};

Entry g_entries[kMaxEntries];
size_t g_n_entries = 0;
std::mutex g_mutex;

bool same(const char* a, const char* b) {
  return a == nullptr || b == nullptr ? a == b : std::strcmp(a, b) == 0;
}

using AnyFn = void (*)();

AnyFn find_locked(Kind kind, const char* first, const char* second) {
  for (size_t i = 0; i < g_n_entries; ++i) {
    if (g_entries[i].kind == kind && same(g_entries[i].first, first) &&
        same(g_entries[i].second, second)) {
      return g_entries[i].fn;
    }
  }
  return nullptr;
}

// Preparers and run fusers are keyed by one operator, fusers and folders by a
// pair.
bool takes_pair(Kind kind) {
  return kind == Kind::Fuser || kind == Kind::Folder;
}

Error add(
    Kind kind,
    const char* what,
    const char* first,
    const char* second,
    AnyFn fn) {
  if (first == nullptr || fn == nullptr ||
      (takes_pair(kind) && second == nullptr)) {
    ET_LOG(Error, "%s: null name or function", what);
    return Error::InvalidArgument;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  if (find_locked(kind, first, second) != nullptr) {
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
  g_entries[g_n_entries++] = Entry{kind, first, second, fn};
  return Error::Ok;
}

AnyFn find(Kind kind, const char* first, const char* second) {
  if (first == nullptr || (takes_pair(kind) && second == nullptr)) {
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  return find_locked(kind, first, second);
}

}  // namespace

Error register_constant_preparer(const char* op_name, ConstantPreparer fn) {
  return add(
      Kind::Preparer,
      "register_constant_preparer",
      op_name,
      nullptr,
      reinterpret_cast<AnyFn>(fn));
}

ConstantPreparer find_constant_preparer(const char* op_name) {
  return reinterpret_cast<ConstantPreparer>(
      find(Kind::Preparer, op_name, nullptr));
}

Error register_instruction_fuser(
    const char* first_op, const char* second_op, InstructionFuser fn) {
  return add(
      Kind::Fuser,
      "register_instruction_fuser",
      first_op,
      second_op,
      reinterpret_cast<AnyFn>(fn));
}

InstructionFuser find_instruction_fuser(
    const char* first_op, const char* second_op) {
  return reinterpret_cast<InstructionFuser>(
      find(Kind::Fuser, first_op, second_op));
}

Error register_instruction_folder(
    const char* first_op, const char* second_op, InstructionFolder fn) {
  return add(
      Kind::Folder,
      "register_instruction_folder",
      first_op,
      second_op,
      reinterpret_cast<AnyFn>(fn));
}

InstructionFolder find_instruction_folder(
    const char* first_op, const char* second_op) {
  return reinterpret_cast<InstructionFolder>(
      find(Kind::Folder, first_op, second_op));
}

Error register_run_fuser(const char* first_op, RunFuser fn) {
  return add(
      Kind::RunFuser,
      "register_run_fuser",
      first_op,
      nullptr,
      reinterpret_cast<AnyFn>(fn));
}

RunFuser find_run_fuser(const char* first_op) {
  return reinterpret_cast<RunFuser>(find(Kind::RunFuser, first_op, nullptr));
}

Error register_layout_rule(const char* op_name, LayoutRule fn) {
  return add(
      Kind::LayoutRule,
      "register_layout_rule",
      op_name,
      nullptr,
      reinterpret_cast<AnyFn>(fn));
}

LayoutRule find_layout_rule(const char* op_name) {
  return reinterpret_cast<LayoutRule>(find(Kind::LayoutRule, op_name, nullptr));
}

}  // namespace runtime
}  // namespace executorch
