/*
 * Backend options: small key/value records a program hands to a backend,
 * either at load time (through LoadBackendOptionsMap and BackendInitContext)
 * or at any time through the global set_option()/get_option() calls declared
 * in interface.h.
 *
 * Everything here is header-only and allocation-free: a BackendOption is a
 * fixed-size record (key up to 63 characters, string values up to 255), and
 * BackendOptions<N> is a fixed-capacity container of them.
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <variant>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/span.h>

namespace executorch {
namespace runtime {

/// Size of BackendOption::key, terminating NUL included.
static constexpr size_t kMaxOptionKeyLength = 64;
/// Size of a string option value, terminating NUL included.
static constexpr size_t kMaxOptionValueLength = 256;

/// The value of one option: a flag, an integer or a (copied) string.
using OptionValue =
    std::variant<bool, int, std::array<char, kMaxOptionValueLength>>;

/**
 * One named option. The key is copied into the record (and truncated to
 * kMaxOptionKeyLength - 1 characters), so the record owns all its data.
 */
struct BackendOption {
  char key[kMaxOptionKeyLength]{};
  OptionValue value;

  BackendOption() = default;

  BackendOption(const char* option_key, OptionValue option_value)
      : value(option_value) {
    if (option_key != nullptr) {
      size_t n = std::strlen(option_key);
      if (n > kMaxOptionKeyLength - 1) {
        n = kMaxOptionKeyLength - 1;
      }
      std::memcpy(key, option_key, n);
      key[n] = '\0';
    }
  }
};

/**
 * A fixed-capacity list of options with set-by-key and typed get-by-key.
 * Setting an existing key replaces its value; setting a new key when all
 * MaxCapacity slots are used fails with InvalidArgument.
 */
template <size_t MaxCapacity>
class BackendOptions {
 public:
  BackendOptions() = default;

  /// The options stored so far, in insertion order (mutable view).
  Span<BackendOption> view() {
    return Span<BackendOption>(options_, size_);
  }

  template <size_t N>
  Error set_option(const char (&key)[N], bool value) noexcept {
    static_assert(N <= kMaxOptionKeyLength, "Option key is too long");
    return store(key, OptionValue(value));
  }

  template <size_t N>
  Error set_option(const char (&key)[N], int value) noexcept {
    static_assert(N <= kMaxOptionKeyLength, "Option key is too long");
    return store(key, OptionValue(value));
  }

  /// The string is copied (truncated to kMaxOptionValueLength - 1 chars).
  template <size_t N>
  Error set_option(const char (&key)[N], const char* value) noexcept {
    static_assert(N <= kMaxOptionKeyLength, "Option key is too long");
    std::array<char, kMaxOptionValueLength> text{};
    if (value != nullptr) {
      size_t n = std::strlen(value);
      if (n > kMaxOptionValueLength - 1) {
        n = kMaxOptionValueLength - 1;
      }
      std::memcpy(text.data(), value, n);
    }
    return store(key, OptionValue(text));
  }

  /**
   * Reads an option. T is bool, int or const char* (the pointer refers to
   * the copy held by this container).
   * @retval Error::NotFound no option has this key.
   * @retval Error::InvalidArgument the option holds another type.
   */
  template <typename T, size_t N>
  Error get_option(const char (&key)[N], T& out) const {
    static_assert(N <= kMaxOptionKeyLength, "Option key is too long");
    static_assert(
        std::is_same_v<T, bool> || std::is_same_v<T, int> ||
            std::is_same_v<T, const char*>,
        "BackendOptions::get_option supports bool, int and const char*");
    for (size_t i = 0; i < size_; ++i) {
      if (std::strcmp(options_[i].key, key) != 0) {
        continue;
      }
      if constexpr (std::is_same_v<T, const char*>) {
        const auto* text = std::get_if<std::array<char, kMaxOptionValueLength>>(
            &options_[i].value);
        if (text == nullptr) {
          return Error::InvalidArgument;
        }
        out = text->data();
      } else {
        const T* v = std::get_if<T>(&options_[i].value);
        if (v == nullptr) {
          return Error::InvalidArgument;
        }
        out = *v;
      }
      return Error::Ok;
    }
    return Error::NotFound;
  }

 private:
  Error store(const char* key, const OptionValue& value) noexcept {
    for (size_t i = 0; i < size_; ++i) {
      if (std::strcmp(options_[i].key, key) == 0) {
        options_[i].value = value;
        return Error::Ok;
      }
    }
    if (size_ >= MaxCapacity) {
      return Error::InvalidArgument;
    }
    options_[size_] = BackendOption(key, value);
    ++size_;
    return Error::Ok;
  }

  BackendOption options_[MaxCapacity]{};
  size_t size_ = 0;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::BackendOption;
using ::executorch::runtime::BackendOptions;
}  // namespace executor
}  // namespace torch
