// et_generate: greedy or top-p text generation with a decoder-only LLM program, on token ids.
//
// The program has the shape upstream's LLM export recipe writes: forward(tokens: int64[1, n],
// input_pos: int64[1]) -> logits ([1, vocab] or [1, n, vocab]) with a KV cache in its planned
// memory, and constant methods describing it (get_max_seq_len, enable_dynamic_shape,
// get_eos_ids, ...). The prompt is prefilled at position 0 (in one call when the token count is
// dynamic), then each new token is decoded at the next position. New tokens go to stdout, the
// timings to stderr. Usage: et_generate --help.
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor_ptr.h>
#include <executorch/runtime/platform/runtime.h>

#include "sampler.h"

using executorch::aten::ScalarType;
using executorch::extension::Module;
using executorch::runtime::EValue;
using executorch::runtime::Result;

namespace {

void usage(const char* argv0) {
  std::printf(
      "usage: %s model.pte --prompt ID[,ID...] [options]\n"
      "  --prompt IDS           prompt token ids, comma separated\n"
      "  --max-new-tokens N     most tokens to generate (default 32)\n"
      "  --temperature T        0 (default) is greedy; else sample from "
      "softmax(logits/T)\n"
      "  --top-p P              sample from the smallest set of tokens with "
      "mass >= P "
      "(default 1)\n"
      "  --seed S               random seed for sampling (default 0)\n"
      "  --stop ID              stop after this token (repeatable; default: "
      "get_eos_ids)\n"
      "  --no-stop              never stop before --max-new-tokens\n"
      "  --method NAME          method to run (default forward)\n"
      "  -h, --help             this text\n",
      argv0);
}

bool parse_i64(const char* s, int64_t* out) {
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0') {
    return false;
  }
  *out = v;
  return true;
}

bool parse_f32(const char* s, float* out) {
  char* end = nullptr;
  float v = std::strtof(s, &end);
  if (end == s || *end != '\0') {
    return false;
  }
  *out = v;
  return true;
}

bool parse_ids(const std::string& s, std::vector<int64_t>* out) {
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    std::string item = s.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    int64_t v = 0;
    if (!parse_i64(item.c_str(), &v)) {
      return false;
    }
    out->push_back(v);
    if (comma == std::string::npos) {
      break;
    }
    start = comma + 1;
  }
  return !out->empty();
}

struct Options {
  std::string model;
  std::string method = "forward";
  std::vector<int64_t> prompt;
  int64_t max_new_tokens = 32;
  et_generate::SamplerConfig sampler;
  std::set<int64_t> stops;
  bool stops_given = false;
};

