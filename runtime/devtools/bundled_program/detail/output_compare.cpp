#include <executorch/devtools/bundled_program/detail/output_compare.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/portable_type/bfloat16.h>
#include <executorch/runtime/core/portable_type/half.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace bundled_program {
namespace detail {
namespace {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
using ::executorch::runtime::Error;
using ::executorch::runtime::EValue;

// Keeps the relative error finite next to zero (as upstream's stats do).
constexpr double kRelativeErrorFloor = 1e-8;

template <typename T>
double load(const void* data, size_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(data) + i * sizeof(T), sizeof(T));
  return static_cast<double>(v);
}

// Element i as a double, for the dtypes that have one; false otherwise.
bool element_as_double(ScalarType t, const void* data, size_t i, double* out) {
  switch (t) {
    case ScalarType::Float:
      *out = load<float>(data, i);
      return true;
    case ScalarType::Double:
      *out = load<double>(data, i);
      return true;
    case ScalarType::Half:
      *out = load<::executorch::aten::Half>(data, i);
      return true;
    case ScalarType::BFloat16:
      *out = load<::executorch::aten::BFloat16>(data, i);
      return true;
    case ScalarType::Byte:
      *out = load<uint8_t>(data, i);
      return true;
    case ScalarType::Char:
      *out = load<int8_t>(data, i);
      return true;
    case ScalarType::Short:
      *out = load<int16_t>(data, i);
      return true;
    case ScalarType::Int:
      *out = load<int32_t>(data, i);
      return true;
    case ScalarType::Long:
      *out = static_cast<double>(load<int64_t>(data, i));
      return true;
    case ScalarType::Bool:
      *out = load<uint8_t>(data, i) != 0 ? 1.0 : 0.0;
      return true;
    default:
      return false;
  }
}

bool is_tolerant(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double ||
         t == ScalarType::Half || t == ScalarType::BFloat16;
}

bool close_enough(double actual, double expected, double rtol, double atol) {
  if (std::isnan(actual) || std::isnan(expected)) {
    return std::isnan(actual) && std::isnan(expected);
  }
  if (std::isinf(actual) || std::isinf(expected)) {
    return actual == expected;
  }
  return std::fabs(actual - expected) <= atol + rtol * std::fabs(actual);
}

// Adds one element pair, whose verdict is `ok`, to the statistics.
void accumulate(OutputComparison& c, double actual, double expected, bool ok) {
  c.matches = c.matches && ok;
  double abs_err = std::fabs(actual - expected);
  if (std::isnan(actual) && std::isnan(expected)) {
    abs_err = 0.0;
  } else if (ok && std::isinf(actual)) {
    abs_err = 0.0;  // inf - inf is NaN, yet the two are equal
  } else if (!std::isfinite(abs_err)) {
    abs_err = std::numeric_limits<double>::infinity();
  }
  const double divider =
      std::max({std::fabs(actual), std::fabs(expected), kRelativeErrorFloor});
  const double rel_err =
      std::isfinite(divider)
          ? abs_err / divider
          : (abs_err == 0.0 ? 0.0 : std::numeric_limits<double>::infinity());
  c.numel += 1;
  c.sum_abs_error += abs_err;
  c.max_abs_error = std::max(c.max_abs_error, abs_err);
  c.sum_relative_error += rel_err;
  c.max_relative_error = std::max(c.max_relative_error, rel_err);
}

OutputComparison not_comparable() {
  OutputComparison c;
  c.status = Error::InvalidArgument;
  c.matches = false;
  return c;
}

OutputComparison compare_tensor(
    const Tensor& actual,
    const BundledValue& expected,
    size_t output_idx,
    double rtol,
    double atol) {
  if (actual.scalar_type() != expected.scalar_type) {
    ET_LOG(
        Error,
        "output %zu: dtype %s, expected %s",
        output_idx,
        ::executorch::runtime::toString(actual.scalar_type()),
        ::executorch::runtime::toString(expected.scalar_type));
    return not_comparable();
  }
  const auto sizes = actual.sizes();
  bool same_shape = sizes.size() == expected.sizes.size();
  for (size_t d = 0; same_shape && d < sizes.size(); ++d) {
    same_shape = sizes[d] == expected.sizes[d];
  }
  if (!same_shape) {
    ET_LOG(
        Error,
        "output %zu: shape of rank %zu differs from the expected rank %zu "
        "shape",
        output_idx,
        sizes.size(),
        expected.sizes.size());
    return not_comparable();
  }
  const auto dim_order = actual.dim_order();
  for (size_t d = 0; d < dim_order.size(); ++d) {
    if (dim_order[d] != expected.dim_order[d]) {
      ET_LOG(Error, "output %zu: dim order differs at dim %zu", output_idx, d);
      return not_comparable();
    }
  }
  OutputComparison c;
  const ScalarType type = expected.scalar_type;
  const size_t elem = ::executorch::runtime::elementSize(type);
  const size_t numel = elem == 0 ? 0 : expected.nbytes / elem;
  if (numel > 0 && actual.const_data_ptr() == nullptr) {
    ET_LOG(Error, "output %zu: the method's tensor has no data", output_idx);
    return not_comparable();
  }
  const auto* a_bytes = static_cast<const char*>(actual.const_data_ptr());
  const auto* e_bytes = static_cast<const char*>(expected.data);
  for (size_t i = 0; i < numel; ++i) {
    // Integers are compared as bytes: a double cannot hold every int64.
    const bool same_bytes =
        std::memcmp(a_bytes + i * elem, e_bytes + i * elem, elem) == 0;
    double a = 0.0;
    double e = 0.0;
    if (!element_as_double(type, a_bytes, i, &a) ||
        !element_as_double(type, e_bytes, i, &e)) {
      // No numeric view (quantized, complex, ...): equal bytes or not.
      accumulate(
          c,
          same_bytes ? 0.0 : std::numeric_limits<double>::infinity(),
          0.0,
          same_bytes);
    } else if (is_tolerant(type)) {
      accumulate(c, a, e, close_enough(a, e, rtol, atol));
    } else {
      accumulate(c, a, e, type == ScalarType::Bool ? a == e : same_bytes);
    }
  }
  return c;
}

}  // namespace

