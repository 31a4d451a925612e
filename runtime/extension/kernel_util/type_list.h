/*
 * A compile-time list of types, used by the boxed-kernel wrapper to walk a
 * kernel's parameter list.
 */
#pragma once

#include <cstddef>

namespace executorch {
namespace extension {
namespace kernel_util_internal {

template <class... Ts>
struct typelist final {
  static constexpr size_t size = sizeof...(Ts);
};

/* The list without its first element. */
template <class L>
struct drop_first;
template <class First, class... Rest>
struct drop_first<typelist<First, Rest...>> {
  using type = typelist<Rest...>;
  using first = First;
};

/* The I-th element of a list. */
template <size_t I, class L>
struct element;
template <class First, class... Rest>
struct element<0, typelist<First, Rest...>> {
  using type = First;
};
template <size_t I, class First, class... Rest>
struct element<I, typelist<First, Rest...>> {
  using type = typename element<I - 1, typelist<Rest...>>::type;
};

}  // namespace kernel_util_internal
}  // namespace extension
}  // namespace executorch
