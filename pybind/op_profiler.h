// A per-operator timer for `load_method(..., profile=True)`: the Method reports each kernel
// and delegate call to its EventTracer; this one sums wall time per operator name.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <executorch/runtime/core/event_tracer.h>

namespace etpy {

class OpProfiler final : public ::executorch::runtime::EventTracer {
 public:
  struct Row {
    std::string name;
    uint64_t calls = 0;
    uint64_t total_ns = 0;
  };

  using Entry = ::executorch::runtime::EventTracerEntry;

  void create_event_block(const char*) override {}
  Entry start_profiling(const char* name, ::executorch::runtime::ChainID chain_id,
                        ::executorch::runtime::DebugHandle debug_handle) override {
    Entry e{};
    // The name pointer lives in method memory for the Method's lifetime: keep it as the id.
    // Events outside any instruction (the whole "Method::execute") are not operators: id 0.
    const bool in_instruction = current_chain_id() != ::executorch::runtime::kUnsetChainId;
    e.event_id = in_instruction ? static_cast<int64_t>(reinterpret_cast<intptr_t>(name)) : 0;
    e.chain_id = chain_id;
    e.debug_handle = debug_handle;
    e.start_time = now_ns();
    return e;
  }
  Entry start_profiling_delegate(const char* name,
                                 ::executorch::runtime::DelegateDebugIntId id) override {
    return start_profiling(name, ::executorch::runtime::kUnsetChainId,
                           static_cast<::executorch::runtime::DebugHandle>(id));
  }
  void end_profiling_delegate(Entry e, const void*, size_t) override {
    end_profiling(e);
  }
  void log_profiling_delegate(const char*, ::executorch::runtime::DelegateDebugIntId,
                              et_timestamp_t, et_timestamp_t, const void*, size_t) override {}
  void end_profiling(Entry e) override {
    if (e.event_id == 0) {
      return;
    }
    const char* name = reinterpret_cast<const char*>(static_cast<intptr_t>(e.event_id));
    Row& row = rows_[name];
    row.calls += 1;
    row.total_ns += now_ns() - e.start_time;
  }
  void track_allocation(::executorch::runtime::AllocatorID, size_t) override {}
  ::executorch::runtime::AllocatorID track_allocator(const char*) override {
    return 0;
  }
  ::executorch::runtime::Result<bool> log_evalue(const ::executorch::runtime::EValue&,
                                                 ::executorch::runtime::LoggedEValueType) override {
    return false;
  }

  void reset() {
    rows_.clear();
  }

  // Rows merged by operator name (several pointers can carry the same name).
  std::vector<Row> rows() const {
    std::unordered_map<std::string, Row> merged;
    for (const auto& kv : rows_) {
      const std::string name = kv.first != nullptr ? kv.first : "?";
      Row& r = merged[name];
      r.name = name;
      r.calls += kv.second.calls;
      r.total_ns += kv.second.total_ns;
    }
    std::vector<Row> out;
    for (auto& kv : merged)
      out.push_back(std::move(kv.second));
    return out;
  }

 private:
  static et_timestamp_t now_ns() {
    return static_cast<et_timestamp_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                           std::chrono::steady_clock::now().time_since_epoch())
                                           .count());
  }
  std::unordered_map<const char*, Row> rows_;
};

}  // namespace etpy
