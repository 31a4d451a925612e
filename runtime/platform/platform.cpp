/*
 * Run-time PAL registration and the pal_*() dispatch wrappers.
 *
 * Registration may happen from static initializers in any shared object, so
 * all state here is constant-initialized (no dynamic constructors). A
 * registration never edits the live table in place: it fills a fresh slot and
 * publishes it with one atomic store, so concurrent readers always see a
 * complete PalImpl.
 */
#include <executorch/runtime/platform/platform.h>

#include <atomic>
#include <mutex>

namespace executorch {
namespace runtime {
namespace {

// Enough for any sane program; registering more returns false.
constexpr size_t kMaxPalRegistrations = 16;

const PalImpl kEmptyPal{};
PalImpl g_pal_slots[kMaxPalRegistrations];
size_t g_pal_slots_used = 0;
std::mutex g_pal_mutex;
std::atomic<const PalImpl*> g_current_pal{&kEmptyPal};

const PalImpl* current() {
  return g_current_pal.load(std::memory_order_acquire);
}

}  // namespace

PalImpl PalImpl::create(
    pal_emit_log_message_method emit_log_message, const char* source_filename) {
  PalImpl impl;
  impl.emit_log_message = emit_log_message;
  impl.source_filename = source_filename;
  return impl;
}

PalImpl PalImpl::create(
    pal_init_method init,
    pal_abort_method abort,
    pal_current_ticks_method current_ticks,
    pal_ticks_to_ns_multiplier_method ticks_to_ns_multiplier,
    pal_emit_log_message_method emit_log_message,
    pal_allocate_method allocate,
    pal_free_method free,
    const char* source_filename) {
  PalImpl impl;
  impl.init = init;
  impl.abort = abort;
  impl.current_ticks = current_ticks;
  impl.ticks_to_ns_multiplier = ticks_to_ns_multiplier;
  impl.emit_log_message = emit_log_message;
  impl.allocate = allocate;
  impl.free = free;
  impl.source_filename = source_filename;
  return impl;
}

bool register_pal(PalImpl impl) {
  std::lock_guard<std::mutex> guard(g_pal_mutex);
  if (g_pal_slots_used >= kMaxPalRegistrations) {
    return false;
  }
  // Later registrations refine earlier ones: only non-null members replace.
  PalImpl merged = *current();
  if (impl.init != nullptr) {
    merged.init = impl.init;
  }
  if (impl.abort != nullptr) {
    merged.abort = impl.abort;
  }
  if (impl.current_ticks != nullptr) {
    merged.current_ticks = impl.current_ticks;
  }
  if (impl.ticks_to_ns_multiplier != nullptr) {
    merged.ticks_to_ns_multiplier = impl.ticks_to_ns_multiplier;
  }
  if (impl.emit_log_message != nullptr) {
    merged.emit_log_message = impl.emit_log_message;
  }
  if (impl.allocate != nullptr) {
    merged.allocate = impl.allocate;
  }
  if (impl.free != nullptr) {
    merged.free = impl.free;
  }
  merged.source_filename = impl.source_filename;
  PalImpl* slot = &g_pal_slots[g_pal_slots_used++];
  *slot = merged;
  g_current_pal.store(slot, std::memory_order_release);
  return true;
}

const PalImpl* get_pal_impl() {
  return current();
}

void pal_init() {
  const PalImpl* impl = current();
  if (impl->init != nullptr) {
    impl->init();
  } else {
    et_pal_init();
  }
}

void pal_abort() {
  const PalImpl* impl = current();
  if (impl->abort != nullptr) {
    impl->abort();
  }
  // Also reached if a registered abort hook returns, which it must not.
  et_pal_abort();
}

et_timestamp_t pal_current_ticks() {
  const PalImpl* impl = current();
  return impl->current_ticks != nullptr ? impl->current_ticks()
                                        : et_pal_current_ticks();
}

et_tick_ratio_t pal_ticks_to_ns_multiplier() {
  const PalImpl* impl = current();
  return impl->ticks_to_ns_multiplier != nullptr
             ? impl->ticks_to_ns_multiplier()
             : et_pal_ticks_to_ns_multiplier();
}

void pal_emit_log_message(
    et_timestamp_t timestamp,
    et_pal_log_level_t level,
    const char* filename,
    const char* function,
    size_t line,
    const char* message,
    size_t length) {
  const PalImpl* impl = current();
  if (impl->emit_log_message != nullptr) {
    impl->emit_log_message(
        timestamp, level, filename, function, line, message, length);
  } else {
    et_pal_emit_log_message(
        timestamp, level, filename, function, line, message, length);
  }
}

void* pal_allocate(size_t size) {
  const PalImpl* impl = current();
  return impl->allocate != nullptr ? impl->allocate(size)
                                   : et_pal_allocate(size);
}

void pal_free(void* ptr) {
  const PalImpl* impl = current();
  if (impl->free != nullptr) {
    impl->free(ptr);
  } else {
    et_pal_free(ptr);
  }
}

}  // namespace runtime
}  // namespace executorch
