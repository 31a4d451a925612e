// Output formatting for et_run: shapes, dtypes, values, error lines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/executor/method_meta.h>

namespace et_run {

std::string dtype_name(executorch::aten::ScalarType t);
std::string shape_str(executorch::runtime::Span<const int32_t> sizes);
std::string shape_str(const std::vector<int64_t>& sizes);

/// "Tensor Float [1, 3, 224, 224]" / "Int" / ... for input or output `i` of `meta`.
std::string io_description(
    const executorch::runtime::MethodMeta& meta, size_t i, bool input);

/// Prints every method of the program and its inputs and outputs.
void print_value(const executorch::runtime::EValue& v, int leading, int top);

/// One-line meaning of an error code.
const char* error_meaning(executorch::runtime::Error e);

/// "et_run: <what>: Error::X (0xNN): meaning" on stderr.
void print_error(const std::string& what, executorch::runtime::Error e);

std::string format_ms(double ns);

}  // namespace et_run