// Returns 0 on success, 2 on a usage error (printed), -1 for --help.
int parse_args(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "et_generate: %s needs a value\n", name);
        return nullptr;
      }
      return argv[++i];
    };
    const char* v = nullptr;
    int64_t n = 0;
    if (a == "-h" || a == "--help") {
      usage(argv[0]);
      return -1;
    } else if (a == "--prompt") {
      if ((v = value("--prompt")) == nullptr)
        return 2;
      if (!parse_ids(v, &o->prompt)) {
        std::fprintf(
            stderr,
            "et_generate: --prompt '%s' is not a list of token ids\n",
            v);
        return 2;
      }
    } else if (a == "--max-new-tokens") {
      if ((v = value("--max-new-tokens")) == nullptr)
        return 2;
      if (!parse_i64(v, &o->max_new_tokens) || o->max_new_tokens < 0) {
        std::fprintf(
            stderr, "et_generate: --max-new-tokens '%s' is not a count\n", v);
        return 2;
      }
    } else if (a == "--temperature") {
      if ((v = value("--temperature")) == nullptr)
        return 2;
      if (!parse_f32(v, &o->sampler.temperature) ||
          !(o->sampler.temperature >= 0.0f)) {
        std::fprintf(
            stderr,
            "et_generate: --temperature '%s' must be a number >= 0\n",
            v);
        return 2;
      }
    } else if (a == "--top-p") {
      if ((v = value("--top-p")) == nullptr)
        return 2;
      if (!parse_f32(v, &o->sampler.top_p) || !(o->sampler.top_p > 0.0f) ||
          o->sampler.top_p > 1.0f) {
        std::fprintf(
            stderr, "et_generate: --top-p '%s' must be in (0, 1]\n", v);
        return 2;
      }
    } else if (a == "--seed") {
      if ((v = value("--seed")) == nullptr)
        return 2;
      if (!parse_i64(v, &n)) {
        std::fprintf(stderr, "et_generate: --seed '%s' is not an integer\n", v);
        return 2;
      }
      o->sampler.seed = static_cast<uint64_t>(n);
    } else if (a == "--stop") {
      if ((v = value("--stop")) == nullptr)
        return 2;
      if (!parse_i64(v, &n)) {
        std::fprintf(stderr, "et_generate: --stop '%s' is not a token id\n", v);
        return 2;
      }
      o->stops.insert(n);
      o->stops_given = true;
    } else if (a == "--no-stop") {
      o->stops.clear();
      o->stops_given = true;
    } else if (a == "--method") {
      if ((v = value("--method")) == nullptr)
        return 2;
      o->method = v;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(
          stderr, "et_generate: unknown option '%s' (see --help)\n", a.c_str());
      return 2;
    } else if (o->model.empty()) {
      o->model = a;
    } else {
      std::fprintf(
          stderr, "et_generate: more than one model given ('%s')\n", a.c_str());
      return 2;
    }
  }
  if (o->model.empty() || o->prompt.empty()) {
    std::fprintf(
        stderr,
        "et_generate: a model and --prompt are required (see --help)\n");
    return 2;
  }
  return 0;
}

// A constant method's single output, if the program has the method.
bool constant(Module& m, const char* name, EValue* out) {
  auto names = m.method_names();
  if (!names.ok() || names->count(name) == 0) {
    return false;
  }
  auto v = m.get(name);
  if (!v.ok()) {
    return false;
  }
  *out = *v;
  return true;
}

int64_t constant_int(Module& m, const char* name, int64_t fallback) {
  EValue v;
  return constant(m, name, &v) && v.isInt() ? v.toInt() : fallback;
}

