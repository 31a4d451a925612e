// Vector math for the baseline level: vmath_kernels_impl.inc compiled with this file's flags
// (mk/kernels.mk), 4 float lanes, in its own namespace.
#define VMATH_ISA_NAMESPACE isa_baseline
#define VMATH_LANES 4
#define VMATH_TABLE_NAME kVmathBaseline
#define VMATH_TABLE_LABEL "baseline"
#include "vmath_kernels_impl.inc"
