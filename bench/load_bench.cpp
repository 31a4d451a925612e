// Load time of a ~20 MB .pte through MmapDataLoader, and proof that constants are used in
// place (make bench-runtime).
//
// Generates (flatbuffers builder on our schema, extended header, constant segment) a program
// whose method outputs K constant float tensors totalling ~20 MB, writes it to a temporary
// file, then in R rounds: MmapDataLoader::from (NoMlock) + Program::load, then load_method,
// each timed; the medians are reported. After each load it checks that every constant
// tensor's data pointer lies inside a mapping of the file (/proc/self/maps) and that the
// process RSS did not grow by the size of the constants.
// Usage: load_bench [--quick] [--mb N] [--tensors K] [--rounds R] [--keep FILE]
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <flatbuffers/flatbuffers.h>

#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include <executorch_schema/program_generated.h>

#include "pte_gen.h"

namespace fb = ::executorch_flatbuffer;
using namespace executorch::runtime;
using executorch::extension::MmapDataLoader;

namespace {

std::vector<uint8_t> make_pte(size_t total_bytes, int n_tensors) {
  const size_t per = total_bytes / size_t(n_tensors) / 4 * 4;  // bytes per tensor
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::EValue>> values;
  std::vector<uint64_t> offsets = {0};  // entry 0 reserved
  std::vector<uint8_t> segment;
  std::vector<int32_t> outputs;
  for (int t = 0; t < n_tensors; ++t) {
    std::vector<int32_t> sizes = {int32_t(per / 4)};
    std::vector<uint8_t> order = {0};
    auto tensor =
        fb::CreateTensorDirect(b, fb::ScalarType::FLOAT, 0, &sizes, &order, false, uint32_t(t + 1));
    values.push_back(fb::CreateEValue(b, fb::KernelTypes::Tensor, tensor.Union()));
    outputs.push_back(t);
    offsets.push_back(segment.size());
    const size_t start = segment.size();
    segment.resize(start + per);
    float* f = reinterpret_cast<float*>(segment.data() + start);
    for (size_t i = 0; i < per / 4; ++i) {
      f[i] = float(t) + float(i % 1000) * 1e-3f;
    }
    segment.resize((segment.size() + 63) / 64 * 64, 0);
  }
  std::vector<int32_t> empty;
  std::vector<flatbuffers::Offset<fb::Instruction>> instrs;
  std::vector<flatbuffers::Offset<fb::Chain>> chains = {
      fb::CreateChainDirect(b, &empty, &empty, &instrs)};
  std::vector<flatbuffers::Offset<fb::Operator>> ops;
  std::vector<flatbuffers::Offset<fb::BackendDelegate>> delegates;
  std::vector<int64_t> buffer_sizes = {0};
  std::vector<int32_t> inputs;
  auto plan = fb::CreateExecutionPlanDirect(b, "forward", 0, &values, &inputs, &outputs, &chains,
                                            &ops, &delegates, &buffer_sizes);
  std::vector<flatbuffers::Offset<fb::ExecutionPlan>> plans = {plan};
  std::vector<flatbuffers::Offset<fb::DataSegment>> segs = {
      fb::CreateDataSegment(b, 0, segment.size())};
  auto constant_segment = fb::CreateSubsegmentOffsetsDirect(b, 0, &offsets);
  auto prog = fb::CreateProgramDirect(b, 0, &plans, nullptr, nullptr, &segs, constant_segment);
  fb::FinishProgramBuffer(b, prog);
  std::vector<uint8_t> flat(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  return bench::with_segments(flat, segment);
}

long rss_kb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      return std::atol(line.c_str() + 6);
    }
  }
  return -1;
}

