/*
 * Fatal assertions for programmer errors (broken invariants), never for
 * validating input: those go through ET_CHECK_OR_RETURN_ERROR in error.h.
 */
#pragma once

#include <executorch/runtime/platform/abort.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

/* Abort with a formatted message if `_cond` is false. */
#define ET_CHECK_MSG(_cond, _format, ...)                   \
  do {                                                      \
    if ET_UNLIKELY (!(_cond)) {                             \
      ET_LOG(                                               \
          Fatal,                                            \
          "In function %s(), assert failed (%s): " _format, \
          ET_FUNCTION,                                      \
          #_cond,                                           \
          ##__VA_ARGS__);                                   \
      ::executorch::runtime::runtime_abort();               \
    }                                                       \
  } while (0)

/* Abort if `_cond` is false. */
#define ET_CHECK(_cond)                                                       \
  do {                                                                        \
    if ET_UNLIKELY (!(_cond)) {                                               \
      ET_LOG(                                                                 \
          Fatal, "In function %s(), assert failed: %s", ET_FUNCTION, #_cond); \
      ::executorch::runtime::runtime_abort();                                 \
    }                                                                         \
  } while (0)

#ifdef NDEBUG

/*
 * Debug-only checks. In release builds the condition is not evaluated, but it
 * is still parsed so variables used only in checks do not trigger warnings.
 */
#define ET_DCHECK_MSG(_cond, _format, ...) \
  do {                                     \
    if (false) {                           \
      (void)(_cond);                       \
    }                                      \
  } while (0)

#define ET_DCHECK(_cond) \
  do {                   \
    if (false) {         \
      (void)(_cond);     \
    }                    \
  } while (0)

/* Marks variables that only debug checks read. */
#define ET_DEBUG_ONLY ET_UNUSED

#else  // NDEBUG

#define ET_DCHECK_MSG(_cond, _format, ...) \
  ET_CHECK_MSG(_cond, _format, ##__VA_ARGS__)

#define ET_DCHECK(_cond) ET_CHECK(_cond)

#define ET_DEBUG_ONLY

#endif  // NDEBUG

/* Always aborts; for code paths that must be impossible. */
#define ET_ASSERT_UNREACHABLE()                                   \
  do {                                                            \
    ET_CHECK_MSG(false, "Execution should not reach this point"); \
    ET_UNREACHABLE();                                             \
  } while (0)

#define ET_ASSERT_UNREACHABLE_MSG(_format, ...)            \
  do {                                                     \
    ET_CHECK_MSG(                                          \
        false,                                             \
        "Execution should not reach this point. " _format, \
        ##__VA_ARGS__);                                    \
    ET_UNREACHABLE();                                      \
  } while (0)
