/*
 * Error codes returned throughout the runtime, and macros that check a
 * condition, log, and return an error from the enclosing function.
 *
 * The numeric values are part of the ABI (and printed by tools), so they
 * must never change.
 */
#pragma once

#include <stdint.h>

#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {

typedef uint32_t error_code_t;

enum class Error : error_code_t {
  // Success.
  Ok = 0x00,

  // General status.
  Internal = 0x01,       // Inconsistent internal state.
  InvalidState = 0x02,   // Call not allowed in the current state.
  EndOfMethod = 0x03,    // Stepped past the last instruction.
  AlreadyLoaded = 0x04,  // The thing was already loaded.

  // Logical errors.
  NotSupported = 0x10,     // Operation is not supported here.
  NotImplemented = 0x11,   // Operation is not implemented yet.
  InvalidArgument = 0x12,  // A caller-provided argument is wrong.
  InvalidType = 0x13,      // A value had the wrong type.
  OperatorMissing = 0x14,  // A needed kernel is not registered.
  RegistrationExceedingMaxKernels = 0x15,  // Kernel registry is full.
  RegistrationAlreadyRegistered = 0x16,    // Name registered twice.

  // Resource errors.
  NotFound = 0x20,                // A requested resource does not exist.
  MemoryAllocationFailed = 0x21,  // An allocator ran out.
  AccessFailed = 0x22,            // File or memory access failed.
  InvalidProgram = 0x23,          // The program data is malformed.
  InvalidExternalData = 0x24,     // External (named) data is missing or wrong.
  OutOfResources = 0x25,          // Some other resource is exhausted.

  // Delegate (backend) errors.
  DelegateInvalidCompatibility = 0x30,    // Backend rejects the blob.
  DelegateMemoryAllocationFailed = 0x31,  // Backend ran out of memory.
  DelegateInvalidHandle = 0x32,  // Backend got a handle it did not make.
};

/* Human-readable name of an error, e.g. "Error::InvalidArgument". */
constexpr const char* to_string(const Error error) {
  switch (error) {
    case Error::Ok:
      return "Error::Ok";
    case Error::Internal:
      return "Error::Internal";
    case Error::InvalidState:
      return "Error::InvalidState";
    case Error::EndOfMethod:
      return "Error::EndOfMethod";
    case Error::AlreadyLoaded:
      return "Error::AlreadyLoaded";
    case Error::NotSupported:
      return "Error::NotSupported";
    case Error::NotImplemented:
      return "Error::NotImplemented";
    case Error::InvalidArgument:
      return "Error::InvalidArgument";
    case Error::InvalidType:
      return "Error::InvalidType";
    case Error::OperatorMissing:
      return "Error::OperatorMissing";
    case Error::RegistrationExceedingMaxKernels:
      return "Error::RegistrationExceedingMaxKernels";
    case Error::RegistrationAlreadyRegistered:
      return "Error::RegistrationAlreadyRegistered";
    case Error::NotFound:
      return "Error::NotFound";
    case Error::MemoryAllocationFailed:
      return "Error::MemoryAllocationFailed";
    case Error::AccessFailed:
      return "Error::AccessFailed";
    case Error::InvalidProgram:
      return "Error::InvalidProgram";
    case Error::InvalidExternalData:
      return "Error::InvalidExternalData";
    case Error::OutOfResources:
      return "Error::OutOfResources";
    case Error::DelegateInvalidCompatibility:
      return "Error::DelegateInvalidCompatibility";
    case Error::DelegateMemoryAllocationFailed:
      return "Error::DelegateMemoryAllocationFailed";
    case Error::DelegateInvalidHandle:
      return "Error::DelegateInvalidHandle";
  }
  return "Error::Unknown";
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Error;
using ::executorch::runtime::error_code_t;
}  // namespace executor
}  // namespace torch

/*
 * If `_cond` is false, log the formatted message and return
 * Error::_error from the current function.
 */
#define ET_CHECK_OR_RETURN_ERROR(_cond, _error, _format, ...) \
  do {                                                        \
    if ET_UNLIKELY (!(_cond)) {                               \
      ET_LOG(Error, _format, ##__VA_ARGS__);                  \
      return ::executorch::runtime::Error::_error;            \
    }                                                         \
  } while (0)

/*
 * If `_cond` is false, log the formatted message (prefixed with the failed
 * condition) and return false from the current function.
 */
#define ET_CHECK_OR_RETURN_FALSE(_cond, _format, ...)                      \
  do {                                                                     \
    if ET_UNLIKELY (!(_cond)) {                                            \
      ET_LOG(Error, "Check failed (%s): " _format, #_cond, ##__VA_ARGS__); \
      return false;                                                        \
    }                                                                      \
  } while (0)

/*
 * ET_CHECK_OK_OR_RETURN_ERROR(error) or
 * ET_CHECK_OK_OR_RETURN_ERROR(error, format, ...): if `error` is not
 * Error::Ok, optionally log and return it. The argument is evaluated once.
 * The dispatch below picks the plain or the logging form by argument count.
 */
#define ET_CHECK_OK_OR_RETURN_ERROR(...) \
  ET_INTERNAL_CHECK_OK_OR_RETURN_ERROR(__VA_ARGS__)

#define ET_INTERNAL_CHECK_OK_OR_RETURN_ERROR(...) \
  ET_INTERNAL_CHECK_OK_SELECT(                    \
      __VA_ARGS__,                                \
      ET_INTERNAL_CHECK_OK_MSG,                   \
      ET_INTERNAL_CHECK_OK_MSG,                   \
      ET_INTERNAL_CHECK_OK_MSG,                   \
      ET_INTERNAL_CHECK_OK_MSG,                   \
      ET_INTERNAL_CHECK_OK_MSG,                   \
      ET_INTERNAL_CHECK_OK_MSG,                   \
      ET_INTERNAL_CHECK_OK_MSG,                   \
      ET_INTERNAL_CHECK_OK_MSG,                   \
      ET_INTERNAL_CHECK_OK_MSG,                   \
      ET_INTERNAL_CHECK_OK_PLAIN,                 \
      unused)                                     \
  (__VA_ARGS__)

#define ET_INTERNAL_CHECK_OK_SELECT(                    \
    _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, NAME, ...) \
  NAME

#define ET_INTERNAL_CHECK_OK_PLAIN(_error)                         \
  do {                                                             \
    const ::executorch::runtime::Error _et_err = (_error);         \
    if ET_UNLIKELY (_et_err != ::executorch::runtime::Error::Ok) { \
      return _et_err;                                              \
    }                                                              \
  } while (0)

#define ET_INTERNAL_CHECK_OK_MSG(_error, _format, ...)             \
  do {                                                             \
    const ::executorch::runtime::Error _et_err = (_error);         \
    if ET_UNLIKELY (_et_err != ::executorch::runtime::Error::Ok) { \
      ET_LOG(                                                      \
          Error,                                                   \
          "%s: " _format,                                          \
          ::executorch::runtime::to_string(_et_err),               \
          ##__VA_ARGS__);                                          \
      return _et_err;                                              \
    }                                                              \
  } while (0)
