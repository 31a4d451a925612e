#include "args.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace et_run {

void print_usage(const char* argv0) {
  std::printf(
      "usage: %s model.pte [options]\n"
      "       %s --bundled model.bpte [--rtol X] [--atol X] [--method NAME]\n"
      "  --method NAME          method to run (default: forward, else the "
      "first)\n"
      "  --input FILE.npy       input value, once per method input, in order\n"
      "                         (without --input every input is ones)\n"
      "  --data FILE.ptd        external constant data\n"
      "  --iterations N         timed executions (median reported; default 1)\n"
      "  --warmup N             untimed executions first (default 0)\n"
      "  --profile              per-operator time table\n"
      "  --no-prepare           run constant-only instructions at every "
      "execute\n"
      "                         instead of once at load\n"
      "  --verification minimal|full   program verification level (default "
      "minimal)\n"
      "  --max-memory BYTES     most memory the method's planned buffers, "
      "unplanned outputs\n"
      "                         and inputs may take together; a K, M, G or T "
      "suffix\n"
      "                         multiplies by 1024^n (default: half of "
      "physical memory,\n"
      "                         %s here)\n"
      "  --output-dir DIR       write each tensor output as "
      "DIR/output_<i>.npy\n"
      "  --top K                print the K largest entries of each output\n"
      "  --values N             leading values printed per output (default 8)\n"
      "  --etdump FILE          record an ETDump (for executorch.devtools."
      "Inspector) of\n"
      "                         the timed iterations into FILE\n"
      "  --debug-buffer-size N  with --etdump: also log every operator output "
      "into an\n"
      "                         N-byte debug buffer (K, M, G suffixes), "
      "written to FILE.debug\n"
      "  --bundled FILE.bpte    run every test case of every method (or of\n"
      "                         --method) of a BundledProgram, print "
      "pass/fail\n"
      "                         per case; exit 1 if any case fails\n"
      "  --rtol X, --atol X     tolerance of --bundled: |actual - expected| "
      "<=\n"
      "                         atol + rtol * |actual| (default 1e-3, 1e-5)\n"
      "  -h, --help             this text\n",
      argv0,
      argv0,
      std::to_string(executorch::extension::default_max_memory()).c_str());
}

namespace {

bool parse_int(const char* s, int min, int* out) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < min || v > 1000000000L) {
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

// A byte count: decimal digits, optionally followed by one of K, M, G, T (powers of 1024).
bool parse_bytes(const char* s, uint64_t* out) {
  if (*s < '0' || *s > '9') {
    return false;
  }
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (errno != 0) {
    return false;
  }
  unsigned shift = 0;
  if (*end != '\0') {
    const char* units = "KMGT";
    const char* u = std::strchr(units, *end);
    if (u == nullptr || end[1] != '\0') {
      return false;
    }
    shift = 10 * static_cast<unsigned>(u - units + 1);
  }
  const uint64_t value = v;
  if (shift != 0 && value > (UINT64_MAX >> shift)) {
    return false;
  }
  *out = value << shift;
  return true;
}

// A finite tolerance >= 0.
bool parse_tolerance(const char* s, double* out) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s, &end);
  if (end == s || *end != '\0' || errno != 0 || !(v >= 0) || v > 1e300) {
    return false;
  }
  *out = v;
  return true;
}

}  // namespace

int parse_args(int argc, char** argv, Options* o, bool* exit_now) {
  *exit_now = false;
  auto fail = [&](const std::string& msg) {
    std::fprintf(stderr, "et_run: %s (see --help)\n", msg.c_str());
    *exit_now = true;
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char** v) {
      if (i + 1 >= argc) {
        return false;
      }
      *v = argv[++i];
      return true;
    };
    const char* v = nullptr;
    if (a == "-h" || a == "--help") {
      print_usage(argv[0]);
      *exit_now = true;
      return 0;
    } else if (a == "--profile") {
      o->profile = true;
    } else if (a == "--no-prepare") {
      o->prepare = false;
    } else if (
        a == "--method" || a == "--input" || a == "--data" ||
        a == "--iterations" || a == "--warmup" || a == "--verification" ||
        a == "--output-dir" || a == "--top" || a == "--values" ||
        a == "--max-memory" || a == "--bundled" || a == "--rtol" ||
        a == "--atol") {
      if (!value(&v)) {
        return fail(a + " needs a value");
      }
      if (a == "--method") {
        o->method = v;
      } else if (a == "--input") {
        o->inputs.push_back(v);
      } else if (a == "--data") {
        o->data_path = v;
      } else if (a == "--bundled") {
        o->bundled = v;
      } else if (a == "--rtol" || a == "--atol") {
        if (!parse_tolerance(v, a == "--rtol" ? &o->rtol : &o->atol)) {
          return fail(a + ": '" + v + "' is not a number >= 0");
        }
      } else if (a == "--output-dir") {
        o->output_dir = v;
      } else if (a == "--iterations") {
        if (!parse_int(v, 1, &o->iterations)) {
          return fail(
              std::string("--iterations: '") + v + "' is not a count >= 1");
        }
      } else if (a == "--warmup") {
        if (!parse_int(v, 0, &o->warmup)) {
          return fail(std::string("--warmup: '") + v + "' is not a count >= 0");
        }
      } else if (a == "--max-memory") {
        if (!parse_bytes(v, &o->max_memory)) {
          return fail(
              std::string("--max-memory: '") + v +
              "' is not a byte count (digits, optionally K, M, G or T)");
        }
      } else if (a == "--top") {
        if (!parse_int(v, 0, &o->top)) {
          return fail(std::string("--top: '") + v + "' is not a count >= 0");
        }
      } else if (a == "--values") {
        if (!parse_int(v, 0, &o->values)) {
          return fail(std::string("--values: '") + v + "' is not a count >= 0");
        }
      } else {  // --verification
        const std::string lv = v;
        if (lv == "minimal") {
          o->full_verification = false;
        } else if (lv == "full" || lv == "internal-consistency") {
          o->full_verification = true;
        } else {
          return fail("--verification: '" + lv + "' is not minimal or full");
        }
      }
    } else if (a == "--etdump" || a == "--debug-buffer-size") {
      if (!value(&v)) {
        return fail(a + " needs a value");
      }
      if (a == "--etdump") {
        o->etdump_path = v;
      } else if (!parse_bytes(v, &o->debug_buffer_size)) {
        return fail(
            std::string("--debug-buffer-size: '") + v +
            "' is not a byte count (digits, optionally K, M, G or T)");
      }
    } else if (a.size() > 1 && a[0] == '-') {
      return fail("unknown option '" + a + "'");
    } else if (o->model.empty()) {
      o->model = a;
    } else {
      return fail("more than one model file ('" + o->model + "', '" + a + "')");
    }
  }
  if (!o->bundled.empty() && !o->model.empty()) {
    return fail("--bundled runs its own program; no model file is needed");
  }
  if (o->model.empty() && o->bundled.empty()) {
    return fail("no model file given");
  }
  if (o->debug_buffer_size > 0 && o->etdump_path.empty()) {
    return fail("--debug-buffer-size needs --etdump");
  }
  if (o->profile && !o->etdump_path.empty()) {
    // A Method reports to one tracer; the ETDump holds the same timings.
    return fail("--profile and --etdump cannot be combined; run twice");
  }
  return 0;
}

}  // namespace et_run
