/*
 * The largest tensor rank the runtime accepts (.pte tensors above it are
 * rejected at load, and fixed-size per-dimension scratch arrays use it).
 */
#pragma once

#include <cstddef>

namespace executorch {
namespace runtime {

static constexpr size_t kTensorDimensionLimit = 16;

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::kTensorDimensionLimit;
}  // namespace executor
}  // namespace torch
