/*
 * Two named-data maps seen as one (private header): the user's external map
 * first, then the program's own named data. Delegates get this view.
 */
#pragma once

#include <cstdint>
#include <string_view>

#include <executorch/runtime/core/named_data_map.h>

namespace executorch {
namespace runtime {
namespace internal {

class MergedDataMap final : public NamedDataMap {
 public:
  MergedDataMap(const NamedDataMap* first, const NamedDataMap* second)
      : first_(first), second_(second) {}

  ET_NODISCARD Result<const TensorLayout> get_tensor_layout(
      std::string_view key) const override {
    Result<const TensorLayout> r = first_->get_tensor_layout(key);
    if (r.ok() || r.error() != Error::NotFound) {
      return r;
    }
    return second_->get_tensor_layout(key);
  }

  ET_NODISCARD Result<FreeableBuffer> get_data(
      std::string_view key) const override {
    Result<FreeableBuffer> r = first_->get_data(key);
    if (r.ok() || r.error() != Error::NotFound) {
      return r;
    }
    return second_->get_data(key);
  }

  ET_NODISCARD Error load_data_into(
      std::string_view key, void* buffer, size_t size) const override {
    Error e = first_->load_data_into(key, buffer, size);
    if (e != Error::NotFound) {
      return e;
    }
    return second_->load_data_into(key, buffer, size);
  }

  ET_NODISCARD Result<uint32_t> get_num_keys() const override {
    Result<uint32_t> a = first_->get_num_keys();
    if (!a.ok()) {
      return a.error();
    }
    Result<uint32_t> b = second_->get_num_keys();
    if (!b.ok()) {
      return b.error();
    }
    if (a.get() > UINT32_MAX - b.get()) {
      return Error::InvalidArgument;
    }
    return a.get() + b.get();
  }

  ET_NODISCARD Result<const char*> get_key(uint32_t index) const override {
    Result<uint32_t> a = first_->get_num_keys();
    if (!a.ok()) {
      return a.error();
    }
    if (index < a.get()) {
      return first_->get_key(index);
    }
    return second_->get_key(index - a.get());
  }

 private:
  const NamedDataMap* first_;
  const NamedDataMap* second_;
};

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