/// True if [p, p+n) lies inside one mapping of `path` (by /proc/self/maps).
bool in_file_mapping(const void* p, size_t n, const std::string& path) {
  std::ifstream f("/proc/self/maps");
  std::string line;
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  while (std::getline(f, line)) {
    if (line.size() < path.size() ||
        line.compare(line.size() - path.size(), path.size(), path) != 0) {
      continue;
    }
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2 && a >= lo && a + n <= hi) {
      return true;
    }
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  size_t mb = 20;
  int n_tensors = 64;
  int rounds = 21;
  std::string keep;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      rounds = 5;
    } else if (!std::strcmp(argv[i], "--mb") && i + 1 < argc) {
      mb = size_t(std::atol(argv[++i]));
    } else if (!std::strcmp(argv[i], "--tensors") && i + 1 < argc) {
      n_tensors = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--keep") && i + 1 < argc) {
      keep = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: %s [--quick] [--mb N] [--tensors K] [--rounds R] [--keep FILE]\n",
                   argv[0]);
      return 2;
    }
  }
  runtime_init();
  std::string path = keep;
  if (path.empty()) {
    char tmpl[] = "/tmp/load_bench_XXXXXX";
    const int fd = mkstemp(tmpl);
    if (fd < 0) {
      std::perror("mkstemp");
      return 1;
    }
    close(fd);
    path = tmpl;
  }
  const size_t total = mb << 20;
  {
    const std::vector<uint8_t> pte = make_pte(total, n_tensors);
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(pte.data()), std::streamsize(pte.size()));
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
    std::printf("load_bench: %s, %.1f MB, %d constant tensors in the constant segment\n",
                path.c_str(), double(pte.size()) / (1 << 20), n_tensors);
  }

  std::vector<double> t_program, t_method, t_total, rss_growth;
  bool all_in_place = true;
  int failures = 0;
  for (int r = 0; r < rounds; ++r) {
    const long rss0 = rss_kb();
    const uint64_t t0 = bench::wall_ns();
    Result<MmapDataLoader> loader =
        MmapDataLoader::from(path.c_str(), MmapDataLoader::MlockConfig::NoMlock);
    if (!loader.ok()) {
      std::fprintf(stderr, "MmapDataLoader::from: %s\n", to_string(loader.error()));
      return 1;
    }
    Result<Program> program = Program::load(&loader.get());
    const uint64_t t1 = bench::wall_ns();
    if (!program.ok()) {
      std::fprintf(stderr, "Program::load: %s\n", to_string(program.error()));
      return 1;
    }
    executorch::extension::MallocMemoryAllocator method_alloc;
    HierarchicalAllocator planned({});
    MemoryManager mm(&method_alloc, &planned);
    Result<Method> method = program->load_method("forward", &mm);
    const uint64_t t2 = bench::wall_ns();
    if (!method.ok()) {
      std::fprintf(stderr, "load_method: %s\n", to_string(method.error()));
      return 1;
    }
    const long rss1 = rss_kb();
    // Every constant must point into the file mapping: no copy was made.
    for (size_t o = 0; o < method->outputs_size(); ++o) {
      const auto& t = method->get_output(o).toTensor();
      if (!in_file_mapping(t.const_data_ptr(), t.nbytes(), path)) {
        all_in_place = false;
        ++failures;
      }
    }
    if (r == 0) {
      // Data sanity: a value read through the mapping (faults one page in).
      const float v = method->get_output(3).toTensor().const_data_ptr<float>()[7];
      std::printf("  check: output 3 [7] = %.3f (expected 3.007)\n", double(v));
    }
    t_program.push_back(double(t1 - t0));
    t_method.push_back(double(t2 - t1));
    t_total.push_back(double(t2 - t0));
    rss_growth.push_back(double(rss1 - rss0));
  }
  std::printf("  %d rounds, medians:\n", rounds);
  std::printf("    mmap + Program::load   %9.1f us\n", bench::median(t_program) / 1e3);
  std::printf("    load_method            %9.1f us\n", bench::median(t_method) / 1e3);
  std::printf("    total                  %9.1f us\n", bench::median(t_total) / 1e3);
  std::printf("    RSS growth during load %9.0f KB (constants: %zu KB)\n",
              bench::median(rss_growth), total >> 10);
  std::printf("  constants used in place (pointers inside the file mapping): %s",
              all_in_place ? "yes\n" : "NO\n");
  if (!all_in_place) {
    std::printf("  (%d tensor pointers outside the mapping)\n", failures);
  }
  const bool rss_ok = bench::median(rss_growth) < double(total >> 10) / 4;
  std::printf("  RSS did not grow by the constant size: %s\n", rss_ok ? "yes" : "NO");
  if (keep.empty()) {
    std::remove(path.c_str());
  }
  return all_in_place && rss_ok ? 0 : 1;
}
