// Helpers for the kernel safety tests: tensors whose storage is exactly
// numel * element size bytes (no slack, so ASan sees the first byte a kernel
// writes or reads past the end), and tensors that only claim a size (their
// data must never be touched because the kernel has to reject the call
// before it moves any data); outputs followed by guard bytes, and a capture
// of the log lines a call emits.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/runtime/platform/platform.h>

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

/*
 * A contiguous tensor followed by kGuardBytes guard bytes in the same
 * allocation. A kernel that writes past the end of the tensor without
 * running off the allocation changes them, which a plain (non-ASan) build
 * can observe. The tensor's own bytes start as zero.
 */
class GuardedTensor {
 public:
  static constexpr size_t kGuardBytes = 256;
  static constexpr uint8_t kGuard = 0xA5;

  GuardedTensor(ScalarType dtype, std::vector<int32_t> shape) {
    size_t numel = 1;
    for (int32_t s : shape) {
      numel *= static_cast<size_t>(s);
    }
    bytes_ = numel * executorch::runtime::elementSize(dtype);
    // uint64_t elements keep the data 8-byte aligned for every dtype.
    storage_.assign((bytes_ + kGuardBytes) / 8 + 1, 0);
    uint8_t* base = reinterpret_cast<uint8_t*>(storage_.data());
    std::memset(base + bytes_, kGuard, storage_.size() * 8 - bytes_);
    tensor_ = std::make_unique<ExactTensor>(dtype, std::move(shape), base);
  }

  Tensor tensor() const {
    return tensor_->tensor();
  }

  /* The tensor's bytes are all still zero. */
  bool untouched() const {
    const uint8_t* base = reinterpret_cast<const uint8_t*>(storage_.data());
    for (size_t i = 0; i < bytes_; ++i) {
      if (base[i] != 0) {
        return false;
      }
    }
    return true;
  }

  /* No byte after the tensor has changed. */
  bool guard_intact() const {
    const uint8_t* base = reinterpret_cast<const uint8_t*>(storage_.data());
    for (size_t i = bytes_; i < storage_.size() * 8; ++i) {
      if (base[i] != kGuard) {
        return false;
      }
    }
    return true;
  }

 private:
  size_t bytes_ = 0;
  std::vector<uint64_t> storage_;
  std::unique_ptr<ExactTensor> tensor_;
};

/*
 * Collects the log lines emitted while it is alive (one capture at a time).
 * The first capture installs a PAL log sink for the rest of the process
 * that records while a capture is active and always forwards to the sink
 * that was installed before, so the test output keeps every line.
 */
class LogCapture {
 public:
  LogCapture() {
    install();
    std::lock_guard<std::mutex> lock(state().mu);
    state().active = this;
  }
  ~LogCapture() {
    std::lock_guard<std::mutex> lock(state().mu);
    state().active = nullptr;
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  /* Some captured line contains every one of `parts`. */
  bool has_line_with(std::initializer_list<const char*> parts) const {
    std::lock_guard<std::mutex> lock(state().mu);
    for (const std::string& line : lines_) {
      bool all = true;
      for (const char* p : parts) {
        all = all && line.find(p) != std::string::npos;
      }
      if (all) {
        return true;
      }
    }
    return false;
  }

  /* Every captured line, for failure messages. */
  std::string text() const {
    std::lock_guard<std::mutex> lock(state().mu);
    std::string all;
    for (const std::string& line : lines_) {
      all += line + "\n";
    }
    return all;
  }

 private:
  using Sink = executorch::runtime::PalImpl::pal_emit_log_message_method;
  struct State {
    std::mutex mu;
    LogCapture* active = nullptr;
    Sink previous = nullptr;
  };
  static State& state() {
    static State s;
    return s;
  }

  static void sink(et_timestamp_t timestamp, et_pal_log_level_t level, const char* filename,
                   const char* function, size_t line, const char* message, size_t length) {
    Sink previous;
    {
      std::lock_guard<std::mutex> lock(state().mu);
      if (state().active != nullptr) {
        state().active->lines_.emplace_back(message, length);
      }
      previous = state().previous;
    }
    if (previous != nullptr) {
      previous(timestamp, level, filename, function, line, message, length);
    } else {
      et_pal_emit_log_message(timestamp, level, filename, function, line, message, length);
    }
  }

  static void install() {
    static const bool installed = [] {
      state().previous = executorch::runtime::get_pal_impl()->emit_log_message;
      return executorch::runtime::register_pal(
          executorch::runtime::PalImpl::create(&LogCapture::sink, __FILE__));
    }();
    EXPECT_TRUE(installed) << "could not install the log capture sink";
  }

  std::vector<std::string> lines_;
};

/* Calls `name` with the given argument values (the last is the out slot). */
inline Error call(const char* name, std::vector<EValue*> args) {
  Error lookup = Error::Ok;
  const Error err = kernel_test::call_op(name, std::move(args), &lookup);
  EXPECT_EQ(lookup, Error::Ok) << name << " is not registered";
  return err;
}

}  // namespace kernel_safety
