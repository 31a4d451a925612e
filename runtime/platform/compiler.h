/*
 * Compiler portability macros used throughout the runtime and by client code.
 *
 * Everything here is a macro so that it works in C and C++ translation units
 * alike (platform.h is meant to be includable from C).
 */
#pragma once

#include <stddef.h>

/*
 * Export control. The library is compiled with -fvisibility=hidden, so only
 * declarations carrying ET_API end up in the dynamic symbol table (and then
 * only if runtime.map lets them through). Clients see the same attribute,
 * which is harmless for them.
 */
#if defined(_WIN32)
#define ET_API
#else
#define ET_API __attribute__((visibility("default")))
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ET_INLINE __attribute__((always_inline)) inline
#define ET_NOINLINE __attribute__((noinline))
#define ET_NORETURN __attribute__((noreturn))
#define ET_WEAK __attribute__((weak))
#define ET_UNREACHABLE() __builtin_unreachable()
#define ET_PRINTFLIKE(_string_index, _va_index) \
  __attribute__((format(printf, _string_index, _va_index)))
#define ET_FUNCTION __FUNCTION__
#elif defined(_MSC_VER)
#define ET_INLINE __forceinline
#define ET_NOINLINE __declspec(noinline)
#define ET_NORETURN __declspec(noreturn)
#define ET_WEAK
#define ET_UNREACHABLE() __assume(0)
#define ET_PRINTFLIKE(_string_index, _va_index)
#define ET_FUNCTION __FUNCTION__
#else
#define ET_INLINE inline
#define ET_NOINLINE
#define ET_NORETURN
#define ET_WEAK
#define ET_UNREACHABLE() ((void)0)
#define ET_PRINTFLIKE(_string_index, _va_index)
#define ET_FUNCTION __func__
#endif

#if defined(__cplusplus)
#define ET_NODISCARD [[nodiscard]]
#define ET_UNUSED [[maybe_unused]]
#define ET_DEPRECATED [[deprecated]]
#define ET_EXPERIMENTAL \
  [[deprecated("This API is experimental and may change without notice.")]]
#define ET_FALLTHROUGH [[fallthrough]]
#else
#define ET_NODISCARD
#define ET_UNUSED __attribute__((unused))
#define ET_DEPRECATED
#define ET_EXPERIMENTAL
#define ET_FALLTHROUGH
#endif

/*
 * Branch hints, written to be used as `if ET_UNLIKELY(cond) { ... }`. C++20
 * has the standard attribute form; earlier dialects use the builtin.
 */
#if defined(__cplusplus) && __cplusplus >= 202002L
#define ET_LIKELY(expr) (expr) [[likely]]
#define ET_UNLIKELY(expr) (expr) [[unlikely]]
#elif defined(__GNUC__) || defined(__clang__)
#define ET_LIKELY(expr) (__builtin_expect(!!(expr), 1))
#define ET_UNLIKELY(expr) (__builtin_expect(!!(expr), 0))
#else
#define ET_LIKELY(expr) (expr)
#define ET_UNLIKELY(expr) (expr)
#endif

/* File name without its directories, for compact log lines. */
#if defined(__FILE_NAME__)
#define ET_SHORT_FILENAME __FILE_NAME__
#elif defined(__has_builtin)
#if __has_builtin(__builtin_strrchr)
#define ET_SHORT_FILENAME (__builtin_strrchr("/" __FILE__, '/') + 1)
#endif
#endif
#ifndef ET_SHORT_FILENAME
#define ET_SHORT_FILENAME __FILE__
#endif

#define ET_LINE __LINE__

/* printf conversions for size_t / ssize_t that also work on old toolchains. */
#define ET_PRIsize_t "zu"
#define ET_PRIssize_t "zd"

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define ET_HAS_EXCEPTIONS 1
#else
#define ET_HAS_EXCEPTIONS 0
#endif

/* ET_UNWRAP and friends rely on ({ ... }) blocks that produce a value. */
#if defined(__GNUC__) || defined(__clang__)
#define ET_HAVE_GNU_STATEMENT_EXPRESSIONS 1
#endif

#if defined(_MSC_VER)
#include <BaseTsd.h>
typedef SSIZE_T ssize_t;
#else
#include <sys/types.h>
#endif

/* Older spellings kept so that existing client code keeps compiling. */
#define __ET_UNUSED ET_UNUSED
#define __ET_NODISCARD ET_NODISCARD
#define __ET_DEPRECATED ET_DEPRECATED
#define __ET_INLINE ET_INLINE
#define __ET_NOINLINE ET_NOINLINE
#define __ET_NORETURN ET_NORETURN
#define __ET_WEAK ET_WEAK
#define __ET_FALLTHROUGH ET_FALLTHROUGH
#define __ET_LIKELY ET_LIKELY
#define __ET_UNLIKELY ET_UNLIKELY
#define __ET_PRINTFLIKE ET_PRINTFLIKE
#define __ET_FUNCTION ET_FUNCTION
#define __ET_SHORT_FILENAME ET_SHORT_FILENAME
#define __ET_LINE ET_LINE
