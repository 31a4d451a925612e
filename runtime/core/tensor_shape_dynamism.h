/*
 * How a tensor's shape may change after it is created.
 */
#pragma once

#include <cstdint>

namespace executorch {
namespace runtime {

enum class TensorShapeDynamism : uint8_t {
  STATIC = 0,  // Shape never changes; resizing to a different shape fails.
  DYNAMIC_BOUND = 1,    // Any shape whose element count fits the original.
  DYNAMIC_UNBOUND = 2,  // Any shape (treated like DYNAMIC_BOUND here).
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::TensorShapeDynamism;
}  // namespace executor
}  // namespace torch
