/*
 * Context passed to BackendInterface::set_option()/get_option(). It carries
 * nothing today; it exists so that runtime information can be added later
 * without changing the backend interface.
 */
#pragma once

namespace executorch {
namespace runtime {

class BackendOptionContext final {
 public:
  explicit BackendOptionContext() {}
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::BackendOptionContext;
}  // namespace executor
}  // namespace torch
