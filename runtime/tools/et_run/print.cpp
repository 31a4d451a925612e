#include "print.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <numeric>

#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>

namespace et_run {

using executorch::aten::ScalarType;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Tag;

std::string dtype_name(ScalarType t) {
  return executorch::runtime::toString(t);
}

std::string shape_str(executorch::runtime::Span<const int32_t> sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(sizes[i]);
  }
  return s + "]";
}

std::string shape_str(const std::vector<int64_t>& sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(sizes[i]);
  }
  return s + "]";
}

std::string io_description(
    const executorch::runtime::MethodMeta& meta, size_t i, bool input) {
  auto tag = input ? meta.input_tag(i) : meta.output_tag(i);
  if (!tag.ok()) {
    return std::string("? (") + executorch::runtime::to_string(tag.error()) +
           ")";
  }
  if (tag.get() != Tag::Tensor) {
    return executorch::runtime::tag_to_string(tag.get());
  }
  auto info = input ? meta.input_tensor_meta(i) : meta.output_tensor_meta(i);
  if (!info.ok()) {
    return std::string("Tensor ? (") +
           executorch::runtime::to_string(info.error()) + ")";
  }
  std::string s = "Tensor " + dtype_name(info->scalar_type()) + " " +
                  shape_str(info->sizes());
  // Show a non-contiguous dim order (e.g. channels-last).
  auto order = info->dim_order();
  bool contiguous = true;
  for (size_t d = 0; d < order.size(); ++d) {
    contiguous = contiguous && order[d] == d;
  }
  if (!contiguous) {
    s += " dim_order [";
    for (size_t d = 0; d < order.size(); ++d) {
      s += (d ? ", " : "") + std::to_string(order[d]);
    }
    s += "]";
  }
  return s;
}

namespace {

// Element i of a tensor as a double (for printing and ranking).
double element(const void* data, ScalarType t, size_t i) {
  switch (t) {
#define ET_RUN_CASE(ctype, name) \
  case ScalarType::name:         \
    return static_cast<double>(static_cast<const ctype*>(data)[i]);
    ET_FORALL_REAL_TYPES(ET_RUN_CASE)
#undef ET_RUN_CASE
    case ScalarType::Half:
      return static_cast<double>(static_cast<float>(
          static_cast<const executorch::aten::Half*>(data)[i]));
    case ScalarType::BFloat16:
      return static_cast<double>(static_cast<float>(
          static_cast<const executorch::aten::BFloat16*>(data)[i]));
    case ScalarType::Bool:
      return static_cast<const bool*>(data)[i] ? 1.0 : 0.0;
    default:
      return 0.0;
  }
}

bool is_integral(ScalarType t) {
  return t == ScalarType::Byte || t == ScalarType::Char ||
         t == ScalarType::Short || t == ScalarType::Int ||
         t == ScalarType::Long || t == ScalarType::Bool;
}

std::string fmt(double v, bool integral) {
  char b[64];
  if (integral) {
    std::snprintf(b, sizeof(b), "%.0f", v);
  } else {
    std::snprintf(b, sizeof(b), "%.6g", v);
  }
  return b;
}

bool printable(ScalarType t) {
  switch (t) {
#define ET_RUN_CASE(ctype, name) case ScalarType::name:
    ET_FORALL_REAL_TYPES(ET_RUN_CASE)
#undef ET_RUN_CASE
    case ScalarType::Half:
    case ScalarType::BFloat16:
    case ScalarType::Bool:
      return true;
    default:
      return false;
  }
}

}  // namespace

