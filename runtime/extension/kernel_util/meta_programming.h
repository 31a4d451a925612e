/*
 * Compile-time helpers for the boxed-kernel wrapper: a function pointer
 * carried in a type (so the wrapper's call() can be a plain function
 * pointer), and the parameter and return types of a function type.
 */
#pragma once

#include <type_traits>

#include <executorch/extension/kernel_util/type_list.h>

namespace executorch {
namespace extension {
namespace kernel_util_internal {

/*
 * Carries `func_ptr` (and optionally the operator's name, for error logs) as
 * template arguments. Build one with EXECUTORCH_FN(func) or
 * EXECUTORCH_FN(func, name).
 */
template <class FuncType_, FuncType_* func_ptr_, const char* name_ = nullptr>
struct CompileTimeFunctionPointer final {
  static_assert(
      std::is_function<FuncType_>::value, "EXECUTORCH_FN expects a function");
  using FuncType = FuncType_;
  static constexpr FuncType* func_ptr() {
    return func_ptr_;
  }
  static constexpr const char* name() {
    return name_;
  }
};

template <class T>
struct is_compile_time_function_pointer : std::false_type {};
template <class F, F* fp, const char* n>
struct is_compile_time_function_pointer<CompileTimeFunctionPointer<F, fp, n>>
    : std::true_type {};

/* Return and parameter types of a plain function type. */
template <class F>
struct infer_function_traits;
template <class R, class... Args>
struct infer_function_traits<R(Args...)> {
  using return_type = R;
  using parameter_types = typelist<Args...>;
};

template <class T>
using remove_cvref_t = std::remove_cv_t<std::remove_reference_t<T>>;

}  // namespace kernel_util_internal
}  // namespace extension
}  // namespace executorch

#define EXECUTORCH_FN_TYPE(func, ...)                                        \
  ::executorch::extension::kernel_util_internal::CompileTimeFunctionPointer< \
      std::remove_pointer_t<std::remove_reference_t<decltype(func)>>,        \
      func,                                                                  \
      ##__VA_ARGS__>
#define EXECUTORCH_FN(func, ...) EXECUTORCH_FN_TYPE(func, ##__VA_ARGS__)()
