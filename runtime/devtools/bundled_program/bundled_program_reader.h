/*
 * BundledProgramReader: a checked view of a .bpte held in caller memory, for
 * code that knows the file's length and wants to list the test cases and read
 * their values (this project's et_run and Python bindings use it). Not part
 * of upstream ExecuTorch's API.
 *
 * load() verifies the whole file once (flatbuffers Verifier, then every
 * suite, case and value: kinds, dtypes, ranks, sizes, dim orders and data
 * lengths); the accessors then only check their indices. Values point into
 * the caller's buffer, which must outlive the reader.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace bundled_program {

enum class BundledValueKind : uint8_t { Tensor, Int, Bool, Double };

/// One input or expected output of a test case.
struct BundledValue {
  BundledValueKind kind = BundledValueKind::Int;
  // Tensor: dtype, shape and dim order as written, and the first nbytes of
  // the element data (contiguous in dim order). Checked by load().
  ::executorch::aten::ScalarType scalar_type =
      ::executorch::aten::ScalarType::Undefined;
  ::executorch::runtime::Span<const int32_t> sizes;
  ::executorch::runtime::Span<const uint8_t> dim_order;
  const void* data = nullptr;
  size_t nbytes = 0;
  // Int, Bool, Double.
  int64_t int_value = 0;
  bool bool_value = false;
  double double_value = 0.0;
};

class ET_API BundledProgramReader final {
 public:
  /**
   * Checks the .bpte in [data, data + size).
   *
   * @retval Error::NotSupported not a bundled program (identifier).
   * @retval Error::InvalidProgram malformed; the log names the field.
   * @retval Error::InvalidArgument data is null.
   */
  static ::executorch::runtime::Result<BundledProgramReader> load(
      const void* data, size_t size);

  /// The embedded program (.pte bytes).
  const void* program_data() const {
    return program_data_;
  }
  size_t program_size() const {
    return program_size_;
  }
  /// The schema version field the writer stored.
  uint32_t version() const;

  size_t num_method_test_suites() const;
  /// The method a suite tests. Error::InvalidArgument: index out of range.
  ::executorch::runtime::Result<const char*> method_name(
      size_t suite_idx) const;
  /// The suite testing `method_name`. Error::NotFound: none does.
  ::executorch::runtime::Result<size_t> find_method_test_suite(
      const char* method_name) const;
  ::executorch::runtime::Result<size_t> num_test_cases(size_t suite_idx) const;
  ::executorch::runtime::Result<size_t> num_inputs(
      size_t suite_idx, size_t case_idx) const;
  ::executorch::runtime::Result<size_t> num_expected_outputs(
      size_t suite_idx, size_t case_idx) const;
  ::executorch::runtime::Result<BundledValue> input(
      size_t suite_idx, size_t case_idx, size_t input_idx) const;
  ::executorch::runtime::Result<BundledValue> expected_output(
      size_t suite_idx, size_t case_idx, size_t output_idx) const;

 private:
  BundledProgramReader(
      const void* root, const void* program_data, size_t program_size)
      : root_(root), program_data_(program_data), program_size_(program_size) {}

  const void* root_;  // the verified bundled_program_flatbuffer::BundledProgram
  const void* program_data_;
  size_t program_size_;
};

}  // namespace bundled_program
}  // namespace executorch