::executorch::runtime::Tag tag_of(BundledValueKind kind) {
  switch (kind) {
    case BundledValueKind::Tensor:
      return ::executorch::runtime::Tag::Tensor;
    case BundledValueKind::Int:
      return ::executorch::runtime::Tag::Int;
    case BundledValueKind::Bool:
      return ::executorch::runtime::Tag::Bool;
    case BundledValueKind::Double:
      return ::executorch::runtime::Tag::Double;
  }
  return ::executorch::runtime::Tag::None;
}

OutputComparison compare_output(
    const EValue& actual,
    const BundledValue& expected,
    size_t output_idx,
    double rtol,
    double atol) {
  const ::executorch::runtime::Tag want = tag_of(expected.kind);
  if (actual.tag != want) {
    char got_name[::executorch::runtime::kTagNameBufferSize];
    char want_name[::executorch::runtime::kTagNameBufferSize];
    ::executorch::runtime::tag_to_string(
        actual.tag, got_name, sizeof(got_name));
    ::executorch::runtime::tag_to_string(want, want_name, sizeof(want_name));
    ET_LOG(
        Error,
        "output %zu: the method returned %s, the test case expects %s",
        output_idx,
        got_name,
        want_name);
    return not_comparable();
  }
  OutputComparison c;
  switch (expected.kind) {
    case BundledValueKind::Tensor:
      return compare_tensor(
          actual.toTensor(), expected, output_idx, rtol, atol);
    case BundledValueKind::Int:
      accumulate(
          c,
          static_cast<double>(actual.toInt()),
          static_cast<double>(expected.int_value),
          actual.toInt() == expected.int_value);
      break;
    case BundledValueKind::Bool:
      accumulate(
          c,
          actual.toBool() ? 1.0 : 0.0,
          expected.bool_value ? 1.0 : 0.0,
          actual.toBool() == expected.bool_value);
      break;
    case BundledValueKind::Double:
      accumulate(
          c,
          actual.toDouble(),
          expected.double_value,
          close_enough(actual.toDouble(), expected.double_value, rtol, atol));
      break;
  }
  return c;
}

}  // namespace detail
}  // namespace bundled_program
}  // namespace executorch
