/*
 * Deprecated spelling of std::string_view kept for source compatibility.
 */
#pragma once

#include <string_view>

namespace executorch {
namespace runtime {
namespace etensor {

using std::string_view;

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::string_view;
}  // namespace executor
}  // namespace torch
