/*
 * BackendInitContext: what the runtime hands to BackendInterface::init() for
 * one delegate while a Method is being loaded.
 */
#pragma once

#include <array>
#include <cstring>
#include <type_traits>
#include <variant>

#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>

namespace executorch {
namespace runtime {

class BackendInitContext final {
 public:
  /**
   * @param runtime_allocator The Method's allocator: memory taken from it
   *     lives as long as the Method.
   * @param event_tracer Optional tracer (may be null).
   * @param method_name Name of the Method being loaded (may be null).
   * @param named_data_map Named data visible to the program (may be null).
   * @param runtime_specs Load-time options for this delegate's backend.
   */
  explicit BackendInitContext(
      MemoryAllocator* runtime_allocator,
      EventTracer* event_tracer = nullptr,
      const char* method_name = nullptr,
      const NamedDataMap* named_data_map = nullptr,
      Span<const BackendOption> runtime_specs = {})
      : runtime_allocator_(runtime_allocator),
        event_tracer_(event_tracer),
        method_name_(method_name),
        named_data_map_(named_data_map),
        runtime_specs_(runtime_specs) {}

  MemoryAllocator* get_runtime_allocator() {
    return runtime_allocator_;
  }

  /// The event tracer, or null when tracing is off.
  EventTracer* event_tracer() {
    return event_tracer_;
  }

  const char* get_method_name() const {
    return method_name_;
  }

  const NamedDataMap* get_named_data_map() const {
    return named_data_map_;
  }

  /// Load-time options for this backend (empty when none were given).
  Span<const BackendOption> runtime_specs() const {
    return runtime_specs_;
  }

  /**
   * Looks up one load-time option. T is bool, int or const char*.
   * @retval Error::NotFound no option has this key.
   * @retval Error::InvalidArgument the option holds another type.
   */
  template <typename T>
  Result<T> get_runtime_spec(const char* key) const {
    static_assert(
        std::is_same_v<T, bool> || std::is_same_v<T, int> ||
            std::is_same_v<T, const char*>,
        "get_runtime_spec supports bool, int and const char*");
    if (key == nullptr) {
      return Error::InvalidArgument;
    }
    for (size_t i = 0; i < runtime_specs_.size(); ++i) {
      const BackendOption& opt = runtime_specs_[i];
      if (std::strcmp(opt.key, key) != 0) {
        continue;
      }
      if constexpr (std::is_same_v<T, const char*>) {
        const auto* text =
            std::get_if<std::array<char, kMaxOptionValueLength>>(&opt.value);
        if (text == nullptr) {
          return Error::InvalidArgument;
        }
        return static_cast<const char*>(text->data());
      } else {
        const T* v = std::get_if<T>(&opt.value);
        if (v == nullptr) {
          return Error::InvalidArgument;
        }
        return *v;
      }
    }
    return Error::NotFound;
  }

  /**
   * Not part of upstream's API. A backend that knows from its payload which
   * arguments of the delegate call it writes (its graph outputs) reports
   * each one here from init(), by position in the call's arguments. Method
   * load then refuses a program that passes a constant or a view in one of
   * those places and checks a caller-bound input there against its
   * capacity. A backend that reports nothing is taken to write only the
   * call's last argument, the place the exporter puts a delegate's last
   * output.
   */
  void internal_report_written_arg(size_t arg_index) {
    if (written_arg_sink_ != nullptr) {
      written_arg_sink_(written_arg_sink_state_, arg_index);
    }
  }

  /// Where internal_report_written_arg() goes (set by Method load).
  void internal_set_written_arg_sink(
      void (*sink)(void* state, size_t arg_index), void* state) {
    written_arg_sink_ = sink;
    written_arg_sink_state_ = state;
  }

 private:
  MemoryAllocator* runtime_allocator_ = nullptr;
  EventTracer* event_tracer_ = nullptr;
  const char* method_name_ = nullptr;
  const NamedDataMap* named_data_map_ = nullptr;
  Span<const BackendOption> runtime_specs_;
  void (*written_arg_sink_)(void* state, size_t arg_index) = nullptr;
  void* written_arg_sink_state_ = nullptr;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::BackendInitContext;
}  // namespace executor
}  // namespace torch
