// NHWC convolution loops for the avx2 level: conv_nhwc_kernels_impl.inc compiled with this
// file's flags (mk/kernels.mk), in its own namespace.
#define CONV_NHWC_ISA_NAMESPACE isa_avx2
#define CONV_NHWC_TABLE_NAME kConvNhwcAvx2
#include "conv_nhwc_kernels_impl.inc"
