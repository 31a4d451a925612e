/*
 * Comparing a method output with an expected value from a .bpte (private
 * header): one pass computes both the pass/fail verdict and the error
 * statistics, so verify_method_outputs() and compute_method_output_error_stats()
 * can never disagree about the same data.
 */
#pragma once

#include <cstddef>

#include <executorch/devtools/bundled_program/bundled_program_reader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/tag.h>

namespace executorch {
namespace bundled_program {
namespace detail {

struct OutputComparison {
  // Ok when the two could be compared; otherwise InvalidArgument (kind,
  // dtype, shape or dim order differ), already logged.
  ::executorch::runtime::Error status = ::executorch::runtime::Error::Ok;
  bool matches = true;  // every element within tolerance
  size_t numel = 0;     // elements compared (tensors; scalars count as 1)
  double sum_abs_error = 0.0;
  double max_abs_error = 0.0;
  double sum_relative_error = 0.0;
  double max_relative_error = 0.0;
};

/// The EValue tag a method slot must have to hold a value of `kind`.
::executorch::runtime::Tag tag_of(BundledValueKind kind);

/**
 * Compares output `output_idx` of a method with its expected value.
 * Floating-point elements (Float, Double, Half, BFloat16; Double scalars)
 * match when |actual - expected| <= atol + rtol * |actual|, NaN matches NaN
 * and infinities of one sign match; everything else must be identical.
 * relative error = |actual - expected| / max(|actual|, |expected|, 1e-8).
 */
OutputComparison compare_output(
    const ::executorch::runtime::EValue& actual,
    const BundledValue& expected,
    size_t output_idx,
    double rtol,
    double atol);

}  // namespace detail
}  // namespace bundled_program
}  // namespace executorch
