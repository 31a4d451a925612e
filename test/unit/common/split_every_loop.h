// For test binaries that check the thread splits of the CPU kernels on small tensors: sets the
// chunk minimum to one item (ET_KERNELS_MIN_PARALLEL_WORK, read once by the kernel library
// before its first split) before any test of the binary runs, so that at 2 or more threads
// every loop that can split does. Register it once per binary, at namespace scope:
//   ::testing::Environment* const kSplitEveryLoop = split_every_loop::install();
#pragma once

#include <cstdlib>

#include <gtest/gtest.h>

namespace split_every_loop {

class Environment : public ::testing::Environment {
 public:
  void SetUp() override {
    setenv("ET_KERNELS_MIN_PARALLEL_WORK", "1", /*overwrite=*/0);
  }
};

inline ::testing::Environment* install() {
  return ::testing::AddGlobalTestEnvironment(new Environment);
}

}  // namespace split_every_loop
