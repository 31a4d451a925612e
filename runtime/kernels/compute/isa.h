// Run-time instruction-set selection for the CPU compute core (private to the kernel library).
//
// Every vectorized routine exists in up to three variants, each compiled in its own translation
// unit with its own -m flags: baseline x86-64 (SSE2, always present), AVX2+FMA and AVX-512
// (F/VL/BW). The variant is picked per call from `active_isa()`, never at compile time, so one
// binary runs on any x86-64 machine (and under valgrind, which lacks AVX-512).
//
// On AArch64 the levels are baseline (portable C++, vectorized by the compiler), NEON
// (hand-written Advanced SIMD kernels; Advanced SIMD is part of every AArch64 CPU) and NEON with
// the dot-product instructions (SDOT/UDOT, Armv8.2 optional, Armv8.4 mandatory), detected from
// the kernel's HWCAP bits. The levels are ordered, so "at most level X" works the same way on
// both architectures.
#pragma once

namespace executorch {
namespace kernels {
namespace compute {

#if defined(__aarch64__)
enum class Isa : int { kBaseline = 0, kNeon = 1, kNeonDot = 2 };
#else
enum class Isa : int { kBaseline = 0, kAvx2 = 1, kAvx512 = 2 };
#endif

// The best level this CPU (and OS, via the CPUID bits GCC checks) supports. Cached.
Isa detected_isa();

// The level routines use: detected_isa(), lowered by ET_KERNELS_ISA=baseline|avx2|avx512 (on
// AArch64: baseline|neon|neondot) in the environment (read once), or by set_isa_override(). A request above detected_isa() is clamped:
// an ISA variant is never called unless the CPU reports it.
Isa active_isa();

// Testing hook: force a level (clamped to detected_isa()) for this process; returns the level now
// in force. clear_isa_override() goes back to the environment/detected level.
Isa set_isa_override(Isa isa);
void clear_isa_override();

#if defined(__x86_64__)
// The variant for `isa` (clamped to detected_isa()) out of one table per x86-64 level, so a
// variant is never chosen for a CPU without it. x86-64 only: other architectures have other
// levels (and their callers switch on them, or have only the baseline variant).
template <class T>
const T& variant_for(Isa isa, const T& baseline, const T& avx2, const T& avx512) {
  int level = static_cast<int>(isa);
  const int best = static_cast<int>(detected_isa());
  if (level > best)
    level = best;
  switch (static_cast<Isa>(level)) {
    case Isa::kAvx512:
      return avx512;
    case Isa::kAvx2:
      return avx2;
    case Isa::kBaseline:
      break;
  }
  return baseline;
}
#endif  // __x86_64__

const char* isa_name(Isa isa);
// Parses "baseline"/"sse2", "avx2", "avx512" (on AArch64: "baseline", "neon", "neondot"/"sdot");
// returns false for anything else, including the other architecture's names.
bool parse_isa(const char* s, Isa* out);

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
