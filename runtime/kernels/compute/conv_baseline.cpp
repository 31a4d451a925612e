// Direct convolution loops for the baseline level: conv_kernels_impl.inc compiled with this file's
// flags (see mk/test-compute.mk), in its own namespace.
#define CONV_ISA_NAMESPACE isa_baseline
#define CONV_TABLE_NAME kConvBaseline
#include "conv_kernels_impl.inc"
