#include <executorch/devtools/bundled_program/detail/known_bundles.h>

#include <mutex>

namespace executorch {
namespace bundled_program {
namespace detail {
namespace {

struct KnownBundle {
  const void* data = nullptr;
  size_t size = 0;
};

// A few files per process at most are open at once; the oldest entry is
// reused once all are taken (its owner then has to call get_program_data()
// again). Fixed storage: no allocation, nothing to free at exit.
constexpr size_t kMaxKnownBundles = 64;

struct KnownBundles {
  std::mutex mu;
  KnownBundle entries[kMaxKnownBundles];
  size_t next = 0;
};

KnownBundles& known_bundles() {
  static KnownBundles known;
  return known;
}

}  // namespace

void remember_bundle_length(const void* data, size_t size) {
  KnownBundles& known = known_bundles();
  std::lock_guard<std::mutex> lock(known.mu);
  for (KnownBundle& e : known.entries) {
    if (e.data == data) {
      e.size = size;
      return;
    }
  }
  known.entries[known.next] = {data, size};
  known.next = (known.next + 1) % kMaxKnownBundles;
}

bool known_bundle_length(const void* data, size_t* size) {
  KnownBundles& known = known_bundles();
  std::lock_guard<std::mutex> lock(known.mu);
  for (const KnownBundle& e : known.entries) {
    if (e.data != nullptr && e.data == data) {
      *size = e.size;
      return true;
    }
  }
  return false;
}

}  // namespace detail
}  // namespace bundled_program
}  // namespace executorch
