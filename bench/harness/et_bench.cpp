// et_bench: the "our C++ runtime" worker of the benchmark harness (bench/harness/bench.py).
//
// It drives extension::Module / Method directly, with no Python in the process, and speaks the
// harness's line protocol on stdin/stdout so that the harness can interleave it with the other
// runtimes (each in its own process, so peak RSS is per runtime):
//
//   et_bench --pte FILE [--data FILE.ptd] --method NAME
//            [--input t:FILE.npy | i:INT | d:DOUBLE | b:0|1]...
//            [--golden t:FILE.npy | i:INT | d:DOUBLE | b:0|1]... [--atol A] [--rtol R]
//
// At start it loads (file to first method ready: Module + load_method, timed), builds the
// inputs (not timed), runs the first execution (timed) and checks its outputs against the
// goldens, then prints one JSON line. Commands, one per line, each answered by one JSON line:
//   run N      N executions, each timed  -> {"times_ms": [...]}
//   profile N  N executions of a second Module that has an EventTracer attached (the one `run`
//              times has none) -> {"events": [[name, count, ms per execution]...]}
//   rss        -> {"peak_rss_kb": .., "rss_kb": ..}
//   quit
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <time.h>

#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor_ptr.h>
#include <executorch/runtime/core/event_tracer.h>

using executorch::aten::ScalarType;
using executorch::extension::Module;
using executorch::extension::TensorPtr;
using executorch::runtime::EValue;

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// CPU time of the whole process (all threads): on a shared 2-core machine the wall clock also
// counts the time the process was descheduled. The harness reports both.
double cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

// VmHWM / VmRSS of this process, in kB.
long proc_status_kb(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  size_t n = std::strlen(key);
  while (std::getline(f, line)) {
    if (line.compare(0, n, key) == 0 && line.size() > n && line[n] == ':') {
      return std::atol(line.c_str() + n + 1);
    }
  }
  return -1;
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else {
      o += c;
    }
  }
  return o;
}

[[noreturn]] void die(const std::string& msg) {
  std::printf("{\"ok\": false, \"error\": \"%s\"}\n", json_escape(msg).c_str());
  std::fflush(stdout);
  std::exit(0);  // the harness reads the error line; a non-zero code would hide it
}

// ---- .npy (format 1.0-3.0, little-endian, C order)

struct Npy {
  ScalarType type = ScalarType::Float;
  std::vector<executorch::aten::SizesType> shape;
  std::vector<uint8_t> data;
};

bool descr_type(const std::string& d, ScalarType* t) {
  static const std::map<std::string, ScalarType> m = {
      {"<f4", ScalarType::Float}, {"<f8", ScalarType::Double}, {"<f2", ScalarType::Half},
      {"<i8", ScalarType::Long},  {"<i4", ScalarType::Int},    {"<i2", ScalarType::Short},
      {"|i1", ScalarType::Char},  {"|u1", ScalarType::Byte},   {"|b1", ScalarType::Bool}};
  auto it = m.find(d);
  if (it == m.end())
    return false;
  *t = it->second;
  return true;
}

Npy read_npy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    die("cannot open " + path);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    die("not an .npy file: " + path);
  const unsigned char* b = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t hlen, hoff;
  if (b[6] == 1) {
    hlen = b[8] | (b[9] << 8);
    hoff = 10;
  } else {
    hlen = b[8] | (b[9] << 8) | (b[10] << 16) | (static_cast<size_t>(b[11]) << 24);
    hoff = 12;
  }
  std::string h = bytes.substr(hoff, hlen);
  auto field = [&](const char* key) {
    size_t p = h.find(key);
    if (p == std::string::npos)
      die("npy header without " + std::string(key) + ": " + path);
    return h.substr(p + std::strlen(key));
  };
  std::string d = field("'descr':");
  size_t q1 = d.find('\''), q2 = d.find('\'', q1 + 1);
  Npy n;
  if (!descr_type(d.substr(q1 + 1, q2 - q1 - 1), &n.type))
    die("unsupported npy dtype " + d.substr(q1 + 1, q2 - q1 - 1) + ": " + path);
  if (field("'fortran_order':").find("True") < field("'fortran_order':").find(','))
    die("fortran-order npy: " + path);
  std::string s = field("'shape':");
  s = s.substr(s.find('(') + 1, s.find(')') - s.find('(') - 1);
  std::stringstream ss(s);
  std::string tok;
  size_t numel = 1;
  while (std::getline(ss, tok, ',')) {
    if (tok.find_first_not_of(" ") == std::string::npos)
      continue;
    n.shape.push_back(static_cast<executorch::aten::SizesType>(std::atol(tok.c_str())));
    numel *= static_cast<size_t>(n.shape.back());
  }
  size_t nbytes = numel * executorch::runtime::elementSize(n.type);
  if (bytes.size() < hoff + hlen + nbytes)
    die("truncated npy: " + path);
  n.data.assign(bytes.begin() + hoff + hlen, bytes.begin() + hoff + hlen + nbytes);
  return n;
}

