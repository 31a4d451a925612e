// Direct convolution loops for the avx512 level: conv_kernels_impl.inc compiled with this file's
// flags (see mk/test-compute.mk), in its own namespace.
#define CONV_ISA_NAMESPACE isa_avx512
#define CONV_TABLE_NAME kConvAvx512
#include "conv_kernels_impl.inc"
