#include <executorch/devtools/bundled_program/bundled_program.h>

#include <algorithm>

#include <executorch/devtools/bundled_program/bundled_program_reader.h>
#include <executorch/devtools/bundled_program/detail/bundle_validation.h>
#include <executorch/devtools/bundled_program/detail/bundle_extent.h>
#include <executorch/devtools/bundled_program/detail/output_compare.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_dimension_limit.h>
#include <executorch/runtime/core/portable_type/tensor.h>
#include <executorch/runtime/core/portable_type/tensor_impl.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace bundled_program {
namespace {

using ::executorch::aten::Tensor;
using ::executorch::aten::TensorImpl;
using ::executorch::runtime::Error;
using ::executorch::runtime::EValue;
using ::executorch::runtime::MethodMeta;
using ::executorch::runtime::Result;
using ::executorch::runtime::Tag;

// One test case of one method, in a file verified for this call.
struct CaseRef {
  BundledProgramReader reader;
  size_t suite;
  size_t test_case;
};

Result<CaseRef> find_test_case(
    Method& method,
    SerializedBundledProgram* bundled_program_ptr,
    size_t testset_idx) {
  // No length comes with the pointer: the bundle's own structure gives it,
  // and the whole of that range is verified again on every call (so a
  // buffer changed since it was last used is caught too).
  auto size = detail::bundle_extent(bundled_program_ptr);
  if (!size.ok()) {
    return size.error();
  }
  auto reader = BundledProgramReader::load(bundled_program_ptr, size.get());
  if (!reader.ok()) {
    return reader.error();
  }
  const char* name = method.method_meta().name();
  auto suite = reader->find_method_test_suite(name);
  if (!suite.ok()) {
    return Error::InvalidArgument;  // as upstream: the method is the argument
  }
  const size_t count = reader->num_test_cases(suite.get()).get();
  ET_CHECK_OR_RETURN_ERROR(
      testset_idx < count,
      InvalidArgument,
      "bundled program: test case %zu out of range, method '%s' has %zu",
      testset_idx,
      name,
      count);
  return CaseRef{reader.get(), suite.get(), testset_idx};
}

// The tensor input: dtype and rank must be the method's; set_input() checks
// the shape against the method's static shape or dynamic bound.
Error set_tensor_input(
    Method& method,
    const MethodMeta& meta,
    const BundledValue& value,
    size_t idx) {
  auto info = meta.input_tensor_meta(idx);
  if (!info.ok()) {
    return info.error();
  }
  ET_CHECK_OR_RETURN_ERROR(
      info->scalar_type() == value.scalar_type,
      InvalidArgument,
      "input %zu of method '%s' is %s, the test case gives %s",
      idx,
      meta.name(),
      ::executorch::runtime::toString(info->scalar_type()),
      ::executorch::runtime::toString(value.scalar_type));
  ET_CHECK_OR_RETURN_ERROR(
      info->sizes().size() == value.sizes.size(),
      InvalidArgument,
      "input %zu of method '%s' has rank %zu, the test case gives rank %zu",
      idx,
      meta.name(),
      info->sizes().size(),
      value.sizes.size());
  // TensorImpl wants writable shape arrays; the file stays read-only. The
  // rank is at most kTensorDimensionLimit (checked when the file was read).
  TensorImpl::SizesType sizes[::executorch::runtime::kTensorDimensionLimit];
  TensorImpl::DimOrderType
      dim_order[::executorch::runtime::kTensorDimensionLimit];
  for (size_t d = 0; d < value.sizes.size(); ++d) {
    sizes[d] = value.sizes[d];
    dim_order[d] = value.dim_order[d];
  }
  // set_input() copies into planned memory; an unplanned input keeps
  // pointing at the file's bytes (as upstream), so the file must stay alive
  // and writable while such a method runs.
  TensorImpl impl(
      value.scalar_type,
      static_cast<ssize_t>(value.sizes.size()),
      sizes,
      const_cast<void*>(value.data),
      dim_order);
  return method.set_input(EValue(Tensor(&impl)), idx);
}

Error set_one_input(Method& method, const BundledValue& value, size_t idx) {
  const MethodMeta meta = method.method_meta();
  auto tag = meta.input_tag(idx);
  if (!tag.ok()) {
    return tag.error();
  }
  if (tag.get() != detail::tag_of(value.kind)) {
    char want[::executorch::runtime::kTagNameBufferSize];
    char got[::executorch::runtime::kTagNameBufferSize];
    ::executorch::runtime::tag_to_string(tag.get(), want, sizeof(want));
    ::executorch::runtime::tag_to_string(
        detail::tag_of(value.kind), got, sizeof(got));
    ET_LOG(
        Error,
        "input %zu of method '%s' is %s, the test case gives %s",
        idx,
        meta.name(),
        want,
        got);
    return Error::InvalidArgument;
  }
  switch (value.kind) {
    case BundledValueKind::Tensor:
      return set_tensor_input(method, meta, value, idx);
    case BundledValueKind::Int:
      return method.set_input(EValue(value.int_value), idx);
    case BundledValueKind::Bool:
      return method.set_input(EValue(value.bool_value), idx);
    case BundledValueKind::Double:
      return method.set_input(EValue(value.double_value), idx);
  }
  return Error::Internal;
}

// Every output compared; the sums and maxima are over all of them.
struct Totals {
  detail::OutputComparison all;
};

Result<Totals> compare_outputs(
    Method& method,
    SerializedBundledProgram* bundled_program_ptr,
    size_t testset_idx,
    double rtol,
    double atol,
    bool report_mismatch) {
  auto found = find_test_case(method, bundled_program_ptr, testset_idx);
  if (!found.ok()) {
    return found.error();
  }
  const CaseRef& ref = found.get();
  const char* name = method.method_meta().name();
  const size_t expected_count =
      ref.reader.num_expected_outputs(ref.suite, ref.test_case).get();
  ET_CHECK_OR_RETURN_ERROR(
      expected_count > 0,
      NotSupported,
      "method '%s', test case %zu has no expected outputs to compare with",
      name,
      testset_idx);
  ET_CHECK_OR_RETURN_ERROR(
      expected_count == method.outputs_size(),
      InvalidArgument,
      "method '%s' has %zu outputs, test case %zu expects %zu",
      name,
      method.outputs_size(),
      testset_idx,
      expected_count);
  Totals totals;
  for (size_t i = 0; i < expected_count; ++i) {
    const BundledValue expected =
        ref.reader.expected_output(ref.suite, ref.test_case, i).get();
    const detail::OutputComparison c =
        detail::compare_output(method.get_output(i), expected, i, rtol, atol);
    if (c.status != Error::Ok) {
      ET_LOG(
          Error,
          "method '%s', test case %zu: output %zu cannot be compared",
          name,
          testset_idx,
          i);
      return c.status;
    }
    if (!c.matches && report_mismatch) {
      ET_LOG(
          Error,
          "method '%s', test case %zu: output %zu differs (max abs error %g, "
          "max rel error %g; rtol %g, atol %g)",
          name,
          testset_idx,
          i,
          c.max_abs_error,
          c.max_relative_error,
          rtol,
          atol);
    }
    detail::OutputComparison& all = totals.all;
    all.matches = all.matches && c.matches;
    all.numel += c.numel;
    all.sum_abs_error += c.sum_abs_error;
    all.sum_relative_error += c.sum_relative_error;
    all.max_abs_error = std::max(all.max_abs_error, c.max_abs_error);
    all.max_relative_error =
        std::max(all.max_relative_error, c.max_relative_error);
  }
  return totals;
}

}  // namespace

