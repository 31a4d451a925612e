// Integer NHWC convolution loops for the avx512 level: qconv_nhwc_kernels_impl.inc compiled with
// this file's flags (mk/kernels.mk). Without VNNI the GEMM is the AVX2 tile (AVX-512 F/BW has
// no wider 8-bit multiply-add that avoids saturation); with it, vpdpbusd.
#define QCONV_ISA_NAMESPACE qisa_avx512
#include "qconv_nhwc_kernels_impl.inc"

namespace executorch {
namespace kernels {
namespace compute {

extern const QConvNhwcKernels kQConvNhwcAvx512 = {
    qisa_avx512::gemm_strip_avx2,
    qisa_avx512::depthwise_row,
    qisa_avx512::quantize_u8,
    qisa_avx512::quantize_s16,
    "avx512",
};

extern const QConvNhwcKernels kQConvNhwcAvx512Vnni = {
    qisa_avx512::gemm_strip_vnni,
    qisa_avx512::depthwise_row,
    qisa_avx512::quantize_u8,
    qisa_avx512::quantize_s16,
    "avx512vnni",
};

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
