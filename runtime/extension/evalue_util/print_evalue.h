/*
 * Human-readable printing of EValues:
 *
 *   std::cout << evalue;                          // e.g. tensor(sizes=[2], [1., 2.])
 *   std::cout << evalue_edge_items(100) << ev;    // print up to 100 items at each end
 *
 * Long lists and tensor data are elided in the middle, keeping the first and
 * last "edge items" (3 unless changed on the stream).
 */
#pragma once

#include <ostream>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace runtime {

/// Prints `value`. Declared in EValue's namespace so lookup finds it.
ET_API std::ostream& operator<<(std::ostream& os, const EValue& value);

}  // namespace runtime
}  // namespace executorch

namespace executorch {
namespace extension {

/**
 * Stream manipulator setting how many leading and trailing items of a list
 * are printed before the middle is elided. It sticks to the stream until
 * changed; zero or a negative count restores the default (3).
 */
class evalue_edge_items final {
 public:
  explicit evalue_edge_items(long edge_items)
      : edge_items_(edge_items < 0 ? 0 : edge_items) {}

  friend std::ostream& operator<<(
      std::ostream& os, const evalue_edge_items& e) {
    set_edge_items(os, e.edge_items_);
    return os;
  }

 private:
  ET_API static void set_edge_items(std::ostream& os, long edge_items);

  const long edge_items_;
};

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::evalue_edge_items;
}  // namespace util
}  // namespace executor
}  // namespace torch