void print_value(const EValue& v, int leading, int top) {
  if (v.isTensor()) {
    const executorch::aten::Tensor& t = v.toTensor();
    std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
    std::printf(
        "Tensor %s %s",
        dtype_name(t.scalar_type()).c_str(),
        shape_str(sizes).c_str());
    const size_t n = static_cast<size_t>(t.numel());
    const void* data = t.const_data_ptr();
    if (!printable(t.scalar_type()) || (data == nullptr && n > 0)) {
      std::printf("%s\n", data == nullptr && n > 0 ? " (no data)" : "");
      return;
    }
    const bool integral = is_integral(t.scalar_type());
    const size_t k = std::min(n, static_cast<size_t>(leading));
    if (k > 0) {
      std::printf(" = [");
      for (size_t i = 0; i < k; ++i) {
        std::printf(
            "%s%s",
            i ? ", " : "",
            fmt(element(data, t.scalar_type(), i), integral).c_str());
      }
      std::printf("%s]", k < n ? ", ..." : "");
    }
    std::printf("\n");
    if (top > 0 && n > 0) {
      std::vector<size_t> idx(n);
      std::iota(idx.begin(), idx.end(), size_t{0});
      const size_t kt = std::min(n, static_cast<size_t>(top));
      std::partial_sort(
          idx.begin(),
          idx.begin() + static_cast<std::ptrdiff_t>(kt),
          idx.end(),
          [&](size_t a, size_t b) {
            return element(data, t.scalar_type(), a) >
                   element(data, t.scalar_type(), b);
          });
      std::printf("    top-%zu (flat index: value):", kt);
      for (size_t i = 0; i < kt; ++i) {
        std::printf(
            " %zu: %s%s",
            idx[i],
            fmt(element(data, t.scalar_type(), idx[i]), integral).c_str(),
            i + 1 < kt ? "," : "");
      }
      std::printf("\n");
    }
  } else if (v.isInt()) {
    std::printf("Int %" PRId64 "\n", v.toInt());
  } else if (v.isDouble()) {
    std::printf("Double %.9g\n", v.toDouble());
  } else if (v.isBool()) {
    std::printf("Bool %s\n", v.toBool() ? "true" : "false");
  } else if (v.isNone()) {
    std::printf("None\n");
  } else if (v.isString()) {
    auto s = v.toString();
    std::printf("String \"%.*s\"\n", static_cast<int>(s.size()), s.data());
  } else {
    std::printf("%s\n", executorch::runtime::tag_to_string(v.tag));
  }
}

const char* error_meaning(Error e) {
  switch (e) {
    case Error::Ok:
      return "no error";
    case Error::Internal:
      return "internal inconsistency";
    case Error::InvalidState:
      return "operation not valid in the current state";
    case Error::EndOfMethod:
      return "no more instructions";
    case Error::AlreadyLoaded:
      return "already loaded";
    case Error::NotSupported:
      return "operation or value not supported";
    case Error::NotImplemented:
      return "feature not implemented";
    case Error::InvalidArgument:
      return "invalid argument";
    case Error::InvalidType:
      return "value of the wrong type";
    case Error::OperatorMissing:
      return "an operator has no registered kernel";
    case Error::RegistrationExceedingMaxKernels:
      return "too many kernels registered";
    case Error::RegistrationAlreadyRegistered:
      return "kernel already registered";
    case Error::NotFound:
      return "not found (segment, backend or data key)";
    case Error::MemoryAllocationFailed:
      return "memory allocation failed";
    case Error::AccessFailed:
      return "could not open, read or map the file";
    case Error::InvalidProgram:
      return "malformed or corrupt program";
    case Error::InvalidExternalData:
      return "external data missing or mismatched";
    case Error::OutOfResources:
      return "out of resources";
    case Error::DelegateInvalidCompatibility:
      return "backend rejects the delegate blob";
    case Error::DelegateMemoryAllocationFailed:
      return "backend could not allocate memory";
    case Error::DelegateInvalidHandle:
      return "invalid delegate handle";
  }
  return "unknown error";
}

void print_error(const std::string& what, Error e) {
  std::fprintf(
      stderr,
      "et_run: %s: %s (0x%02x): %s\n",
      what.c_str(),
      executorch::runtime::to_string(e),
      static_cast<unsigned>(e),
      error_meaning(e));
}

std::string format_ms(double ns) {
  char b[64];
  if (ns >= 1e6) {
    std::snprintf(b, sizeof(b), "%.3f ms", ns / 1e6);
  } else {
    std::snprintf(b, sizeof(b), "%.1f us", ns / 1e3);
  }
  return b;
}

}  // namespace et_run
