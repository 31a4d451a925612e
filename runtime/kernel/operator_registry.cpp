/*
 * The process-wide kernel registry.
 *
 * Storage: a fixed table of kMaxRegisteredKernels entries plus a parallel
 * table of name hashes, an atomic count and a std::mutex. All of it is
 * constant-initialized (zeroed .bss; Kernel's and std::mutex's default
 * constructors are constexpr) and trivially destructible, so registration
 * works from static initializers in any library in any order, before
 * main(), and lookups work even from static destructors.
 *
 * Concurrency: register_kernels() holds the mutex for the whole batch, so
 * batches are serialized and duplicate checks see every earlier batch.
 * Lookups take no lock: new entries are written beyond the published count
 * and the count is then advanced with a release store; readers load it with
 * acquire and only read entries below it. Published entries never change or
 * move (there is no unregistration), so get_registered_kernels() can return
 * a span into the table.
 *
 * Batches are all-or-nothing: every kernel of a batch is checked (valid,
 * not registered yet, not repeated within the batch, and the whole batch
 * fits) before any of it is written, so a failed call leaves the registry
 * exactly as it was. A kernel library is thereby either fully present or
 * absent, never half-registered. Errors are returned (and logged), never
 * fatal: unlike upstream, a duplicate or a full table does not abort.
 */

#include <executorch/runtime/kernel/operator_registry.h>

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <cstring>
#include <mutex>

#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {

namespace {

// Capacity of the table (upstream: 2000).
constexpr size_t kMaxRegisteredKernels = 8192;

std::mutex kernel_write_lock;
std::atomic<size_t> num_kernels{0};
Kernel kernels[kMaxRegisteredKernels];
uint32_t kernel_name_hashes[kMaxRegisteredKernels];

// FNV-1a of an operator name: lets the scans skip most entries without a
// string compare.
uint32_t hash_name(const char* name) {
  uint32_t h = 2166136261u;
  for (const unsigned char* p = reinterpret_cast<const unsigned char*>(name);
       *p != 0;
       ++p) {
    h = (h ^ *p) * 16777619u;
  }
  return h;
}

// Writes the key of `metas` one character at a time into `sink`, a
// callable taking a char and returning false to stop. Returns InvalidArgument
// for a value outside 0-99, Ok when everything was emitted, and NotFound when
// the sink stopped early. The one definition of the key format: both the
// string builder and the lookup comparison use it.
template <typename Sink>
Error emit_kernel_key(Span<const TensorMeta> metas, Sink&& sink) {
  if (metas.size() == 0) {
    return Error::Ok;
  }
  auto number = [&sink](int v) -> Error {
    if (v < 0 || v > 99) {
      return Error::InvalidArgument;
    }
    if (v >= 10 && !sink(static_cast<char>('0' + v / 10))) {
      return Error::NotFound;
    }
    return sink(static_cast<char>('0' + v % 10)) ? Error::Ok : Error::NotFound;
  };
  // Validate everything first so an unencodable value is reported as such
  // even when the sink would have stopped before reaching it.
  for (size_t i = 0; i < metas.size(); ++i) {
    const int dtype = static_cast<int>(metas[i].dtype_);
    if (dtype < 0 || dtype > 99) {
      return Error::InvalidArgument;
    }
    for (size_t d = 0; d < metas[i].dim_order_.size(); ++d) {
      if (static_cast<int>(metas[i].dim_order_[d]) > 99) {
        return Error::InvalidArgument;
      }
    }
  }
  for (const char c : {'v', '1', '/'}) {
    if (!sink(c)) {
      return Error::NotFound;
    }
  }
  for (size_t i = 0; i < metas.size(); ++i) {
    if (i > 0 && !sink('|')) {
      return Error::NotFound;
    }
    Error err = number(static_cast<int>(metas[i].dtype_));
    if (err != Error::Ok) {
      return err;
    }
    if (!sink(';')) {
      return Error::NotFound;
    }
    for (size_t d = 0; d < metas[i].dim_order_.size(); ++d) {
      if (d > 0 && !sink(',')) {
        return Error::NotFound;
      }
      err = number(static_cast<int>(metas[i].dim_order_[d]));
      if (err != Error::Ok) {
        return err;
      }
    }
  }
  return Error::Ok;
}

// Whether `key` (a NUL-terminated key string) is exactly the key of
// `metas`. Needs no buffer, so keys of any length compare correctly.
bool key_matches(const char* key, Span<const TensorMeta> metas) {
  size_t pos = 0;
  bool match = true;
  Error err = emit_kernel_key(metas, [&](char c) {
    if (key[pos] != c) {
      match = false;
      return false;
    }
    ++pos;
    return true;
  });
  return err == Error::Ok && match && key[pos] == '\0';
}

// Resolution within one list of kernels: exact key, else fallback, else
// nullptr. `hashes` (optional) parallels `table`.
OpFunction find_in(
    const Kernel* table,
    const uint32_t* hashes,
    size_t n,
    const char* name,
    uint32_t name_hash,
    Span<const TensorMeta> metas) {
  OpFunction fallback = nullptr;
  for (size_t i = 0; i < n; ++i) {
    if (hashes != nullptr && hashes[i] != name_hash) {
      continue;
    }
    const Kernel& k = table[i];
    if (k.name_ == nullptr || std::strcmp(k.name_, name) != 0) {
      continue;
    }
    if (k.kernel_key_.is_fallback()) {
      if (fallback == nullptr) {
        fallback = k.op_;
      }
    } else if (key_matches(k.kernel_key_.data(), metas)) {
      return k.op_;
    }
  }
  return fallback;
}

// Checks `metas` can form a key at all (every value within 0-99).
Error validate_metas(Span<const TensorMeta> metas) {
  return emit_kernel_key(metas, [](char) { return true; });
}

Result<OpFunction> lookup(
    const char* name,
    Span<const TensorMeta> metas,
    Span<const Kernel> scoped,
    bool log_miss) {
  if (name == nullptr) {
    return Error::InvalidArgument;
  }
  Error err = validate_metas(metas);
  if (err != Error::Ok) {
    if (log_miss) {
      ET_LOG(
          Error,
          "kernel lookup for '%s': a tensor dtype or dim order is outside "
          "0-99 and cannot form a kernel key",
          name);
    }
    return err;
  }
  const uint32_t h = hash_name(name);
  if (scoped.size() > 0) {
    OpFunction fn =
        find_in(scoped.data(), nullptr, scoped.size(), name, h, metas);
    if (fn != nullptr) {
      return fn;
    }
  }
  const size_t n = num_kernels.load(std::memory_order_acquire);
  OpFunction fn = find_in(kernels, kernel_name_hashes, n, name, h, metas);
  if (fn != nullptr) {
    return fn;
  }
  if (log_miss) {
    ET_LOG(
        Error,
        "kernel '%s' not found for %zu tensor argument(s)",
        name,
        metas.size());
  }
  return Error::OperatorMissing;
}

bool same_entry(const Kernel& a, const Kernel& b) {
  return std::strcmp(a.name_, b.name_) == 0 && a.kernel_key_ == b.kernel_key_;
}

const char* key_text(const Kernel& k) {
  return k.kernel_key_.is_fallback() ? "<fallback>" : k.kernel_key_.data();
}

}  // namespace

