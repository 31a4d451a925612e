#include <executorch/devtools/bundled_program/bundled_program_reader.h>

#include <cstring>

#include <executorch/devtools/bundled_program/detail/bundle_validation.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace bundled_program {
namespace {

namespace fb = ::bundled_program_flatbuffer;
using ::executorch::runtime::Error;
using ::executorch::runtime::Result;

const fb::BundledProgram* root_of(const void* root) {
  return static_cast<const fb::BundledProgram*>(root);
}

template <typename T>
size_t length_of(const flatbuffers::Vector<T>* v) {
  return v == nullptr ? 0 : v->size();
}

Result<const fb::BundledMethodTestSuite*> suite_at(
    const void* root, size_t suite_idx) {
  const auto* suites = root_of(root)->method_test_suites();
  ET_CHECK_OR_RETURN_ERROR(
      suite_idx < length_of(suites),
      InvalidArgument,
      "bundled program: suite index %zu out of range (%zu suites)",
      suite_idx,
      length_of(suites));
  return suites->Get(static_cast<flatbuffers::uoffset_t>(suite_idx));
}

Result<const fb::BundledMethodTestCase*> test_case_at(
    const void* root, size_t suite_idx, size_t case_idx) {
  auto suite = suite_at(root, suite_idx);
  if (!suite.ok()) {
    return suite.error();
  }
  const auto* cases = suite.get()->test_cases();
  ET_CHECK_OR_RETURN_ERROR(
      case_idx < length_of(cases),
      InvalidArgument,
      "bundled program: test case index %zu out of range (suite %zu has %zu)",
      case_idx,
      suite_idx,
      length_of(cases));
  return cases->Get(static_cast<flatbuffers::uoffset_t>(case_idx));
}

Result<BundledValue> value_at(
    const flatbuffers::Vector<flatbuffers::Offset<fb::Value>>* values,
    size_t idx,
    const char* what) {
  ET_CHECK_OR_RETURN_ERROR(
      idx < length_of(values),
      InvalidArgument,
      "bundled program: %s index %zu out of range (the test case has %zu)",
      what,
      idx,
      length_of(values));
  return detail::to_bundled_value(
      *values->Get(static_cast<flatbuffers::uoffset_t>(idx)));
}

}  // namespace

Result<BundledProgramReader> BundledProgramReader::load(
    const void* data, size_t size) {
  auto root = detail::verify_bundle(data, size);
  if (!root.ok()) {
    return root.error();
  }
  const auto* program = root.get()->program();
  return BundledProgramReader(root.get(), program->data(), program->size());
}

uint32_t BundledProgramReader::version() const {
  return root_of(root_)->version();
}

size_t BundledProgramReader::num_method_test_suites() const {
  return length_of(root_of(root_)->method_test_suites());
}

Result<const char*> BundledProgramReader::method_name(size_t suite_idx) const {
  auto suite = suite_at(root_, suite_idx);
  if (!suite.ok()) {
    return suite.error();
  }
  return suite.get()->method_name()->c_str();
}

Result<size_t> BundledProgramReader::find_method_test_suite(
    const char* method_name) const {
  ET_CHECK_OR_RETURN_ERROR(
      method_name != nullptr,
      InvalidArgument,
      "bundled program: null method name");
  for (size_t s = 0; s < num_method_test_suites(); ++s) {
    if (std::strcmp(this->method_name(s).get(), method_name) == 0) {
      return s;
    }
  }
  ET_LOG(
      Error,
      "bundled program: no test suite for method '%s' (%zu suites)",
      method_name,
      num_method_test_suites());
  return Error::NotFound;
}

Result<size_t> BundledProgramReader::num_test_cases(size_t suite_idx) const {
  auto suite = suite_at(root_, suite_idx);
  if (!suite.ok()) {
    return suite.error();
  }
  return length_of(suite.get()->test_cases());
}

Result<size_t> BundledProgramReader::num_inputs(
    size_t suite_idx, size_t case_idx) const {
  auto test_case = test_case_at(root_, suite_idx, case_idx);
  if (!test_case.ok()) {
    return test_case.error();
  }
  return length_of(test_case.get()->inputs());
}

Result<size_t> BundledProgramReader::num_expected_outputs(
    size_t suite_idx, size_t case_idx) const {
  auto test_case = test_case_at(root_, suite_idx, case_idx);
  if (!test_case.ok()) {
    return test_case.error();
  }
  return length_of(test_case.get()->expected_outputs());
}

Result<BundledValue> BundledProgramReader::input(
    size_t suite_idx, size_t case_idx, size_t input_idx) const {
  auto test_case = test_case_at(root_, suite_idx, case_idx);
  if (!test_case.ok()) {
    return test_case.error();
  }
  return value_at(test_case.get()->inputs(), input_idx, "input");
}

Result<BundledValue> BundledProgramReader::expected_output(
    size_t suite_idx, size_t case_idx, size_t output_idx) const {
  auto test_case = test_case_at(root_, suite_idx, case_idx);
  if (!test_case.ok()) {
    return test_case.error();
  }
  return value_at(
      test_case.get()->expected_outputs(), output_idx, "expected output");
}

}  // namespace bundled_program
}  // namespace executorch
