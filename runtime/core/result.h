/*
 * Result<T>: either a value of type T or a non-Ok Error. This is how the
 * runtime returns values from operations that can fail, without exceptions.
 */
#pragma once

#include <new>
#include <type_traits>
#include <utility>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/platform/assert.h>

namespace executorch {
namespace runtime {

template <typename T>
class Result final {
  // The stored type. A Result<const T> keeps a non-const T internally so the
  // move constructor can move (or placement-new) into it; the accessors
  // still hand out only `const T&`.
  using Stored = std::remove_const_t<T>;

 public:
  typedef T value_type;

  /*
   * Holds an error. Error::Ok carries no value, so constructing a Result from
   * it is a bug in the caller; it is recorded as Error::Internal so ok()
   * stays truthful.
   */
  /* implicit */ Result(Error error)
      : error_(error == Error::Ok ? Error::Internal : error),
        has_value_(false) {}

  /* implicit */ Result(const T& val) : value_(val), has_value_(true) {}

  /* implicit */ Result(Stored&& val)
      : value_(std::move(val)), has_value_(true) {}

  Result(Result&& rhs) noexcept : has_value_(rhs.has_value_) {
    if (has_value_) {
      new (&value_) Stored(std::move(rhs.value_));
    } else {
      new (&error_) Error(rhs.error_);
    }
  }

  ~Result() {
    if (has_value_) {
      value_.~Stored();
    }
  }

  Result() = delete;
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&&) = delete;

  /* True if a value is present. */
  ET_NODISCARD bool ok() const {
    return has_value_;
  }

  /* Error::Ok when a value is present, else the stored error. */
  ET_NODISCARD Error error() const {
    return has_value_ ? Error::Ok : error_;
  }

  /* The value. Calling these on an error Result is a programming error. */
  T& get() {
    CheckOk();
    return value_;
  }
  const T& get() const {
    CheckOk();
    return value_;
  }

  const T& operator*() const& {
    return get();
  }
  T& operator*() & {
    return get();
  }

  const T* operator->() const {
    return &get();
  }
  T* operator->() {
    return &get();
  }

 private:
  void CheckOk() const {
    ET_CHECK(has_value_);
  }

  union {
    Stored value_;
    Error error_;
  };
  bool has_value_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Result;
}  // namespace executor
}  // namespace torch

/*
 * ET_UNWRAP(result) or ET_UNWRAP(result, format, ...): evaluates to the
 * value held by `result` (moved out), or returns its error from the
 * enclosing function, optionally logging first. Needs GNU statement
 * expressions (see ET_HAVE_GNU_STATEMENT_EXPRESSIONS).
 */
#define ET_UNWRAP(...) ET_INTERNAL_UNWRAP(__VA_ARGS__)

#define ET_INTERNAL_UNWRAP(...) \
  ET_INTERNAL_CHECK_OK_SELECT(  \
      __VA_ARGS__,              \
      ET_INTERNAL_UNWRAP_MSG,   \
      ET_INTERNAL_UNWRAP_MSG,   \
      ET_INTERNAL_UNWRAP_MSG,   \
      ET_INTERNAL_UNWRAP_MSG,   \
      ET_INTERNAL_UNWRAP_MSG,   \
      ET_INTERNAL_UNWRAP_MSG,   \
      ET_INTERNAL_UNWRAP_MSG,   \
      ET_INTERNAL_UNWRAP_MSG,   \
      ET_INTERNAL_UNWRAP_MSG,   \
      ET_INTERNAL_UNWRAP_PLAIN, \
      unused)                   \
  (__VA_ARGS__)

#define ET_INTERNAL_UNWRAP_PLAIN(_result) \
  ({                                      \
    auto _et_result = (_result);          \
    if (!_et_result.ok()) {               \
      return _et_result.error();          \
    }                                     \
    std::move(*_et_result);               \
  })

#define ET_INTERNAL_UNWRAP_MSG(_result, _format, ...) \
  ({                                                  \
    auto _et_result = (_result);                      \
    if (!_et_result.ok()) {                           \
      ET_LOG(Error, _format, ##__VA_ARGS__);          \
      return _et_result.error();                      \
    }                                                 \
    std::move(*_et_result);                           \
  })

/*
 * ET_UNWRAP_UNIQUE(result): like ET_UNWRAP for a Result<T> whose value
 * should end up owned by a std::unique_ptr<T>.
 */
#define ET_UNWRAP_UNIQUE(_result)                                            \
  ({                                                                         \
    auto _et_unique_result = (_result);                                      \
    if (!_et_unique_result.ok()) {                                           \
      return _et_unique_result.error();                                      \
    }                                                                        \
    std::make_unique<std::remove_reference_t<decltype(*_et_unique_result)>>( \
        std::move(*_et_unique_result));                                      \
  })

/*
 * ET_ASSIGN_OR_RETURN(lhs, result) or ET_ASSIGN_OR_RETURN(lhs, result,
 * format, ...): assigns the value of `result` to `lhs` (which may be a
 * declaration such as `auto x`), or returns the error. Works without GNU
 * statement expressions.
 */
#define ET_ASSIGN_OR_RETURN(_lhs, ...)    \
  ET_INTERNAL_CHECK_OK_SELECT(            \
      __VA_ARGS__,                        \
      ET_INTERNAL_ASSIGN_OR_RETURN_MSG,   \
      ET_INTERNAL_ASSIGN_OR_RETURN_MSG,   \
      ET_INTERNAL_ASSIGN_OR_RETURN_MSG,   \
      ET_INTERNAL_ASSIGN_OR_RETURN_MSG,   \
      ET_INTERNAL_ASSIGN_OR_RETURN_MSG,   \
      ET_INTERNAL_ASSIGN_OR_RETURN_MSG,   \
      ET_INTERNAL_ASSIGN_OR_RETURN_MSG,   \
      ET_INTERNAL_ASSIGN_OR_RETURN_MSG,   \
      ET_INTERNAL_ASSIGN_OR_RETURN_MSG,   \
      ET_INTERNAL_ASSIGN_OR_RETURN_PLAIN, \
      unused)                             \
  (ET_INTERNAL_CONCAT(_et_assign_result_, __LINE__), _lhs, __VA_ARGS__)

#define ET_INTERNAL_CONCAT_IMPL(_a, _b) _a##_b
#define ET_INTERNAL_CONCAT(_a, _b) ET_INTERNAL_CONCAT_IMPL(_a, _b)

#define ET_INTERNAL_ASSIGN_OR_RETURN_PLAIN(_tmp, _lhs, _result) \
  auto _tmp = (_result);                                        \
  if (!_tmp.ok()) {                                             \
    return _tmp.error();                                        \
  }                                                             \
  _lhs = std::move(*_tmp)

#define ET_INTERNAL_ASSIGN_OR_RETURN_MSG(_tmp, _lhs, _result, _format, ...) \
  auto _tmp = (_result);                                                    \
  if (!_tmp.ok()) {                                                         \
    ET_LOG(Error, _format, ##__VA_ARGS__);                                  \
    return _tmp.error();                                                    \
  }                                                                         \
  _lhs = std::move(*_tmp)