namespace internal {

Error make_kernel_key_string(
    Span<const TensorMeta> key, char* buf, size_t buf_size) {
  if (buf == nullptr || buf_size == 0) {
    return Error::InvalidArgument;
  }
  size_t pos = 0;
  Error err = emit_kernel_key(key, [&](char c) {
    if (pos + 1 >= buf_size) {  // keep room for the NUL
      return false;
    }
    buf[pos++] = c;
    return true;
  });
  if (err != Error::Ok) {
    buf[0] = '\0';
    return Error::InvalidArgument;
  }
  buf[pos] = '\0';
  return Error::Ok;
}

}  // namespace internal

Error register_kernels(const Span<const Kernel> batch) {
  // Validate the batch on its own before taking the lock.
  for (size_t i = 0; i < batch.size(); ++i) {
    const Kernel& k = batch[i];
    if (k.name_ == nullptr || k.name_[0] == '\0' || k.op_ == nullptr) {
      ET_LOG(
          Error,
          "register_kernels: kernel %zu of the batch has no name or no "
          "function; nothing registered",
          i);
      return Error::InvalidArgument;
    }
    for (size_t j = 0; j < i; ++j) {
      if (same_entry(batch[j], k)) {
        ET_LOG(
            Error,
            "register_kernels: '%s' (key %s) appears twice in the batch; "
            "nothing registered",
            k.name_,
            key_text(k));
        return Error::RegistrationAlreadyRegistered;
      }
    }
  }

  std::lock_guard<std::mutex> guard(kernel_write_lock);
  const size_t n = num_kernels.load(std::memory_order_relaxed);
  for (size_t i = 0; i < batch.size(); ++i) {
    const Kernel& k = batch[i];
    const uint32_t h = hash_name(k.name_);
    for (size_t j = 0; j < n; ++j) {
      if (kernel_name_hashes[j] == h && same_entry(kernels[j], k)) {
        ET_LOG(
            Error,
            "register_kernels: '%s' (key %s) is already registered; "
            "nothing of this batch registered",
            k.name_,
            key_text(k));
        return Error::RegistrationAlreadyRegistered;
      }
    }
  }
  if (batch.size() > kMaxRegisteredKernels - n) {
    ET_LOG(
        Error,
        "register_kernels: %zu kernels do not fit (%zu of %zu slots used); "
        "nothing registered",
        batch.size(),
        n,
        kMaxRegisteredKernels);
    return Error::RegistrationExceedingMaxKernels;
  }
  for (size_t i = 0; i < batch.size(); ++i) {
    kernels[n + i] = batch[i];
    kernel_name_hashes[n + i] = hash_name(batch[i].name_);
  }
  num_kernels.store(n + batch.size(), std::memory_order_release);
  return Error::Ok;
}

bool registry_has_op_function(
    const char* name, Span<const TensorMeta> meta_list) {
  return lookup(name, meta_list, Span<const Kernel>(), false).ok();
}

Result<OpFunction> get_op_function_from_registry(
    const char* name, Span<const TensorMeta> meta_list) {
  return lookup(name, meta_list, Span<const Kernel>(), true);
}

Result<OpFunction> get_op_function_from_registry(
    const char* name,
    Span<const TensorMeta> meta_list,
    Span<const Kernel> kernel_list) {
  return lookup(name, meta_list, kernel_list, true);
}

Span<const Kernel> get_registered_kernels() {
  return Span<const Kernel>(
      kernels, num_kernels.load(std::memory_order_acquire));
}

}  // namespace runtime
}  // namespace executorch
