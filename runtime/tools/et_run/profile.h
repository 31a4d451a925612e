// Per-operator timing for et_run --profile: OpTracer, an EventTracer given to load_method,
// collects the events the Method reports around each KernelCall (named "name.overload") and
// DelegateCall (named after the backend id), plus any delegate events a backend logs itself
// ("delegate:<name>").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/span.h>

namespace et_run {

struct OpStats {
  uint64_t calls = 0;
  uint64_t total_ns = 0;
};

using OpTable = std::map<std::string, OpStats>;

class OpTracer final : public executorch::runtime::EventTracer {
 public:
  void create_event_block(const char*) override {}
  executorch::runtime::EventTracerEntry start_profiling(
      const char* name,
      executorch::runtime::ChainID chain_id,
      executorch::runtime::DebugHandle debug_handle) override;
  void end_profiling(executorch::runtime::EventTracerEntry entry) override;
  executorch::runtime::EventTracerEntry start_profiling_delegate(
      const char* name,
      executorch::runtime::DelegateDebugIntId delegate_debug_index) override;
  void end_profiling_delegate(
      executorch::runtime::EventTracerEntry entry,
      const void* metadata,
      size_t metadata_len) override;
  void log_profiling_delegate(
      const char* name,
      executorch::runtime::DelegateDebugIntId delegate_debug_index,
      et_timestamp_t start_time,
      et_timestamp_t end_time,
      const void* metadata,
      size_t metadata_len) override;
  void track_allocation(executorch::runtime::AllocatorID, size_t) override {}
  executorch::runtime::AllocatorID track_allocator(const char*) override {
    return 0;
  }
  executorch::runtime::Result<bool> log_evalue(
      const executorch::runtime::EValue&,
      executorch::runtime::LoggedEValueType) override {
    return false;
  }

  /// Starts counting (events before this, e.g. during load, are dropped).
  void set_enabled(bool on) {
    enabled_ = on;
  }
  const OpTable& table() const {
    return table_;
  }
  uint64_t events() const {
    return events_;
  }

 private:
  int64_t intern(const char* name);
  std::vector<std::string> names_;
  std::map<std::string, int64_t> ids_;
  OpTable table_;
  uint64_t events_ = 0;
  bool enabled_ = false;
};

/// Prints the table (operator, calls, total, mean, share), sorted by total time.
void print_op_table(
    const OpTable& table, int iterations, uint64_t execute_total_ns);

uint64_t now_ns();

}  // namespace et_run
