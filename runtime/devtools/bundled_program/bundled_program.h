/*
 * BundledProgram (.bpte) support with upstream ExecuTorch's names and
 * signatures: a .bpte holds one program plus, per method, test cases (inputs
 * and the outputs they must produce). Typical use, as in upstream's runners:
 *
 *   get_program_data(file, len, &pte, &pte_len);  // verifies the whole file
 *   Program::load(BufferDataLoader(pte, pte_len)), load_method(...)
 *   load_bundled_input(method, file, i); method.execute();
 *   verify_method_outputs(method, file, i, rtol, atol);
 *
 * A .bpte is untrusted input: every function verifies the file (flatbuffers
 * Verifier, then every index, size, dtype and shape) before using any of it,
 * and reports a problem as an Error with a log line naming it.
 *
 * The per-method functions receive the file without its length, as
 * upstream's do. The length is taken from the file itself: the end of the
 * furthest object its flatbuffer offsets and vector lengths reach. That whole
 * range is then verified on every call, so nothing is remembered between
 * calls and any buffer holding a complete bundle may be passed, whether or
 * not get_program_data() saw it. The buffer must hold the complete file and
 * stay alive while these functions use it: reading the structure to find its
 * end trusts that much of the pointer, as upstream trusts all of it. Code that
 * holds the length can use BundledProgramReader (bundled_program_reader.h),
 * which checks against that length instead.
 */
#pragma once

#include <cstddef>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/platform/compiler.h>

#define BUNDLED_PROGRAM_NAMESPACE bundled_program

namespace executorch {
namespace bundled_program {

/// An opaque pointer to the bytes of a .bpte file.
using SerializedBundledProgram = const void;
using ::executorch::runtime::Method;

/**
 * Sets every input of `method` from test case `testset_idx` of the method's
 * test suite (found by the method's name).
 *
 * @retval Error::InvalidArgument null buffer, no test suite for the
 *     method, testset_idx out of range, or an input count, kind, dtype or
 *     rank that does not fit the method.
 * @retval Error::NotSupported the buffer is not a bundled program.
 * @retval Error::InvalidProgram the file is malformed.
 * @returns Any error Method::set_input() reports for an input.
 */
ET_NODISCARD ET_API ::executorch::runtime::Error load_bundled_input(
    Method& method,
    SerializedBundledProgram* bundled_program_ptr,
    size_t testset_idx);

/// Errors between the method's outputs and the expected ones, over all
/// elements of all tensor outputs. relative error = |a - e| / max(|a|, |e|,
/// 1e-8).
struct ErrorStats {
  ::executorch::runtime::Error status;
  double mean_abs_error;
  double max_abs_error;
  double mean_relative_error;
  double max_relative_error;
};

/**
 * Computes ErrorStats for the method's current outputs against the expected
 * outputs of test case `testset_idx`. status is not Ok when the two cannot
 * be compared (errors as for verify_method_outputs(), never Error::NotFound).
 */
ET_NODISCARD ET_API ErrorStats compute_method_output_error_stats(
    Method& method,
    SerializedBundledProgram* bundled_program_ptr,
    size_t testset_idx);

/**
 * Compares the method's current outputs with the expected outputs of test
 * case `testset_idx`. Floating-point elements match when |actual - expected|
 * <= atol + rtol * |actual| (NaN matches NaN, infinities of the same sign
 * match); other dtypes must be bit-identical.
 *
 * @retval Error::Ok every output matches.
 * @retval Error::NotFound an output's values differ beyond the tolerance (as
 *     upstream); the log names the output and its max abs/rel error.
 * @retval Error::InvalidArgument the outputs cannot be compared: count,
 *     kind, dtype, shape or dim order differ, or the arguments are wrong.
 * @retval Error::NotSupported the test case has no expected outputs, or the
 *     buffer is not a bundled program.
 * @retval Error::InvalidProgram the file is malformed.
 */
ET_NODISCARD ET_API ::executorch::runtime::Error verify_method_outputs(
    Method& method,
    SerializedBundledProgram* bundled_program_ptr,
    size_t testset_idx,
    double rtol = 1e-5,
    double atol = 1e-8);

/**
 * Verifies the whole .bpte in `file_data` and points `out_program_data` at
 * the program inside it (suitable for BufferDataLoader and Program::load()).
 *
 * @retval Error::NotSupported the data is not a bundled program.
 * @retval Error::InvalidProgram the file is malformed.
 * @retval Error::InvalidArgument a null pointer.
 */
ET_NODISCARD ET_API ::executorch::runtime::Error get_program_data(
    void* file_data,
    size_t file_data_len,
    const void** out_program_data,
    size_t* out_program_data_len);

/**
 * True if the data carries the bundled program identifier ("BP08"). Only the
 * header is looked at, so nothing is verified.
 */
ET_API bool is_bundled_program(void* file_data, size_t file_data_len);

/// DEPRECATED: use the version with the file_data_len parameter.
ET_DEPRECATED inline bool is_bundled_program(void* file_data) {
  // 128 bytes hold the identifier, as upstream assumes.
  return is_bundled_program(file_data, 128);
}

}  // namespace bundled_program
}  // namespace executorch

namespace torch {
namespace executor {
namespace bundled_program {
// Deprecated aliases, kept because upstream still provides them.
using serialized_bundled_program =
    ::executorch::bundled_program::SerializedBundledProgram;

ET_NODISCARD inline ::executorch::runtime::Error LoadBundledInput(
    ::executorch::runtime::Method& method,
    serialized_bundled_program* bundled_program_ptr,
    size_t testset_idx) {
  return ::executorch::bundled_program::load_bundled_input(
      method, bundled_program_ptr, testset_idx);
}

ET_NODISCARD inline ::executorch::runtime::Error
VerifyResultWithBundledExpectedOutput(
    ::executorch::runtime::Method& method,
    serialized_bundled_program* bundled_program_ptr,
    size_t testset_idx,
    double rtol = 1e-5,
    double atol = 1e-8) {
  return ::executorch::bundled_program::verify_method_outputs(
      method, bundled_program_ptr, testset_idx, rtol, atol);
}

ET_NODISCARD inline ::executorch::runtime::Error GetProgramData(
    void* file_data,
    size_t file_data_len,
    const void** out_program_data,
    size_t* out_program_data_len) {
  return ::executorch::bundled_program::get_program_data(
      file_data, file_data_len, out_program_data, out_program_data_len);
}

inline bool IsBundledProgram(void* file_data) {
  return ::executorch::bundled_program::is_bundled_program(file_data, 128);
}
}  // namespace bundled_program
}  // namespace executor
}  // namespace torch
