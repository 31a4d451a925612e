// Integer NHWC convolution loops for the baseline level: qconv_nhwc_kernels_impl.inc compiled
// with this file's flags (mk/kernels.mk), its portable loops only.
#define QCONV_ISA_NAMESPACE qisa_baseline
#include "qconv_nhwc_kernels_impl.inc"

namespace executorch {
namespace kernels {
namespace compute {

extern const QConvNhwcKernels kQConvNhwcBaseline = {
    qisa_baseline::gemm_strip_portable,
    qisa_baseline::depthwise_row,
    qisa_baseline::quantize_u8,
    qisa_baseline::quantize_s16,
    "baseline",
};

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
