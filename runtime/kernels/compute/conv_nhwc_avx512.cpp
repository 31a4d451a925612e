// NHWC convolution loops for the avx512 level: conv_nhwc_kernels_impl.inc compiled with this
// file's flags (mk/kernels.mk), in its own namespace.
#define CONV_NHWC_ISA_NAMESPACE isa_avx512
#define CONV_NHWC_TABLE_NAME kConvNhwcAvx512
#include "conv_nhwc_kernels_impl.inc"
