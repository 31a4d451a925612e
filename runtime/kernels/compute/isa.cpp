#include "isa.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
// The bit is ABI (Linux 4.15+); spelled out for C library headers older than that.
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1ul << 20)
#endif
#endif

namespace executorch {
namespace kernels {
namespace compute {
namespace {

Isa probe_cpu() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  // AVX-512 is used only with F+VL+BW together (the micro-kernels use masked and 256-bit EVEX
  // forms); GCC's cpu_supports also checks that the OS saves the ZMM state (XGETBV).
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx2") &&
      __builtin_cpu_supports("fma")) {
    return Isa::kAvx512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return Isa::kAvx2;
#elif defined(__aarch64__)
#if defined(__linux__)
  // The kernel reports the dot-product extension (SDOT/UDOT) in AT_HWCAP; it also means the
  // OS handles it, like the XGETBV check on x86.
  if ((getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0)
    return Isa::kNeonDot;
#endif
  return Isa::kNeon;
#endif
  return Isa::kBaseline;
}

Isa min_isa(Isa a, Isa b) {
  return static_cast<int>(a) < static_cast<int>(b) ? a : b;
}

Isa env_isa() {
  Isa isa = detected_isa();
  const char* env = std::getenv("ET_KERNELS_ISA");
  Isa wanted;
  if (env != nullptr && *env != '\0' && parse_isa(env, &wanted))
    isa = min_isa(isa, wanted);
  return isa;
}

// -1: no override. Atomic so a test thread switching levels never tears a read elsewhere.
std::atomic<int> g_override{-1};

}  // namespace

Isa detected_isa() {
  static const Isa isa = probe_cpu();
  return isa;
}

Isa active_isa() {
  int o = g_override.load(std::memory_order_relaxed);
  if (o >= 0)
    return static_cast<Isa>(o);
  static const Isa isa = env_isa();
  return isa;
}

Isa set_isa_override(Isa isa) {
  Isa clamped = min_isa(isa, detected_isa());
  g_override.store(static_cast<int>(clamped), std::memory_order_relaxed);
  return clamped;
}

void clear_isa_override() {
  g_override.store(-1, std::memory_order_relaxed);
}

#if defined(__aarch64__)
const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::kNeonDot:
      return "neondot";
    case Isa::kNeon:
      return "neon";
    case Isa::kBaseline:
      break;
  }
  return "baseline";
}

bool parse_isa(const char* s, Isa* out) {
  if (std::strcmp(s, "baseline") == 0) {
    *out = Isa::kBaseline;
  } else if (std::strcmp(s, "neon") == 0) {
    *out = Isa::kNeon;
  } else if (std::strcmp(s, "neondot") == 0 || std::strcmp(s, "sdot") == 0) {
    *out = Isa::kNeonDot;
  } else {
    return false;
  }
  return true;
}
#else
const char* isa_name(Isa isa) {
  switch (isa) {
#if defined(__x86_64__)
    case Isa::kAvx512:
      return "avx512";
    case Isa::kAvx2:
      return "avx2";
#endif
    case Isa::kBaseline:
      break;
  }
  return "baseline";
}

bool parse_isa(const char* s, Isa* out) {
  if (std::strcmp(s, "baseline") == 0) {
    *out = Isa::kBaseline;
#if defined(__x86_64__)
  } else if (std::strcmp(s, "sse2") == 0) {
    *out = Isa::kBaseline;
  } else if (std::strcmp(s, "avx2") == 0) {
    *out = Isa::kAvx2;
  } else if (std::strcmp(s, "avx512") == 0) {
    *out = Isa::kAvx512;
#endif
  } else {
    return false;
  }
  return true;
}
#endif

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
