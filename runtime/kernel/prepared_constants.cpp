/*
 * The process-wide table of constant preparers (prepared_constants.h).
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

constexpr size_t kMaxPreparers = 64;

struct Entry {
  const char* name;
  ConstantPreparer fn;
};

Entry g_preparers[kMaxPreparers];
size_t g_n_preparers = 0;
std::mutex g_preparers_mutex;

ConstantPreparer find_locked(const char* op_name) {
  for (size_t i = 0; i < g_n_preparers; ++i) {
    if (std::strcmp(g_preparers[i].name, op_name) == 0) {
      return g_preparers[i].fn;
    }
  }
  return nullptr;
}

}  // namespace

Error register_constant_preparer(const char* op_name, ConstantPreparer fn) {
  if (op_name == nullptr || fn == nullptr) {
    ET_LOG(Error, "register_constant_preparer: null name or function");
    return Error::InvalidArgument;
  }
  std::lock_guard<std::mutex> lock(g_preparers_mutex);
  if (find_locked(op_name) != nullptr) {
    ET_LOG(
        Error,
        "register_constant_preparer: '%s' already has a preparer",
        op_name);
    return Error::InvalidArgument;
  }
  if (g_n_preparers == kMaxPreparers) {
    ET_LOG(
        Error,
        "register_constant_preparer: table full (%zu) at '%s'",
        kMaxPreparers,
        op_name);
    return Error::RegistrationExceedingMaxKernels;
  }
  g_preparers[g_n_preparers++] = Entry{op_name, fn};
  return Error::Ok;
}

ConstantPreparer find_constant_preparer(const char* op_name) {
  if (op_name == nullptr) {
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(g_preparers_mutex);
  return find_locked(op_name);
}

}  // namespace runtime
}  // namespace executorch
