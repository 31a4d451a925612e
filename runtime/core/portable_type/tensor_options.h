/*
 * Tensor option enums that the portable runtime supports only trivially.
 */
#pragma once

#include <cstdint>

namespace executorch {
namespace runtime {
namespace etensor {

/* Memory layout request of an operator argument (e.g. clone's). */
enum class MemoryFormat : int8_t {
  Contiguous = 0,  // Dense, default dim order.
  Preserve = 1,    // Keep whatever the input has.
};

/* Storage layout; only dense strided tensors exist here. */
enum class Layout : int8_t {
  Strided = 0,
};

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::Layout;
using ::executorch::runtime::etensor::MemoryFormat;
}  // namespace executor
}  // namespace torch