// ---- values: t:FILE.npy | i:INT | d:DOUBLE | b:0|1

struct Spec {
  char kind;
  std::string text;
};

Spec parse_spec(const std::string& s) {
  if (s.size() < 2 || s[1] != ':')
    die("bad value spec " + s);
  return {s[0], s.substr(2)};
}

struct OwnedValue {
  EValue value;
  TensorPtr tensor;  // keeps a tensor input alive
};

OwnedValue make_value(const Spec& s) {
  OwnedValue v;
  switch (s.kind) {
    case 't': {
      Npy n = read_npy(s.text);
      v.tensor =
          executorch::extension::make_tensor_ptr(std::move(n.shape), std::move(n.data), n.type);
      v.value = EValue(*v.tensor);
      break;
    }
    case 'i':
      v.value = EValue(static_cast<int64_t>(std::atoll(s.text.c_str())));
      break;
    case 'd':
      v.value = EValue(std::atof(s.text.c_str()));
      break;
    case 'b':
      v.value = EValue(s.text == "1" || s.text == "true" || s.text == "True");
      break;
    default:
      die("bad value spec kind " + std::string(1, s.kind));
  }
  return v;
}

// Compares one output with its golden; returns false on mismatch, updates max_err.
bool compare(const EValue& out, const Spec& g, double atol, double rtol, double* max_err,
             std::string* note) {
  if (g.kind != 't') {
    bool ok = (g.kind == 'i' && out.isInt() && out.toInt() == std::atoll(g.text.c_str())) ||
              (g.kind == 'd' && out.isDouble() && out.toDouble() == std::atof(g.text.c_str())) ||
              (g.kind == 'b' && out.isBool() && out.toBool() == (g.text == "1"));
    if (!ok)
      *note = "prim output differs";
    return ok;
  }
  if (!out.isTensor()) {
    *note = "expected a tensor output";
    return false;
  }
  Npy n = read_npy(g.text);
  const auto& t = out.toTensor();
  if (t.scalar_type() != n.type) {
    *note = "output dtype differs";
    return false;
  }
  std::vector<executorch::aten::SizesType> shape(t.sizes().begin(), t.sizes().end());
  if (shape != n.shape) {
    *note = "output shape differs";
    return false;
  }
  size_t numel = static_cast<size_t>(t.numel());
  if (n.type == ScalarType::Float || n.type == ScalarType::Double) {
    bool ok = true;
    for (size_t i = 0; i < numel; ++i) {
      double a, e;
      if (n.type == ScalarType::Float) {
        a = t.const_data_ptr<float>()[i];
        e = reinterpret_cast<const float*>(n.data.data())[i];
      } else {
        a = t.const_data_ptr<double>()[i];
        e = reinterpret_cast<const double*>(n.data.data())[i];
      }
      if (std::isnan(a) && std::isnan(e))
        continue;
      double err = std::fabs(a - e);
      *max_err = std::max(*max_err, err);
      if (!(err <= atol + rtol * std::fabs(e)))
        ok = false;
    }
    if (!ok)
      *note = "values outside tolerance";
    return ok;
  }
  if (n.type == ScalarType::Half)
    return true;  // not compared here (the kernel tests do)
  bool ok = std::memcmp(t.const_data_ptr(), n.data.data(), n.data.size()) == 0;
  if (!ok)
    *note = "integer/bool values differ";
  return ok;
}

// Aggregates the profiling events the runtime emits, by name. It is attached only to the Module
// that `profile` runs, never to the one whose times `run` reports.
class CollectingTracer : public executorch::runtime::EventTracer {
 public:
  struct Agg {
    long count = 0;
    double ms = 0;
  };
  std::map<std::string, Agg> events;