ET_NODISCARD Error load_bundled_input(
    Method& method,
    SerializedBundledProgram* bundled_program_ptr,
    size_t testset_idx) {
  auto found = find_test_case(method, bundled_program_ptr, testset_idx);
  if (!found.ok()) {
    return found.error();
  }
  const CaseRef& ref = found.get();
  const size_t count = ref.reader.num_inputs(ref.suite, ref.test_case).get();
  ET_CHECK_OR_RETURN_ERROR(
      count == method.inputs_size(),
      InvalidArgument,
      "method '%s' takes %zu inputs, test case %zu gives %zu",
      method.method_meta().name(),
      method.inputs_size(),
      testset_idx,
      count);
  for (size_t i = 0; i < count; ++i) {
    const BundledValue value =
        ref.reader.input(ref.suite, ref.test_case, i).get();
    const Error err = set_one_input(method, value, i);
    if (err != Error::Ok) {
      ET_LOG(
          Error,
          "method '%s', test case %zu: setting input %zu failed (0x%x)",
          method.method_meta().name(),
          testset_idx,
          i,
          static_cast<unsigned>(err));
      return err;
    }
  }
  if (auto* tracer = method.get_event_tracer()) {
    tracer->set_bundled_input_index(static_cast<int>(testset_idx));
  }
  return Error::Ok;
}

ET_NODISCARD ErrorStats compute_method_output_error_stats(
    Method& method,
    SerializedBundledProgram* bundled_program_ptr,
    size_t testset_idx) {
  // The tolerance only decides the verdict, which the statistics ignore.
  auto totals = compare_outputs(
      method, bundled_program_ptr, testset_idx, 0.0, 0.0, false);
  if (!totals.ok()) {
    return {totals.error(), 0, 0, 0, 0};
  }
  const detail::OutputComparison& all = totals->all;
  if (all.numel == 0) {
    return {Error::Ok, 0, 0, 0, 0};
  }
  const double n = static_cast<double>(all.numel);
  return {
      Error::Ok,
      all.sum_abs_error / n,
      all.max_abs_error,
      all.sum_relative_error / n,
      all.max_relative_error};
}

ET_NODISCARD Error verify_method_outputs(
    Method& method,
    SerializedBundledProgram* bundled_program_ptr,
    size_t testset_idx,
    double rtol,
    double atol) {
  auto totals = compare_outputs(
      method, bundled_program_ptr, testset_idx, rtol, atol, true);
  if (!totals.ok()) {
    return totals.error();
  }
  // NotFound for a value mismatch, as upstream returns.
  return totals->all.matches ? Error::Ok : Error::NotFound;
}

ET_NODISCARD Error get_program_data(
    void* file_data,
    size_t file_data_len,
    const void** out_program_data,
    size_t* out_program_data_len) {
  ET_CHECK_OR_RETURN_ERROR(
      out_program_data != nullptr && out_program_data_len != nullptr,
      InvalidArgument,
      "get_program_data: null output pointer");
  auto reader = BundledProgramReader::load(file_data, file_data_len);
  if (!reader.ok()) {
    return reader.error();
  }
  *out_program_data = reader->program_data();
  *out_program_data_len = reader->program_size();
  return Error::Ok;
}

bool is_bundled_program(void* file_data, size_t file_data_len) {
  return detail::has_bundle_identifier(file_data, file_data_len);
}

}  // namespace bundled_program
}  // namespace executorch
