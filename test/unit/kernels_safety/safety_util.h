// Helpers for the kernel safety tests: tensors whose storage is exactly
// numel * element size bytes (no slack, so ASan sees the first byte a kernel
// writes or reads past the end), and tensors that only claim a size (their
// data must never be touched because the kernel has to reject the call
// before it moves any data).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "../kernels_elementwise/kernel_test_util.h"

namespace kernel_safety {

// The names every safety test uses (the tests live in this namespace).
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using kernel_test::IntList;
using kernel_test::OptTList;
using kernel_test::TList;

/* A contiguous tensor; storage is exact unless `data` is given. */
class ExactTensor {
 public:
  ExactTensor(ScalarType dtype, std::vector<int32_t> shape, void* data = nullptr,
              bool dynamic = false)
      : sizes_(std::move(shape)) {
    const size_t rank = sizes_.size();
    strides_.assign(rank, 1);
    dim_order_.resize(rank);
    size_t numel = 1;
    for (size_t i = rank; i-- > 0;) {
      dim_order_[i] = static_cast<uint8_t>(i);
      strides_[i] = static_cast<int32_t>(numel);
      numel *= static_cast<size_t>(sizes_[i]);
    }
    if (data == nullptr) {
      // new[0] still yields a distinct pointer that ASan treats as 0 bytes.
      storage_.reset(new uint8_t[numel * executorch::runtime::elementSize(dtype)]);
      std::memset(storage_.get(), 0, numel * executorch::runtime::elementSize(dtype));
      data = storage_.get();
    }
    impl_ = std::make_unique<TensorImpl>(
        dtype, static_cast<ssize_t>(rank), sizes_.data(), data, dim_order_.data(), strides_.data(),
        dynamic ? executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND
                : executorch::aten::TensorShapeDynamism::STATIC);
  }

  Tensor tensor() const {
    return Tensor(impl_.get());
  }

  template <class T>
  T* data() const {
    return static_cast<T*>(impl_->mutable_data());
  }

 private:
  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int32_t> strides_;
  std::unique_ptr<uint8_t[]> storage_;
  std::unique_ptr<TensorImpl> impl_;
};

/* Calls `name` with the given argument values (the last is the out slot). */
inline Error call(const char* name, std::vector<EValue*> args) {
  Error lookup = Error::Ok;
  const Error err = kernel_test::call_op(name, std::move(args), &lookup);
  EXPECT_EQ(lookup, Error::Ok) << name << " is not registered";
  return err;
}

}  // namespace kernel_safety
