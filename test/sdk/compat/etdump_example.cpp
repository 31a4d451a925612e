// Consumer program in the style of upstream's ETDump documentation (etdump.md,
// executor_runner.cpp): a Module owning an ETDumpGen, a debug buffer, the dump
// written to a file and freed; plus a tracer of its own written against
// upstream's EventTracer signatures. Run as: etdump_example identity.pte OUT.etdp
#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/core/event_tracer_hooks_delegate.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

using executorch::etdump::ETDumpGen;
using executorch::etdump::ETDumpResult;
using executorch::extension::Module;
using executorch::runtime::EventTracerDebugLogLevel;
namespace runtime = ::executorch::runtime;

#define CHECK(cond)                                                           \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::fprintf(stderr, "check failed at line %d: %s\n", __LINE__, #cond); \
      return 1;                                                               \
    }                                                                         \
  } while (0)

// A user tracer with upstream's override signatures (only what it needs; the
// delegate intermediate-output hooks keep their defaults).
class CountingTracer : public runtime::EventTracer {
 public:
  int blocks = 0;
  void create_event_block(const char*) override {
    ++blocks;
  }
  runtime::EventTracerEntry start_profiling(const char*, runtime::ChainID,
                                            runtime::DebugHandle) override {
    return runtime::EventTracerEntry();
  }
  void end_profiling(runtime::EventTracerEntry) override {}
  runtime::EventTracerEntry start_profiling_delegate(const char*,
                                                     runtime::DelegateDebugIntId) override {
    return runtime::EventTracerEntry();
  }
  void end_profiling_delegate(runtime::EventTracerEntry, const void*, size_t) override {}
  void log_profiling_delegate(const char*, runtime::DelegateDebugIntId, et_timestamp_t,
                              et_timestamp_t, const void*, size_t) override {}
  void track_allocation(runtime::AllocatorID, size_t) override {}
  runtime::AllocatorID track_allocator(const char*) override {
    return 0;
  }
  runtime::Result<bool> log_evalue(const runtime::EValue&, runtime::LoggedEValueType) override {
    return true;
  }
};

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s model.pte out.etdp\n", argv[0]);
    return 2;
  }
  std::vector<uint8_t> debug_buffer(1 << 16);
  auto etdump_gen = std::make_unique<ETDumpGen>();
  CHECK(
      etdump_gen->set_debug_buffer(runtime::Span<uint8_t>(debug_buffer.data(), debug_buffer.size()))
          .ok());
  etdump_gen->set_event_tracer_debug_level(EventTracerDebugLogLevel::kProgramOutputs);
  Module module(argv[1], Module::LoadMode::MmapUseMlock, std::move(etdump_gen));

  auto x = executorch::extension::ones({2, 3});
  auto y = executorch::extension::ones({4});
  CHECK(module.forward({x, y}).ok());
  CHECK(module.forward({x, y}).ok());

  ETDumpGen* etdump = static_cast<ETDumpGen*>(module.event_tracer());
  CHECK(etdump->get_num_blocks() == 2);
  ETDumpResult result = etdump->get_etdump_data();
  CHECK(result.buf != nullptr && result.size > 12);
  CHECK(std::memcmp(static_cast<const char*>(result.buf) + 8, "ED00", 4) == 0);
  FILE* f = std::fopen(argv[2], "wb");
  CHECK(f != nullptr);
  CHECK(std::fwrite(result.buf, 1, result.size, f) == result.size);
  std::fclose(f);
  std::free(result.buf);

  // The upstream alias and a tracer of one's own through the low-level hooks.
  torch::executor::etdump_result alias{nullptr, 0};
  (void)alias;
  CountingTracer counting;
  runtime::event_tracer_end_profiling_delegate(
      &counting, runtime::event_tracer_start_profiling_delegate(&counting, "node", -1));
  Module plain(argv[1], Module::LoadMode::File, std::make_unique<CountingTracer>());
  CHECK(plain.forward({x, y}).ok());
  CHECK(static_cast<CountingTracer*>(plain.event_tracer())->blocks == 1);
  std::printf("etdump_example: %zu byte ETDump\n", result.size);
  return 0;
}
