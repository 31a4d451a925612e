// Test kernels (aten::add.out, aten::mul.out, aten::copy_,
// dim_order_ops::_to_dim_order_copy.out) and a log capture for the
// method tests.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/kernel/operator_registry.h>

namespace test {

/// Registers the test kernels once (global registry).
bool is_test_kernel(const std::string& op);
void register_test_kernels();

/// Everything logged since the last clear (the sink also prints to stderr).
std::string logs();
void clear_logs();

/// Element i of a tensor of any real/bool dtype, as double.
double element(const executorch::aten::Tensor& t, size_t i);

}  // namespace test
