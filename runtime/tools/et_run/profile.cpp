#include "profile.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <utility>

namespace et_run {

using executorch::runtime::DebugHandle;
using executorch::runtime::EventTracerEntry;

uint64_t now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// ---- OpTracer

int64_t OpTracer::intern(const char* name) {
  const std::string n = name ? name : "?";
  auto it = ids_.find(n);
  if (it != ids_.end()) {
    return it->second;
  }
  const int64_t id = static_cast<int64_t>(names_.size());
  names_.push_back(n);
  ids_.emplace(n, id);
  return id;
}

EventTracerEntry OpTracer::start_profiling(
    const char* name,
    executorch::runtime::ChainID chain_id,
    DebugHandle debug_handle) {
  EventTracerEntry e{};
  // Only events inside an instruction are operators; the whole "Method::execute"
  // is timed by the caller.
  const bool in_instruction =
      current_chain_id() != executorch::runtime::kUnsetChainId;
  e.event_id = enabled_ && in_instruction ? intern(name) : -1;
  e.chain_id = chain_id;
  e.debug_handle = debug_handle;
  e.delegate_event_id_type = executorch::runtime::DelegateDebugIdType::kNone;
  e.start_time = now_ns();
  return e;
}

void OpTracer::end_profiling(EventTracerEntry e) {
  const uint64_t end = now_ns();
  if (!enabled_ || e.event_id < 0 ||
      static_cast<size_t>(e.event_id) >= names_.size()) {
    return;
  }
  OpStats& s = table_[names_[static_cast<size_t>(e.event_id)]];
  ++s.calls;
  s.total_ns += end - e.start_time;
  ++events_;
}

EventTracerEntry OpTracer::start_profiling_delegate(
    const char* name,
    executorch::runtime::DelegateDebugIntId delegate_debug_index) {
  std::string n = std::string("delegate:") + (name ? name : "?");
  return start_profiling(
      n.c_str(),
      executorch::runtime::kUnsetChainId,
      static_cast<DebugHandle>(delegate_debug_index));
}

void OpTracer::end_profiling_delegate(EventTracerEntry e, const void*, size_t) {
  end_profiling(e);
}

void OpTracer::log_profiling_delegate(
    const char* name,
    executorch::runtime::DelegateDebugIntId,
    et_timestamp_t start_time,
    et_timestamp_t end_time,
    const void*,
    size_t) {
  if (!enabled_) {
    return;
  }
  OpStats& s = table_[std::string("delegate:") + (name ? name : "?")];
  ++s.calls;
  s.total_ns += end_time - start_time;
  ++events_;
}

// ---- table

void print_op_table(
    const OpTable& table, int iterations, uint64_t execute_total_ns) {
  std::vector<std::pair<std::string, OpStats>> rows(table.begin(), table.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second.total_ns > b.second.total_ns;
  });
  uint64_t op_total = 0;
  size_t width = 8;
  for (const auto& r : rows) {
    op_total += r.second.total_ns;
    width = std::max(width, r.first.size());
  }
  std::printf(
      "profile (%d iteration%s; calls and times summed over all iterations):\n",
      iterations,
      iterations == 1 ? "" : "s");
  std::printf(
      "  %-*s %8s %12s %12s %7s\n",
      static_cast<int>(width),
      "operator",
      "calls",
      "total ms",
      "mean us",
      "share");
  for (const auto& r : rows) {
    const OpStats& s = r.second;
    std::printf(
        "  %-*s %8llu %12.3f %12.3f %6.1f%%\n",
        static_cast<int>(width),
        r.first.c_str(),
        static_cast<unsigned long long>(s.calls),
        s.total_ns / 1e6,
        s.calls ? s.total_ns / 1e3 / static_cast<double>(s.calls) : 0.0,
        op_total ? 100.0 * static_cast<double>(s.total_ns) /
                       static_cast<double>(op_total)
                 : 0.0);
  }
  std::printf(
      "  %-*s %8s %12.3f %12s %6.1f%% of execute time (%.3f ms)\n",
      static_cast<int>(width),
      "all operators",
      "",
      op_total / 1e6,
      "",
      execute_total_ns ? 100.0 * static_cast<double>(op_total) /
                             static_cast<double>(execute_total_ns)
                       : 0.0,
      execute_total_ns / 1e6);
}

}  // namespace et_run
