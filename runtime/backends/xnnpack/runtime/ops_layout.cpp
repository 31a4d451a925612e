// Data movement: StaticTranspose, StaticReshape, Concatenate2..5, StaticSlice and
// StaticConstantPad. All of them are one or more strided copies, planned at init.
#include <algorithm>
#include <cstring>
#include <memory>

#include "node_context.h"

namespace executorch {
namespace backends {
namespace xnnpack {

using runtime::Error;

namespace {

// Copies a kMaxDims-D block: element (i0..i5) goes from src[src_offset + sum i*src_stride] to
// dst[dst_offset + sum i*dst_stride].
struct StridedCopy {
  uint32_t src = 0;
  size_t dims[kMaxDims] = {1, 1, 1, 1, 1, 1};
  size_t src_stride[kMaxDims] = {};
  size_t dst_stride[kMaxDims] = {};
  size_t src_offset = 0, dst_offset = 0;

  void run(const float* s, float* d) const {
    s += src_offset;
    d += dst_offset;
    for (size_t i0 = 0; i0 < dims[0]; ++i0)
      for (size_t i1 = 0; i1 < dims[1]; ++i1)
        for (size_t i2 = 0; i2 < dims[2]; ++i2)
          for (size_t i3 = 0; i3 < dims[3]; ++i3)
            for (size_t i4 = 0; i4 < dims[4]; ++i4) {
              const float* sr = s + i0 * src_stride[0] + i1 * src_stride[1] +
                                i2 * src_stride[2] + i3 * src_stride[3] +
                                i4 * src_stride[4];
              float* dr = d + i0 * dst_stride[0] + i1 * dst_stride[1] +
                          i2 * dst_stride[2] + i3 * dst_stride[3] +
                          i4 * dst_stride[4];
              const size_t n = dims[5], ss = src_stride[5], ds = dst_stride[5];
              if (ss == 1 && ds == 1) {
                std::memcpy(dr, sr, n * sizeof(float));
              } else {
                for (size_t i = 0; i < n; ++i)
                  dr[i * ds] = sr[i * ss];
              }
            }
  }
};

// Row-major strides of dims.
std::vector<size_t> strides_of(const std::vector<size_t>& dims) {
  std::vector<size_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;)
    s[i - 1] = s[i] * dims[i];
  return s;
}

// Fills a StridedCopy for `rank` dims, right-aligned into kMaxDims.
void place(
    StridedCopy& c,
    size_t rank,
    const size_t* dims,
    const size_t* src_stride,
    const size_t* dst_stride) {
  const size_t pad = kMaxDims - rank;
  for (size_t i = 0; i < rank; ++i) {
    c.dims[pad + i] = dims[i];
    c.src_stride[pad + i] = src_stride[i];
    c.dst_stride[pad + i] = dst_stride[i];
  }
}

class CopyStep final : public Step {
 public:
  uint32_t out = 0;
  bool fill = false;
  float fill_value = 0;
  std::vector<StridedCopy> copies;
  void run(Graph& g) override {
    float* y = g.data(out);
    if (fill)
      std::fill(y, y + g.value(out).numel, fill_value);
    for (const StridedCopy& c : copies)
      c.run(g.data(c.src), y);
  }
};

Error read_1x1(
    NodeContext& ctx,
    uint32_t in_id,
    uint32_t out_id,
    uint32_t flags,
    CopyStep* step,
    uint32_t* in) {
  Error err = ctx.input(in_id, "input_id", in);
  if (err == Error::Ok)
    err = ctx.output(out_id, "output_id", &step->out);
  if (err == Error::Ok)
    err = check_flags(ctx, flags, 0);
  return err;
}

}  // namespace

Error build_transpose(NodeContext& ctx) {
  const auto* p = ctx.node()->xnode_union_as_XNNStaticTranspose();
  auto step = std::make_unique<CopyStep>();
  uint32_t in = 0;
  Error err =
      read_1x1(ctx, p->input_id(), p->output_id(), p->flags(), step.get(), &in);
  if (err != Error::Ok)
    return err;
  const auto& di = ctx.graph().value(in).dims;
  const auto& dout = ctx.graph().value(step->out).dims;
  const auto* perm = p->perm();
  const size_t rank = di.size();
  if (perm == nullptr || perm->size() != rank || p->num_dims() != rank ||
      dout.size() != rank) {
    return ctx.invalid("perm must have one entry per dim (rank %zu)", rank);
  }
  std::vector<size_t> in_strides = strides_of(di), src(rank), seen(rank, 0);
  for (size_t i = 0; i < rank; ++i) {
    const uint32_t axis = perm->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (axis >= rank || seen[axis]++) {
      return ctx.invalid("perm is not a permutation of 0..%zu", rank - 1);
    }
    if (dout[i] != di[axis]) {
      return ctx.invalid(
          "output dim %zu is %zu, the permuted input gives %zu",
          i,
          dout[i],
          di[axis]);
    }
    src[i] = in_strides[axis];
  }
  StridedCopy c;
  c.src = in;
  place(c, rank, dout.data(), src.data(), strides_of(dout).data());
  step->copies.push_back(c);
  return ctx.accept(std::move(step));
}

Error build_reshape(NodeContext& ctx) {
  const auto* p = ctx.node()->xnode_union_as_XNNStaticReshape();
  auto step = std::make_unique<CopyStep>();
  uint32_t in = 0;
  Error err =
      read_1x1(ctx, p->input_id(), p->output_id(), p->flags(), step.get(), &in);
  if (err != Error::Ok)
    return err;
  const Value& vin = ctx.graph().value(in);
  const Value& vout = ctx.graph().value(step->out);
  if (vin.numel != vout.numel) {
    return ctx.invalid(
        "input has %zu elements, output %zu", vin.numel, vout.numel);
  }
  // new_shape is the output's shape (a 0 entry lets XNNPACK infer that dim).
  const auto* shape = p->new_shape();
  if (shape == nullptr || shape->size() != vout.dims.size() ||
      p->num_dims() != vout.dims.size()) {
    return ctx.invalid("new_shape must have one entry per output dim");
  }
  for (size_t d = 0; d < vout.dims.size(); ++d) {
    const uint32_t want = shape->Get(static_cast<flatbuffers::uoffset_t>(d));
    if (want != 0 && want != vout.dims[d]) {
      return ctx.invalid(
          "new_shape dim %zu is %u, the output's %zu", d, want, vout.dims[d]);
    }
  }
  StridedCopy c;
  c.src = in;
  c.dims[kMaxDims - 1] = vin.numel;
  c.src_stride[kMaxDims - 1] = 1;
  c.dst_stride[kMaxDims - 1] = 1;
  step->copies.push_back(c);
  return ctx.accept(std::move(step));
}

Error build_concatenate(NodeContext& ctx) {
  const auto* p = static_cast<const fb::_XNNCat*>(ctx.node()->xnode_union());
  size_t count = 2;
  switch (ctx.node()->xnode_union_type()) {
    case fb::XNodeUnion::XNNConcatenate3:
      count = 3;
      break;
    case fb::XNodeUnion::XNNConcatenate4:
      count = 4;
      break;
    case fb::XNodeUnion::XNNConcatenate5:
      count = 5;
      break;
    default:
      break;
  }
  const uint32_t ids[5] = {
      p->input1_id(),
      p->input2_id(),
      p->input3_id(),
      p->input4_id(),
      p->input5_id()};
  static const char* const kFields[5] = {
      "input1_id", "input2_id", "input3_id", "input4_id", "input5_id"};
  auto step = std::make_unique<CopyStep>();
  uint32_t inputs[5] = {};
  Error err = Error::Ok;
  for (size_t i = 0; i < count && err == Error::Ok; ++i)
    err = ctx.input(ids[i], kFields[i], &inputs[i]);
  if (err == Error::Ok)
    err = ctx.output(p->output_id(), "output_id", &step->out);
  if (err == Error::Ok)
    err = check_flags(ctx, p->flags(), 0);
  if (err != Error::Ok)
    return err;
  const auto& dout = ctx.graph().value(step->out).dims;
  const size_t rank = dout.size();
  const size_t axis = p->axis();
  if (axis >= rank) {
    return ctx.invalid("axis %zu is not below the rank %zu", axis, rank);
  }
  const std::vector<size_t> out_strides = strides_of(dout);
  size_t offset = 0;
  for (size_t i = 0; i < count; ++i) {
    const auto& di = ctx.graph().value(inputs[i]).dims;
    if (di.size() != rank) {
      return ctx.invalid(
          "input %zu has rank %zu, the output %zu", i + 1, di.size(), rank);
    }
    for (size_t d = 0; d < rank; ++d) {
      if (d != axis && di[d] != dout[d]) {
        return ctx.invalid(
            "input %zu dim %zu is %zu, the output's %zu",
            i + 1,
            d,
            di[d],
            dout[d]);
      }
    }
    StridedCopy c;
    c.src = inputs[i];
    c.dst_offset = offset * out_strides[axis];
    place(c, rank, di.data(), strides_of(di).data(), out_strides.data());
    step->copies.push_back(c);
    offset += di[axis];
  }
  if (offset != dout[axis]) {
    return ctx.invalid(
        "inputs sum to %zu along axis %zu, the output has %zu",
        offset,
        axis,
        dout[axis]);
  }
  return ctx.accept(std::move(step));
}

Error build_slice(NodeContext& ctx) {
  const auto* p = ctx.node()->xnode_union_as_XNNStaticSlice();
  auto step = std::make_unique<CopyStep>();
  uint32_t in = 0;
  Error err =
      read_1x1(ctx, p->input_id(), p->output_id(), p->flags(), step.get(), &in);
  if (err != Error::Ok)
    return err;
  const auto& di = ctx.graph().value(in).dims;
  const auto& dout = ctx.graph().value(step->out).dims;
  const size_t rank = di.size();
  const auto* offsets = p->offsets();
  const auto* sizes = p->sizes();
  if (offsets == nullptr || sizes == nullptr || offsets->size() != rank ||
      sizes->size() != rank || p->num_dims() != rank || dout.size() != rank) {
    return ctx.invalid(
        "offsets and sizes must have one entry per dim (rank %zu)", rank);
  }
  const std::vector<size_t> in_strides = strides_of(di);
  StridedCopy c;
  c.src = in;
  for (size_t d = 0; d < rank; ++d) {
    const size_t off = offsets->Get(static_cast<flatbuffers::uoffset_t>(d));
    size_t size = sizes->Get(static_cast<flatbuffers::uoffset_t>(d));
    // A size of 0 means "to the end", as in XNNPACK.
    if (off > di[d])
      return ctx.invalid("offset %zu is past dim %zu (%zu)", off, d, di[d]);
    if (size == 0)
      size = di[d] - off;
    if (size > di[d] - off || dout[d] != size) {
      return ctx.invalid(
          "slice [%zu, +%zu) of dim %zu (%zu) does not give the output's %zu",
          off,
          size,
          d,
          di[d],
          dout[d]);
    }
    c.src_offset += off * in_strides[d];
  }
  place(c, rank, dout.data(), in_strides.data(), strides_of(dout).data());
  step->copies.push_back(c);
  return ctx.accept(std::move(step));
}

Error build_constant_pad(NodeContext& ctx) {
  const auto* p = ctx.node()->xnode_union_as_XNNStaticConstantPad();
  auto step = std::make_unique<CopyStep>();
  uint32_t in = 0;
  Error err =
      read_1x1(ctx, p->input_id(), p->output_id(), p->flags(), step.get(), &in);
  if (err != Error::Ok)
    return err;
  const auto& di = ctx.graph().value(in).dims;
  const auto& dout = ctx.graph().value(step->out).dims;
  const size_t rank = di.size();
  const auto* pre = p->pre_paddings();
  const auto* post = p->post_paddings();
  // The exporter writes kMaxDims paddings whatever the rank; the leading ones apply.
  if (pre == nullptr || post == nullptr || pre->size() < rank ||
      post->size() < rank || dout.size() != rank) {
    return ctx.invalid(
        "needs pre and post paddings for each of the %zu dims", rank);
  }
  const std::vector<size_t> out_strides = strides_of(dout);
  StridedCopy c;
  c.src = in;
  for (size_t d = 0; d < rank; ++d) {
    const size_t a = pre->Get(static_cast<flatbuffers::uoffset_t>(d));
    const size_t b = post->Get(static_cast<flatbuffers::uoffset_t>(d));
    if (dout[d] != di[d] + a + b) {
      return ctx.invalid(
          "output dim %zu is %zu, padding gives %zu",
          d,
          dout[d],
          di[d] + a + b);
    }
    c.dst_offset += a * out_strides[d];
  }
  place(c, rank, di.data(), strides_of(di).data(), out_strides.data());
  step->copies.push_back(c);
  step->fill = true;
  step->fill_value = p->padding_value();
  return ctx.accept(std::move(step));
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