bool constant_bool(Module& m, const char* name, bool fallback) {
  EValue v;
  return constant(m, name, &v) && v.isBool() ? v.toBool() : fallback;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  executorch::runtime::runtime_init();
  Options o;
  int rc = parse_args(argc, argv, &o);
  if (rc != 0) {
    return rc < 0 ? 0 : rc;
  }
  Module module(o.model);
  auto meta = module.method_meta(o.method);
  if (!meta.ok()) {
    std::fprintf(
        stderr,
        "et_generate: %s: cannot read method '%s' (error 0x%x)\n",
        o.model.c_str(),
        o.method.c_str(),
        static_cast<unsigned>(meta.error()));
    return 1;
  }
  if (meta->num_inputs() != 2) {
    std::fprintf(
        stderr,
        "et_generate: method '%s' takes %zu input(s); this tool needs a "
        "KV-cache "
        "program taking (tokens: int64[1, n], input_pos: int64[1])\n",
        o.method.c_str(),
        meta->num_inputs());
    return 1;
  }
  auto tokens_meta = meta->input_tensor_meta(0);
  if (!tokens_meta.ok() || tokens_meta->sizes().size() != 2 ||
      tokens_meta->scalar_type() != ScalarType::Long) {
    std::fprintf(
        stderr,
        "et_generate: input 0 of '%s' is not an int64 [1, n] tensor\n",
        o.method.c_str());
    return 1;
  }
  const int64_t token_capacity = tokens_meta->sizes()[1];
  const bool dynamic = constant_bool(module, "enable_dynamic_shape", false);
  const int64_t max_seq_len =
      constant_int(module, "get_max_seq_len", token_capacity);
  if (!o.stops_given) {
    EValue eos;
    if (constant(module, "get_eos_ids", &eos) && eos.isInt()) {
      o.stops.insert(eos.toInt());
    }
  }
  if (static_cast<int64_t>(o.prompt.size()) > max_seq_len) {
    std::fprintf(
        stderr,
        "et_generate: the prompt has %zu tokens; the model holds at most "
        "%lld\n",
        o.prompt.size(),
        static_cast<long long>(max_seq_len));
    return 1;
  }

  // Runs forward on `ids` at `pos` and leaves the last position's logits in `logits`.
  std::vector<float> logits;
  auto step = [&](std::vector<int64_t> ids, int64_t pos) -> bool {
    const auto n = static_cast<executorch::aten::SizesType>(ids.size());
    auto tokens = executorch::extension::make_tensor_ptr(
        {1, n}, ids.data(), ScalarType::Long);
    int64_t pos_value = pos;
    auto start = executorch::extension::make_tensor_ptr(
        {1}, &pos_value, ScalarType::Long);
    auto out = module.execute(o.method, {EValue(*tokens), EValue(*start)});
    if (!out.ok() || out->empty() || !(*out)[0].isTensor()) {
      std::fprintf(
          stderr,
          "et_generate: %s at position %lld failed (error 0x%x)\n",
          o.method.c_str(),
          static_cast<long long>(pos),
          out.ok() ? 0u : static_cast<unsigned>(out.error()));
      return false;
    }
    const auto& t = (*out)[0].toTensor();
    if (t.scalar_type() != ScalarType::Float || t.dim() < 1 ||
        t.size(t.dim() - 1) <= 0) {
      std::fprintf(
          stderr,
          "et_generate: the logits are not a float tensor [.., vocab]\n");
      return false;
    }
    const int64_t vocab = t.size(t.dim() - 1);
    const float* last = t.const_data_ptr<float>() + (t.numel() - vocab);
    logits.assign(last, last + vocab);
    return true;
  };

  auto t0 = std::chrono::steady_clock::now();
  bool ok = true;
  if (dynamic && static_cast<int64_t>(o.prompt.size()) <= token_capacity) {
    ok = step(o.prompt, 0);
  } else {
    for (size_t i = 0; ok && i < o.prompt.size(); ++i) {
      ok = step({o.prompt[i]}, static_cast<int64_t>(i));
    }
  }
  if (!ok) {
    return 1;
  }
  const double prefill_s = seconds_since(t0);

  et_generate::Sampler sampler(o.sampler);
  std::vector<int64_t> generated;
  const char* reason = "max_new_tokens";
  t0 = std::chrono::steady_clock::now();
  while (static_cast<int64_t>(generated.size()) < o.max_new_tokens) {
    const int64_t tok =
        sampler.sample(logits.data(), static_cast<int64_t>(logits.size()));
    generated.push_back(tok);
    std::printf(
        "%s%lld", generated.size() > 1 ? " " : "", static_cast<long long>(tok));
    std::fflush(stdout);
    if (o.stops.count(tok) != 0) {
      reason = "stop_token";
      break;
    }
    if (static_cast<int64_t>(generated.size()) == o.max_new_tokens) {
      break;
    }
    const int64_t pos =
        static_cast<int64_t>(o.prompt.size() + generated.size()) - 1;
    if (pos >= max_seq_len) {
      reason = "max_seq_len";
      break;
    }
    if (!step({tok}, pos)) {
      return 1;
    }
  }
  const double decode_s = seconds_since(t0);
  std::printf("\n");
  const size_t decoded = generated.empty() ? 0 : generated.size() - 1;
  std::fprintf(
      stderr,
      "prefill: %zu tokens in %.3f ms (%.1f tokens/s)\n"
      "decode:  %zu tokens in %.3f ms (%.1f tokens/s)\n"
      "stop:    %s\n",
      o.prompt.size(),
      prefill_s * 1e3,
      prefill_s > 0 ? o.prompt.size() / prefill_s : 0.0,
      decoded,
      decode_s * 1e3,
      decode_s > 0 ? decoded / decode_s : 0.0,
      reason);
  return 0;
}