  void create_event_block(const char*) override {}
  executorch::runtime::EventTracerEntry start_profiling(
      const char* name, executorch::runtime::ChainID chain_id,
      executorch::runtime::DebugHandle debug_handle) override {
    executorch::runtime::EventTracerEntry e{};
    // Only events inside an instruction are operators: the whole "Method::execute" event is
    // left out (event_id 0 ends as a no-op).
    if (current_chain_id() == executorch::runtime::kUnsetChainId)
      return e;
    // The entry carries a pointer to the aggregate (std::map nodes do not move), so the end
    // of the event needs no lookup and nothing grows per event.
    e.event_id = static_cast<int64_t>(reinterpret_cast<intptr_t>(&events[name ? name : "?"]));
    e.chain_id = chain_id;
    e.debug_handle = debug_handle;
    e.start_time = static_cast<decltype(e.start_time)>(now_ns());
    return e;
  }
  executorch::runtime::EventTracerEntry start_profiling_delegate(
      const char* name, executorch::runtime::DelegateDebugIntId id) override {
    executorch::runtime::EventTracerEntry e{};
    e.event_id = static_cast<int64_t>(reinterpret_cast<intptr_t>(&events[name ? name : "?"]));
    e.chain_id = executorch::runtime::kUnsetChainId;
    e.debug_handle = static_cast<executorch::runtime::DebugHandle>(id);
    e.start_time = static_cast<decltype(e.start_time)>(now_ns());
    return e;
  }
  void end_profiling_delegate(executorch::runtime::EventTracerEntry e, const void*,
                              size_t) override {
    end_profiling(e);
  }
  void log_profiling_delegate(const char* name, executorch::runtime::DelegateDebugIntId,
                              et_timestamp_t start, et_timestamp_t end, const void*,
                              size_t) override {
    add(events[name ? name : "?"], static_cast<int64_t>(end - start));
  }
  void end_profiling(executorch::runtime::EventTracerEntry e) override {
    if (e.event_id == 0)
      return;
    add(*reinterpret_cast<Agg*>(static_cast<intptr_t>(e.event_id)),
        now_ns() - static_cast<int64_t>(e.start_time));
  }
  void track_allocation(executorch::runtime::AllocatorID, size_t) override {}
  executorch::runtime::AllocatorID track_allocator(const char*) override {
    return 0;
  }
  executorch::runtime::Result<bool> log_evalue(const EValue&,
                                               executorch::runtime::LoggedEValueType) override {
    return false;
  }

 private:
  static void add(Agg& a, int64_t ns) {
    a.count++;
    a.ms += static_cast<double>(ns) * 1e-6;
  }
  static int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

// The Module under test, or (with a tracer) the separate one that `profile` runs.
std::unique_ptr<Module> open_module(const std::string& pte, const std::string& data,
                                    std::unique_ptr<executorch::runtime::EventTracer> tracer) {
  return data.empty()
             ? std::make_unique<Module>(pte, Module::LoadMode::Mmap, std::move(tracer))
             : std::make_unique<Module>(pte, data, Module::LoadMode::Mmap, std::move(tracer));
}

// Outputs the program leaves unplanned (alloc_graph_output=False) get buffers from the caller,
// as an application would provide them: at their serialized (upper-bound) sizes.
std::vector<TensorPtr> provide_unplanned_outputs(Module& module, const std::string& method) {
  std::vector<TensorPtr> out_buffers;
  auto meta = module.method_meta(method);
  if (!meta.ok())
    return out_buffers;
  for (size_t i = 0; i < meta->num_outputs(); ++i) {
    auto ti = meta->output_tensor_meta(i);
    if (!ti.ok() || ti->is_memory_planned())
      continue;
    std::vector<executorch::aten::SizesType> sizes(ti->sizes().begin(), ti->sizes().end());
    out_buffers.push_back(executorch::extension::make_tensor_ptr(
        std::move(sizes), std::vector<uint8_t>(ti->nbytes()), ti->scalar_type()));
    if (module.set_output(method, EValue(*out_buffers.back()), i) != executorch::runtime::Error::Ok)
      die("set_output failed for output " + std::to_string(i));
  }
  return out_buffers;
}

}  // namespace

int main(int argc, char** argv) {
  std::string pte, data, method = "forward";
  std::vector<Spec> inputs, goldens;
  double atol = 1e-5, rtol = 1e-5;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc)
        die("missing value after " + a);
      return argv[++i];
    };
    if (a == "--pte")
      pte = next();
    else if (a == "--data")
      data = next();
    else if (a == "--method")
      method = next();
    else if (a == "--input")
      inputs.push_back(parse_spec(next()));
    else if (a == "--golden")
      goldens.push_back(parse_spec(next()));
    else if (a == "--atol")
      atol = std::atof(next().c_str());
    else if (a == "--rtol")
      rtol = std::atof(next().c_str());
    else
      die("unknown argument " + a);
  }
  if (pte.empty())
    die("--pte is required");
  const long rss_before = proc_status_kb("VmRSS");

  // Load: file to first method ready. The measured Module has no EventTracer: with one attached
  // every instruction pays two clock reads and a callback, which is what `profile` is for.
  double t0 = now_ms(), c0 = cpu_ms();
  std::unique_ptr<Module> module = open_module(pte, data, nullptr);
  auto err = module->load_method(method);
  double load_ms = now_ms() - t0, load_cpu_ms = cpu_ms() - c0;
  if (err != executorch::runtime::Error::Ok) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "load_method failed: error 0x%x", static_cast<unsigned>(err));
    die(buf);
  }
  // The memory the load-time preparation pass added (folded constants, packed weights). Module
  // marks its Method accessor deprecated in favour of its own calls, none of which reports it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  auto loaded = module->method(method);
