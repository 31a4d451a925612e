// Pooling rows for the baseline level: pool_kernels_impl.inc compiled with this file's flags
// (mk/kernels.mk), 4 float lanes, in its own namespace.
#define POOL_ISA_NAMESPACE isa_baseline
#define POOL_LANES 4
#define POOL_TABLE_NAME kPoolBaseline
#define POOL_TABLE_LABEL "baseline"
#include "pool_kernels_impl.inc"
