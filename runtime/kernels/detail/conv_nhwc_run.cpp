#include <executorch/runtime/kernels/detail/conv_nhwc_run.h>

#include <cstring>
#include <memory>
#include <new>

namespace executorch {
namespace kernels {
namespace detail {
namespace {

// What a blob was built for; a blob fits a call only if every field matches.
struct BlobHeader {
  const float* bias;
  int64_t out_channels, group_in_channels, kernel_h, kernel_w, groups;
  int64_t depthwise;
};
constexpr size_t kBlobHeaderBytes = 64;  // keeps the payload 64-byte aligned
static_assert(sizeof(BlobHeader) <= kBlobHeaderBytes, "header fits its slot");

bool is_depthwise(const compute::ConvNhwcParams& p) {
  return p.groups > 1 && p.groups == p.in_channels;
}

BlobHeader header_for(const compute::ConvNhwcParams& p, const float* bias) {
  BlobHeader h;
  std::memset(&h, 0, sizeof h);
  h.bias = bias;
  h.out_channels = p.out_channels;
  h.group_in_channels = p.in_channels / p.groups;
  h.kernel_h = p.kernel_h;
  h.kernel_w = p.kernel_w;
  h.groups = p.groups;
  h.depthwise = is_depthwise(p) ? 1 : 0;
  return h;
}

// Element (oc, r, s, ci) of the weight, in either source layout.
float weight_at(const compute::ConvNhwcParams& p, const NhwcFilterSource& src, int64_t oc,
                int64_t r, int64_t s, int64_t ci) {
  const int64_t gic = p.in_channels / p.groups;
  const int64_t i = src.ohwi ? ((oc * p.kernel_h + r) * p.kernel_w + s) * gic + ci
                             : ((oc * gic + ci) * p.kernel_h + r) * p.kernel_w + s;
  return src.data[i];
}

}  // namespace

size_t conv_nhwc_filter_blob_size(const compute::ConvNhwcParams& p) {
  if (!compute::conv2d_nhwc_params_valid(p)) {
    return 0;
  }
  if (is_depthwise(p)) {
    return kBlobHeaderBytes +
           static_cast<size_t>(p.kernel_h * p.kernel_w * p.out_channels) * sizeof(float);
  }
  const size_t packed = compute::conv2d_nhwc_packed_size(p);
  return packed == 0 ? 0 : kBlobHeaderBytes + packed;
}

bool conv_nhwc_build_filter_blob(const compute::ConvNhwcParams& p, const NhwcFilterSource& src,
                                 void* blob) {
  if (conv_nhwc_filter_blob_size(p) == 0) {
    return false;
  }
  // The header goes in last: a blob whose payload could not be built never fits a call.
  std::memset(blob, 0, kBlobHeaderBytes);
  const BlobHeader h = header_for(p, src.bias);
  float* payload = reinterpret_cast<float*>(static_cast<char*>(blob) + kBlobHeaderBytes);
  if (is_depthwise(p)) {  // [kernel_h, kernel_w, out_channels]; one input channel per group
    for (int64_t oc = 0; oc < p.out_channels; ++oc) {
      for (int64_t r = 0; r < p.kernel_h; ++r) {
        for (int64_t s = 0; s < p.kernel_w; ++s) {
          payload[(r * p.kernel_w + s) * p.out_channels + oc] = weight_at(p, src, oc, r, s, 0);
        }
      }
    }
    std::memcpy(blob, &h, sizeof h);
    return true;
  }
  if (src.ohwi) {
    if (!compute::conv2d_nhwc_pack(p, src.data, src.bias, payload)) {
      return false;
    }
    std::memcpy(blob, &h, sizeof h);
    return true;
  }
  const int64_t gic = p.in_channels / p.groups;
  const size_t n = static_cast<size_t>(p.out_channels * p.kernel_h * p.kernel_w * gic);
  std::unique_ptr<float[]> ohwi(new (std::nothrow) float[n]);
  if (ohwi == nullptr) {
    return false;
  }
  for (int64_t oc = 0; oc < p.out_channels; ++oc) {
    for (int64_t r = 0; r < p.kernel_h; ++r) {
      for (int64_t s = 0; s < p.kernel_w; ++s) {
        for (int64_t ci = 0; ci < gic; ++ci) {
          ohwi[((oc * p.kernel_h + r) * p.kernel_w + s) * gic + ci] =
              weight_at(p, src, oc, r, s, ci);
        }
      }
    }
  }
  if (!compute::conv2d_nhwc_pack(p, ohwi.get(), src.bias, payload)) {
    return false;
  }
  std::memcpy(blob, &h, sizeof h);
  return true;
}

bool conv_nhwc_run(const compute::ConvNhwcParams& p, const NhwcFilterSource& src,
                   const void* prepared, const float* input, float* output) {
  const size_t bytes = conv_nhwc_filter_blob_size(p);
  if (bytes == 0) {
    return false;
  }
  const BlobHeader want = header_for(p, src.bias);
  std::unique_ptr<char[]> scratch;
  const void* blob = prepared;
  if (blob == nullptr || std::memcmp(blob, &want, sizeof want) != 0) {
    // 64 bytes of slack to align the payload as a prepared blob is.
    scratch.reset(new (std::nothrow) char[bytes + 64]);
    if (scratch == nullptr) {
      return false;
    }
    const uintptr_t base = reinterpret_cast<uintptr_t>(scratch.get());
    void* aligned = scratch.get() + ((64 - base % 64) % 64);
    if (!conv_nhwc_build_filter_blob(p, src, aligned)) {
      return false;
    }
    blob = aligned;
  }
  const void* payload = static_cast<const char*>(blob) + kBlobHeaderBytes;
  if (is_depthwise(p)) {
    return compute::depthwise_conv2d_nhwc(p, static_cast<const float*>(payload), src.bias, input,
                                          output);
  }
  return compute::conv2d_nhwc(p, payload, input, output);
}

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
