#include <executorch/devtools/bundled_program/detail/bundle_validation.h>

#include <cinttypes>
#include <cstring>

#include <executorch/runtime/core/exec_aten/util/dim_order_util.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_dimension_limit.h>
#include <executorch/runtime/executor/detail/checked.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace bundled_program {
namespace detail {
namespace {

namespace fb = ::bundled_program_flatbuffer;
using ::executorch::aten::ScalarType;
using ::executorch::runtime::Error;
using ::executorch::runtime::Result;
using ::executorch::runtime::detail::checked_mul;

// Where a value sits in the file, for the log line that names a bad one.
struct ValueSite {
  size_t suite;
  size_t test_case;
  const char* list;  // "input" or "expected output"
  size_t index;
};

#define BP_REJECT_VALUE(_site, _format, ...)                           \
  do {                                                                 \
    ET_LOG(                                                            \
        Error,                                                         \
        "bundled program: suite %zu, test case %zu, %s %zu: " _format, \
        (_site).suite,                                                 \
        (_site).test_case,                                             \
        (_site).list,                                                  \
        (_site).index,                                                 \
        ##__VA_ARGS__);                                                \
    return Error::InvalidProgram;                                      \
  } while (0)

template <typename T>
size_t length_of(const flatbuffers::Vector<T>* v) {
  return v == nullptr ? 0 : v->size();
}

Error check_tensor(const fb::Tensor& t, const ValueSite& site) {
  const auto type = static_cast<ScalarType>(t.scalar_type());
  if (!::executorch::runtime::isValid(type) ||
      ::executorch::runtime::elementSize(type) == 0) {
    BP_REJECT_VALUE(site, "invalid scalar type %d", static_cast<int>(type));
  }
  const size_t rank = length_of(t.sizes());
  if (rank > ::executorch::runtime::kTensorDimensionLimit) {
    BP_REJECT_VALUE(
        site,
        "rank %zu exceeds the limit of %zu",
        rank,
        ::executorch::runtime::kTensorDimensionLimit);
  }
  size_t numel = 1;
  for (size_t d = 0; d < rank; ++d) {
    const int32_t size = t.sizes()->Get(static_cast<flatbuffers::uoffset_t>(d));
    if (size < 0) {
      BP_REJECT_VALUE(site, "size %" PRId32 " of dim %zu is negative", size, d);
    }
    if (!checked_mul(numel, static_cast<size_t>(size), &numel)) {
      BP_REJECT_VALUE(site, "element count overflows");
    }
  }
  size_t nbytes = 0;
  if (!checked_mul(numel, ::executorch::runtime::elementSize(type), &nbytes)) {
    BP_REJECT_VALUE(site, "byte size overflows");
  }
  const size_t dim_order_len = length_of(t.dim_order());
  if (dim_order_len != rank) {
    BP_REJECT_VALUE(
        site, "dim_order has %zu entries for rank %zu", dim_order_len, rank);
  }
  if (rank > 0 &&
      !::executorch::runtime::validate_dim_order(t.dim_order()->data(), rank)) {
    BP_REJECT_VALUE(site, "dim_order is not a permutation of 0..%zu", rank - 1);
  }
  // A tensor made from this value has int32 strides: each the product of the
  // sizes of the dims inside it in the dim order (a 0-sized dim counts as 1,
  // so a tensor of no elements can still have huge strides).
  int64_t stride = 1;
  for (size_t i = rank; i-- > 1;) {
    const int32_t size = t.sizes()->Get(
        t.dim_order()->Get(static_cast<flatbuffers::uoffset_t>(i)));
    stride *= size == 0 ? 1 : size;  // both below 2^31: no int64 overflow
    if (stride > INT32_MAX) {
      BP_REJECT_VALUE(site, "strides overflow int32 (sizes)");
    }
  }
  // Upstream's writer stores the tensor's whole storage, which may be longer.
  const size_t data_len = length_of(t.data());
  if (data_len < nbytes) {
    BP_REJECT_VALUE(
        site,
        "data holds %zu bytes, the %s tensor needs %zu",
        data_len,
        ::executorch::runtime::toString(type),
        nbytes);
  }
  // Kernels read Bool elements as C++ bool, for which only 0 and 1 are values.
  if (type == ScalarType::Bool &&
      nbytes > 0) {  // then data_len > 0: data is set
    const uint8_t* bytes = t.data()->data();
    for (size_t i = 0; i < nbytes; ++i) {
      if (bytes[i] > 1) {
        BP_REJECT_VALUE(
            site, "Bool element %zu is %u, not 0 or 1", i, unsigned{bytes[i]});
      }
    }
  }
  return Error::Ok;
}

Error check_value(const fb::Value* value, const ValueSite& site) {
  if (value == nullptr) {
    BP_REJECT_VALUE(site, "missing value table");
  }
  const bool present = value->val() != nullptr;
  switch (value->val_type()) {
    case fb::ValueUnion::Tensor:
      if (!present) {
        BP_REJECT_VALUE(site, "tensor value has no table");
      }
      return check_tensor(*value->val_as_Tensor(), site);
    case fb::ValueUnion::Int:
    case fb::ValueUnion::Bool:
    case fb::ValueUnion::Double:
      if (!present) {
        BP_REJECT_VALUE(site, "scalar value has no table");
      }
      return Error::Ok;
    default:
      // The Verifier lets unknown union tags through.
      BP_REJECT_VALUE(
          site, "unknown value type %d", static_cast<int>(value->val_type()));
  }
}

Error check_values(
    const flatbuffers::Vector<flatbuffers::Offset<fb::Value>>* values,
    ValueSite site) {
  for (site.index = 0; site.index < length_of(values); ++site.index) {
    const Error err = check_value(
        values->Get(static_cast<flatbuffers::uoffset_t>(site.index)), site);
    if (err != Error::Ok) {
      return err;
    }
  }
  return Error::Ok;
}

Error check_suite(const fb::BundledMethodTestSuite* suite, size_t suite_idx) {
  ET_CHECK_OR_RETURN_ERROR(
      suite != nullptr,
      InvalidProgram,
      "bundled program: method test suite %zu is missing",
      suite_idx);
  ET_CHECK_OR_RETURN_ERROR(
      suite->method_name() != nullptr,
      InvalidProgram,
      "bundled program: method test suite %zu has no method_name",
      suite_idx);
  const auto* cases = suite->test_cases();
  for (size_t c = 0; c < length_of(cases); ++c) {
    const fb::BundledMethodTestCase* test_case =
        cases->Get(static_cast<flatbuffers::uoffset_t>(c));
    ET_CHECK_OR_RETURN_ERROR(
        test_case != nullptr,
        InvalidProgram,
        "bundled program: suite %zu, test case %zu is missing",
        suite_idx,
        c);
    Error err = check_values(test_case->inputs(), {suite_idx, c, "input", 0});
    if (err == Error::Ok) {
      err = check_values(
          test_case->expected_outputs(), {suite_idx, c, "expected output", 0});
    }
    if (err != Error::Ok) {
      return err;
    }
  }
  return Error::Ok;
}

}  // namespace

bool has_bundle_identifier(const void* data, size_t size) {
  return data != nullptr && size >= kBundleHeaderSize &&
         fb::BundledProgramBufferHasIdentifier(data);
}

Result<const fb::BundledProgram*> verify_bundle(const void* data, size_t size) {
  ET_CHECK_OR_RETURN_ERROR(
      data != nullptr, InvalidArgument, "bundled program: null data");
  ET_CHECK_OR_RETURN_ERROR(
      size >= kBundleHeaderSize,
      InvalidProgram,
      "bundled program: %zu bytes cannot hold a header (%zu)",
      size,
      kBundleHeaderSize);
  if (!has_bundle_identifier(data, size)) {
    char id[5] = {};
    std::memcpy(id, static_cast<const char*>(data) + 4, 4);
    for (size_t i = 0; i < 4; ++i) {
      id[i] = (id[i] >= 0x20 && id[i] < 0x7f) ? id[i] : '?';
    }
    ET_LOG(
        Error,
        "bundled program: identifier '%s' is not '%s'",
        id,
        fb::BundledProgramIdentifier());
    return Error::NotSupported;
  }
  // The Verifier asserts on a size it cannot represent (an abort, not an
  // error): such a length is refused before it gets there.
  ET_CHECK_OR_RETURN_ERROR(
      size < FLATBUFFERS_MAX_BUFFER_SIZE,
      InvalidProgram,
      "bundled program: %zu bytes exceed the flatbuffer limit of %zu",
      size,
      static_cast<size_t>(FLATBUFFERS_MAX_BUFFER_SIZE) - 1);
  flatbuffers::Verifier verifier(static_cast<const uint8_t*>(data), size);
  ET_CHECK_OR_RETURN_ERROR(
      fb::VerifyBundledProgramBuffer(verifier),
      InvalidProgram,
      "bundled program: flatbuffer structure is invalid (%zu bytes)",
      size);
  const fb::BundledProgram* root = fb::GetBundledProgram(data);
  ET_CHECK_OR_RETURN_ERROR(
      length_of(root->program()) > 0,
      InvalidProgram,
      "bundled program: no embedded program");
  const auto* suites = root->method_test_suites();
  for (size_t s = 0; s < length_of(suites); ++s) {
    const Error err =
        check_suite(suites->Get(static_cast<flatbuffers::uoffset_t>(s)), s);
    if (err != Error::Ok) {
      return err;
    }
  }
  return root;
}

BundledValue to_bundled_value(const fb::Value& value) {
  BundledValue out;
  switch (value.val_type()) {
    case fb::ValueUnion::Tensor: {
      const fb::Tensor& t = *value.val_as_Tensor();
      out.kind = BundledValueKind::Tensor;
      out.scalar_type = static_cast<ScalarType>(t.scalar_type());
      const size_t rank = length_of(t.sizes());
      if (rank > 0) {
        out.sizes = {t.sizes()->data(), rank};
        out.dim_order = {t.dim_order()->data(), rank};
      }
      size_t numel = 1;
      for (size_t d = 0; d < rank; ++d) {
        numel *= static_cast<size_t>(out.sizes[d]);  // proven not to overflow
      }
      out.nbytes = numel * ::executorch::runtime::elementSize(out.scalar_type);
      out.data = t.data() != nullptr ? t.data()->data() : nullptr;
      break;
    }
    case fb::ValueUnion::Int:
      out.kind = BundledValueKind::Int;
      out.int_value = value.val_as_Int()->int_val();
      break;
    case fb::ValueUnion::Bool:
      out.kind = BundledValueKind::Bool;
      out.bool_value = value.val_as_Bool()->bool_val();
      break;
    default:
      out.kind = BundledValueKind::Double;
      out.double_value = value.val_as_Double()->double_val();
      break;
  }
  return out;
}

}  // namespace detail
}  // namespace bundled_program
}  // namespace executorch
