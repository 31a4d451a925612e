/*
 * Deprecated spellings of std::optional kept for source compatibility.
 */
#pragma once

#include <optional>

namespace executorch {
namespace runtime {
namespace etensor {

using std::nullopt;
using std::nullopt_t;
using std::optional;

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::nullopt;
using ::executorch::runtime::etensor::nullopt_t;
using ::executorch::runtime::etensor::optional;
}  // namespace executor
}  // namespace torch
