// Run-time instruction-set selection for the CPU compute core (private to the kernel library).
//
// Every vectorized routine exists in a baseline variant for the target and, on x86-64, in ISA
// variants, each compiled in its own translation unit with its own -m flags: baseline x86-64
// (SSE2, always present), AVX2+FMA and AVX-512 (F/VL/BW). The variant is picked per call from
// `active_isa()`, never at compile time, so one binary runs on any x86-64 machine (and under
// valgrind, which lacks AVX-512). The levels of another architecture do not exist in a build
// (mk/kernels.mk compiles only the target's variants): an aarch64 build has the baseline
// level only, which its compiler vectorizes with NEON.
#pragma once

namespace executorch {
namespace kernels {
namespace compute {

// Levels are ordered: a higher one may be used only where every lower one could be.
enum class Isa : int {
  kBaseline = 0,
#if defined(__x86_64__)
  kAvx2 = 1,
  kAvx512 = 2,
#endif
};

// The best level this CPU (and OS, via the CPUID bits GCC checks) supports. Cached.
Isa detected_isa();

// The level routines use: detected_isa(), lowered by ET_KERNELS_ISA in the environment (read
// once; baseline on every target, avx2|avx512 on x86-64), or by set_isa_override(). A request above detected_isa() is clamped:
// an ISA variant is never called unless the CPU reports it.
Isa active_isa();

// Testing hook: force a level (clamped to detected_isa()) for this process; returns the level now
// in force. clear_isa_override() goes back to the environment/detected level.
Isa set_isa_override(Isa isa);
void clear_isa_override();

const char* isa_name(Isa isa);
// Parses "baseline" (and, on x86-64, "sse2", "avx2", "avx512"); returns false for anything else,
// a level of another architecture included.
bool parse_isa(const char* s, Isa* out);

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
