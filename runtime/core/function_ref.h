/*
 * FunctionRef<R(Args...)>: a non-owning reference to any callable, two words, no allocation.
 * It is what the thread pool and parallel_for take, so a lambda passes straight through
 * without std::function's heap copy. The callable must outlive the FunctionRef (in practice:
 * pass a lambda as an argument, never store the FunctionRef).
 */
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace executorch {
namespace runtime {

template <typename Signature>
class FunctionRef;

template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
 public:
  FunctionRef() = default;
  FunctionRef(std::nullptr_t) {}

  // Any callable whose result converts to R (or anything, when R is void); not a FunctionRef
  // itself, so copies stay copies.
  template <
      typename Callable,
      typename = std::enable_if_t<
          !std::is_same<
              std::remove_cv_t<std::remove_reference_t<Callable>>,
              FunctionRef>::value &&
          (std::is_void<R>::value ||
           std::is_convertible<std::invoke_result_t<Callable&, Args...>, R>::
               value)>>
  FunctionRef(Callable&& callable)
      : object_(const_cast<void*>(
            static_cast<const void*>(std::addressof(callable)))),
        trampoline_(&call<std::remove_reference_t<Callable>>) {}

  R operator()(Args... args) const {
    return trampoline_(object_, std::forward<Args>(args)...);
  }

  explicit operator bool() const {
    return trampoline_ != nullptr;
  }

 private:
  template <typename Callable>
  static R call(void* object, Args... args) {
    return (*static_cast<Callable*>(object))(std::forward<Args>(args)...);
  }

  void* object_ = nullptr;
  R (*trampoline_)(void*, Args...) = nullptr;
};

}  // namespace runtime
}  // namespace executorch