#pragma GCC diagnostic pop
  const size_t prepared_bytes = loaded.ok() ? (*loaded)->prepared_constant_bytes() : 0;
  std::vector<TensorPtr> out_buffers = provide_unplanned_outputs(*module, method);

  std::vector<OwnedValue> owned;
  std::vector<EValue> values;
  for (const Spec& s : inputs)
    owned.push_back(make_value(s));
  for (auto& o : owned)
    values.push_back(o.value);

  t0 = now_ms();
  c0 = cpu_ms();
  auto res = module->execute(method, values);
  double first_ms = now_ms() - t0, first_cpu_ms = cpu_ms() - c0;
  if (!res.ok()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "execute failed: error 0x%x",
                  static_cast<unsigned>(res.error()));
    die(buf);
  }
  std::string correct = "null", note;
  double max_err = 0;
  if (!goldens.empty()) {
    bool ok = res->size() == goldens.size();
    if (!ok)
      note = "output count differs";
    for (size_t i = 0; ok && i < goldens.size(); ++i)
      ok = compare((*res)[i], goldens[i], atol, rtol, &max_err, &note);
    correct = ok ? "true" : "false";
  }
  std::printf(
      "{\"ok\": true, \"load_ms\": %.6f, \"load_cpu_ms\": %.6f, \"first_ms\": %.6f, "
      "\"first_cpu_ms\": %.6f, \"correct\": %s, \"max_abs_err\": %.3g, \"note\": \"%s\", "
      "\"rss_before_load_kb\": %ld, \"prepared_bytes\": %zu}\n",
      load_ms, load_cpu_ms, first_ms, first_cpu_ms, correct.c_str(), max_err,
      json_escape(note).c_str(), rss_before, prepared_bytes);
  std::fflush(stdout);

  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream cmd(line);
    std::string op;
    long n = 0;
    cmd >> op >> n;
    if (op == "run") {
      std::string out = "{\"times_ms\": [", cpu = "], \"cpu_ms\": [";
      bool failed = false;
      for (long k = 0; k < n && !failed; ++k) {
        double s = now_ms(), cs = cpu_ms();
        failed = !module->execute(method, values).ok();
        double e = now_ms() - s, ce = cpu_ms() - cs;
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s%.6f", k ? ", " : "", e);
        out += buf;
        std::snprintf(buf, sizeof buf, "%s%.6f", k ? ", " : "", ce);
        cpu += buf;
      }
      if (failed)
        std::printf("{\"error\": \"execute failed during run\"}\n");
      else
        std::printf("%s%s]}\n", out.c_str(), cpu.c_str());
    } else if (op == "profile") {
      // A second Module on the same file, with the tracer attached; one untraced warm-up call.
      auto traced = std::make_unique<CollectingTracer>();
      CollectingTracer* tracer = traced.get();
      std::unique_ptr<Module> profiled = open_module(pte, data, std::move(traced));
      bool failed = profiled->load_method(method) != executorch::runtime::Error::Ok;
      std::vector<TensorPtr> profiled_outputs;
      if (!failed)
        profiled_outputs = provide_unplanned_outputs(*profiled, method);
      failed = failed || !profiled->execute(method, values).ok();
      tracer->events.clear();
      for (long k = 0; k < n && !failed; ++k)
        failed = !profiled->execute(method, values).ok();
      if (failed || n <= 0) {
        std::printf("{\"error\": \"execute failed during profile\"}\n");
      } else {
        std::string out = "{\"events\": [";
        bool first = true;
        for (const auto& kv : tracer->events) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "\", %ld, %.6f]", kv.second.count,
                        kv.second.ms / static_cast<double>(n));
          out += (first ? "[\"" : ", [\"") + json_escape(kv.first) + buf;
          first = false;
        }
        std::printf("%s]}\n", out.c_str());
      }
    } else if (op == "rss") {
      std::printf("{\"peak_rss_kb\": %ld, \"rss_kb\": %ld}\n", proc_status_kb("VmHWM"),
                  proc_status_kb("VmRSS"));
    } else if (op == "quit") {
      break;
    } else {
      std::printf("{\"error\": \"unknown command\"}\n");
    }
    std::fflush(stdout);
  }
  return 0;
}
