/*
 * EValue printing. Output format:
 *   None, True/False, 42, 1.5 / 2. (integral doubles get a trailing dot),
 *   "quoted strings", (len=N)[a, b, ..., y, z] for scalar lists,
 *   tensor(sizes=[2, 3], [data...]) for tensors, and tensor lists as
 *   (len=N)[ one tensor per line ].
 * Lists whose printed part exceeds 10 items wrap at 10 items per line.
 */
#include <executorch/extension/evalue_util/print_evalue.h>

#include <cmath>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <executorch/extension/tensor/detail/dtype_dispatch.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>

namespace executorch {
namespace extension {
namespace {

constexpr size_t kItemsPerLine = 10;
constexpr long kDefaultEdgeItems = 3;

int edge_items_slot() {
  static const int slot = std::ios_base::xalloc();
  return slot;
}

size_t edge_items_of(std::ostream& os) {
  const long n = os.iword(edge_items_slot());
  return static_cast<size_t>(n <= 0 ? kDefaultEdgeItems : n);
}

void print_double(std::ostream& os, double value) {
  os << value;
  if (!std::isfinite(value)) {
    return;
  }
  // A trailing dot marks integral floating values, as PyTorch prints them.
  bool integral_looking = value == 0.0;
  if (!integral_looking && std::fabs(value) < 9.2e18) {
    std::ostringstream as_double;
    as_double.copyfmt(os);
    as_double << value;
    std::ostringstream as_int;
    as_int << static_cast<int64_t>(value);
    integral_looking = as_double.str() == as_int.str();
  }
  if (integral_looking) {
    os << '.';
  }
}

// One element, formatted like the scalar EValue of the same kind.
template <typename T>
void print_item(std::ostream& os, const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    os << (v ? "True" : "False");
  } else if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>) {
      os << static_cast<int64_t>(v);
    } else {
      os << static_cast<uint64_t>(v);
    }
  } else {
    print_double(os, static_cast<double>(static_cast<float>(v)));
  }
}

template <>
void print_item<double>(std::ostream& os, const double& v) {
  print_double(os, v);
}

// Prints `items[0..n)` (already formatted), eliding the middle unless
// `elide` is false.
void print_list(
    std::ostream& os,
    const std::vector<std::string>& head,
    const std::vector<std::string>& tail,
    bool elided) {
  const size_t printed = head.size() + tail.size();
  const bool wrapping = printed > kItemsPerLine;
  os << '[';
  if (!wrapping) {
    for (size_t i = 0; i < head.size(); ++i) {
      os << head[i];
      if (i + 1 < head.size() || elided) {
        os << ", ";
      }
    }
    if (elided) {
      os << "..., ";
      for (size_t i = 0; i < tail.size(); ++i) {
        os << tail[i];
        if (i + 1 < tail.size()) {
          os << ", ";
        }
      }
    }
    os << ']';
    return;
  }
  for (size_t i = 0; i < head.size(); ++i) {
    if (i % kItemsPerLine == 0) {
      os << "\n  ";
    }
    os << head[i] << ", ";
  }
  if (elided) {
    os << "\n  ...,";
    // The tail ends on a full line, so its first line is the short one.
    size_t on_line = kItemsPerLine - tail.size() % kItemsPerLine;
    if (on_line % kItemsPerLine != 0) {
      os << "\n  ";
    }
    for (const auto& item : tail) {
      if (on_line % kItemsPerLine == 0) {
        os << "\n  ";
      }
      os << item << ", ";
      ++on_line;
    }
  }
  os << "\n]";
}

template <typename T>
void print_scalars(
    std::ostream& os,
    const T* data,
    size_t n,
    bool show_length,
    bool allow_elision) {
  if (show_length) {
    os << "(len=" << n << ")";
  }
  const size_t edge = allow_elision ? edge_items_of(os) : n;
  const bool elided = allow_elision && n > 2 * edge;
  std::vector<std::string> head;
  std::vector<std::string> tail;
  auto format = [&](size_t i) {
    std::ostringstream item;
    item.copyfmt(os);
    print_item(item, data[i]);
    return item.str();
  };
  if (elided) {
    for (size_t i = 0; i < edge; ++i) {
      head.push_back(format(i));
    }
    for (size_t i = n - edge; i < n; ++i) {
      tail.push_back(format(i));
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      head.push_back(format(i));
    }
  }
  print_list(os, head, tail, elided);
}

void print_tensor(std::ostream& os, const executorch::aten::Tensor& tensor) {
  os << "tensor(sizes=";
  const auto sizes = tensor.sizes();
  print_scalars(os, sizes.data(), sizes.size(), false, false);
  os << ", ";
  const void* data = tensor.const_data_ptr();
  const size_t numel = static_cast<size_t>(tensor.numel());
  if (data == nullptr && numel > 0) {
    os << "[<no data>]";
  } else if (!detail::visit_dtype(tensor.scalar_type(), [&](auto tag) {
               using T = typename decltype(tag)::type;
               print_scalars(
                   os, static_cast<const T*>(data), numel, false, true);
             })) {
    os << "[<unhandled scalar type " << static_cast<int>(tensor.scalar_type())
       << ">]";
  }
  os << ")";
}

template <typename Printer>
void print_tensor_like_list(std::ostream& os, size_t n, Printer&& print_one) {
  os << "(len=" << n << ")[";
  for (size_t i = 0; i < n; ++i) {
    if (n > 1) {
      os << "\n  [" << i << "]: ";
    }
    print_one(i);
    if (n > 1) {
      os << ",";
    }
  }
  if (n > 1) {
    os << "\n";
  }
  os << "]";
}

}  // namespace

void evalue_edge_items::set_edge_items(std::ostream& os, long edge_items) {
  os.iword(edge_items_slot()) = edge_items;
}

}  // namespace extension
}  // namespace executorch

namespace executorch {
namespace runtime {

std::ostream& operator<<(std::ostream& os, const EValue& value) {
  using namespace ::executorch::extension;
  switch (value.tag) {
    case Tag::None:
      os << "None";
      break;
    case Tag::Bool:
      os << (value.toBool() ? "True" : "False");
      break;
    case Tag::Int:
      os << value.toInt();
      break;
    case Tag::Double:
      print_double(os, value.toDouble());
      break;
    case Tag::String: {
      const auto s = value.toString();
      os << std::quoted(std::string(s.data(), s.size()));
      break;
    }
    case Tag::Tensor:
      print_tensor(os, value.toTensor());
      break;
    case Tag::ListBool: {
      const auto list = value.toBoolList();
      print_scalars(os, list.data(), list.size(), true, true);
      break;
    }
    case Tag::ListInt: {
      const auto list = value.toIntList();
      print_scalars(os, list.data(), list.size(), true, true);
      break;
    }
    case Tag::ListDouble: {
      const auto list = value.toDoubleList();
      print_scalars(os, list.data(), list.size(), true, true);
      break;
    }
    case Tag::ListTensor: {
      const auto list = value.toTensorList();
      print_tensor_like_list(
          os, list.size(), [&](size_t i) { print_tensor(os, list[i]); });
      break;
    }
    case Tag::ListOptionalTensor: {
      const auto list = value.toListOptionalTensor();
      print_tensor_like_list(os, list.size(), [&](size_t i) {
        if (list[i].has_value()) {
          print_tensor(os, list[i].value());
        } else {
          os << "None";
        }
      });
      break;
    }
    default:
      os << "<Unknown EValue tag " << static_cast<int>(value.tag) << ">";
      break;
  }
  return os;
}

}  // namespace runtime
}  // namespace executorch
