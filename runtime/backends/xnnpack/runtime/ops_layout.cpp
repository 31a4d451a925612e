// Data movement: StaticTranspose, StaticReshape, Concatenate2..5, StaticSlice and
// StaticConstantPad. All of them are one or more strided copies, planned at init from the
// payload's shapes and planned again by reshape() when the inputs' shapes change (the same
// plan() computes the output shape both times).
#include <algorithm>
#include <cstring>
#include <memory>

#include <executorch/runtime/executor/detail/checked.h>

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
    if (interleaves()) {
      interleave(s, d);
      return;
    }
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

  // A few contiguous source planes written interleaved (NCHW to NHWC with 3 channels): after
  // simplify(), the two inner dims are the plane (source stride 1, destination stride =
  // planes) and the plane index (destination stride 1). Writing each destination pixel whole
  // keeps the stores sequential.
  bool interleaves() const {
    return dims[4] <= 4 && src_stride[5] == 1 && dst_stride[4] == 1 &&
           dst_stride[5] == dims[4] &&
           dims[0] * dims[1] * dims[2] * dims[3] == 1;
  }
  void interleave(const float* s, float* d) const {
    const size_t planes = dims[4], n = dims[5], plane_stride = src_stride[4];
    for (size_t i = 0; i < n; ++i)
      for (size_t c = 0; c < planes; ++c)
        d[i * planes + c] = s[c * plane_stride + i];
  }
};

// Row-major strides of dims[0..rank).
void strides_of(const size_t* dims, size_t rank, size_t* strides) {
  size_t s = 1;
  for (size_t i = rank; i-- > 0;) {
    strides[i] = s;
    s *= dims[i];
  }
}

// The same copy in fewer, longer loops: unit dims are dropped, adjacent dims that step
// through both tensors as one (the outer stride is the inner extent times the inner stride, in
// the source and in the destination) become one dim, and a short innermost dim trades places
// with the longer one above it, so the inner loop runs long instead of paying the loop nest
// every few elements (an image's NCHW to NHWC transpose has its 3 channels innermost).
void simplify(StridedCopy& c) {
  size_t dims[kMaxDims], ss[kMaxDims], ds[kMaxDims];
  size_t n = 0;  // kept dims, innermost first
  for (size_t i = kMaxDims; i-- > 0;) {
    if (c.dims[i] == 1)
      continue;
    if (n > 0 && c.src_stride[i] == dims[n - 1] * ss[n - 1] &&
        c.dst_stride[i] == dims[n - 1] * ds[n - 1]) {
      dims[n - 1] *= c.dims[i];
      continue;
    }
    dims[n] = c.dims[i];
    ss[n] = c.src_stride[i];
    ds[n] = c.dst_stride[i];
    ++n;
  }
  if (n >= 2 && dims[0] < 16 && dims[1] > dims[0]) {
    std::swap(dims[0], dims[1]);
    std::swap(ss[0], ss[1]);
    std::swap(ds[0], ds[1]);
  }
  for (size_t k = 0; k < kMaxDims; ++k) {
    const size_t i = kMaxDims - 1 - k;
    c.dims[i] = k < n ? dims[k] : 1;
    c.src_stride[i] = k < n ? ss[k] : 0;
    c.dst_stride[i] = k < n ? ds[k] : 0;
  }
}

// Fills a StridedCopy for `rank` dims, right-aligned into kMaxDims.
void place(
    StridedCopy& c,
    size_t rank,
    const size_t* dims,
    const size_t* src_stride,
    const size_t* dst_stride) {
  const size_t pad = kMaxDims - rank;
  for (size_t i = 0; i < kMaxDims; ++i) {
    c.dims[i] = i < pad ? 1 : dims[i - pad];
    c.src_stride[i] = i < pad ? 0 : src_stride[i - pad];
    c.dst_stride[i] = i < pad ? 0 : dst_stride[i - pad];
  }
  simplify(c);
}

// One node as strided copies. plan() derives the output's shape (rank = the output's, which
// never changes) and the copies from the inputs' current shapes.
class CopyStep : public Step {
 public:
  uint32_t out = 0;
  bool fill = false;
  float fill_value = 0;
  std::vector<StridedCopy>
      copies;  // as many as the node has inputs, sized at init

  virtual bool plan(const Graph& g, size_t* dout, ShapeError* why) = 0;

  void run(Graph& g) override {
    float* y = g.data(out);
    if (fill)
      std::fill(y, y + g.value(out).numel, fill_value);
    for (const StridedCopy& c : copies)
      c.run(g.data(c.src), y);
  }

  Error reshape(Graph& g) override {
    size_t dout[kMaxDims];
    ShapeError why;
    if (!plan(g, dout, &why)) {
      return fail(Error::InvalidArgument, "%s", why.message);
    }
    Value& v = g.values[out];
    set_dims(v, dout, v.dims.size());
    return Error::Ok;
  }
};

// Plans the step on the payload's shapes and accepts it if the output is what it computes.
Error plan_and_accept(NodeContext& ctx, std::unique_ptr<CopyStep> step) {
  size_t dout[kMaxDims];
  ShapeError why;
  if (!step->plan(ctx.graph(), dout, &why)) {
    return ctx.invalid("%s", why.message);
  }
  Error err = ctx.expect_output_dims(
      step->out, dout, ctx.graph().value(step->out).dims.size());
  if (err != Error::Ok) {
    return err;
  }
  return ctx.accept(std::move(step));
}

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

class TransposeStep final : public CopyStep {
 public:
  uint32_t in = 0;
  size_t perm[kMaxDims] = {};

  bool plan(const Graph& g, size_t* dout, ShapeError*) override {
    const auto& di = g.value(in).dims;
    const size_t rank = di.size();
    size_t in_strides[kMaxDims] = {}, src[kMaxDims] = {}, dst[kMaxDims] = {};
    strides_of(di.data(), rank, in_strides);
    for (size_t i = 0; i < rank; ++i) {
      dout[i] = di[perm[i]];
      src[i] = in_strides[perm[i]];
    }
    strides_of(dout, rank, dst);
    copies.resize(1);
    copies[0].src = in;
    place(copies[0], rank, dout, src, dst);
    return true;
  }
};

// new_shape's 0 entry (at most one) is inferred from the element count, as XNNPACK's reshape
// does (the exporter writes PyTorch's -1 as 0); the other entries are fixed sizes.
class ReshapeStep final : public CopyStep {
 public:
  uint32_t in = 0;
  size_t new_shape[kMaxDims] = {};
  size_t rank = 0;

  bool plan(const Graph& g, size_t* dout, ShapeError* why) override {
    const size_t numel = g.value(in).numel;
    size_t known = 1, inferred = kMaxDims;
    for (size_t d = 0; d < rank; ++d) {
      if (new_shape[d] == 0) {
        inferred = d;
      } else if (!runtime::detail::checked_mul(known, new_shape[d], &known)) {
        // A wrapped product could be 0 (the division below) or match the input's count.
        return why->set("new_shape's fixed entries overflow");
      }
      dout[d] = new_shape[d];
    }
    if (inferred < kMaxDims) {
      if (numel % known != 0) {
        return why->set(
            "input has %zu elements, not a multiple of new_shape's %zu",
            numel,
            known);
      }
      dout[inferred] = numel / known;
    } else if (known != numel) {
      return why->set(
          "input has %zu elements, new_shape has %zu", numel, known);
    }
    StridedCopy c;
    c.src = in;
    c.dims[kMaxDims - 1] = numel;
    c.src_stride[kMaxDims - 1] = 1;
    c.dst_stride[kMaxDims - 1] = 1;
    copies.resize(1);
    copies[0] = c;
    return true;
  }
};

class ConcatenateStep final : public CopyStep {
 public:
  uint32_t inputs[5] = {};
  size_t count = 0, axis = 0;

  bool plan(const Graph& g, size_t* dout, ShapeError* why) override {
    const auto& first = g.value(inputs[0]).dims;
    const size_t rank = first.size();
    std::copy(first.begin(), first.end(), dout);
    dout[axis] = 0;
    for (size_t i = 0; i < count; ++i) {
      const auto& di = g.value(inputs[i]).dims;
      if (di.size() != rank) {
        return why->set(
            "input %zu has rank %zu, input 1 %zu", i + 1, di.size(), rank);
      }
      for (size_t d = 0; d < rank; ++d) {
        if (d != axis && di[d] != dout[d]) {
          return why->set(
              "input %zu dim %zu is %zu, input 1's %zu",
              i + 1,
              d,
              di[d],
              dout[d]);
        }
      }
      dout[axis] += di[axis];
    }
    size_t out_strides[kMaxDims] = {}, in_strides[kMaxDims] = {};
    strides_of(dout, rank, out_strides);
    copies.resize(count);
    size_t offset = 0;
    for (size_t i = 0; i < count; ++i) {
      const auto& di = g.value(inputs[i]).dims;
      StridedCopy& c = copies[i];
      c.src = inputs[i];
      c.src_offset = 0;
      c.dst_offset = offset * out_strides[axis];
      strides_of(di.data(), rank, in_strides);
      place(c, rank, di.data(), in_strides, out_strides);
      offset += di[axis];
    }
    return true;
  }
};

// A size of 0 means "to the end of the dim", as in XNNPACK; offsets and other sizes are fixed.
class SliceStep final : public CopyStep {
 public:
  uint32_t in = 0;
  size_t offsets[kMaxDims] = {}, sizes[kMaxDims] = {};

  bool plan(const Graph& g, size_t* dout, ShapeError* why) override {
    const auto& di = g.value(in).dims;
    const size_t rank = di.size();
    size_t in_strides[kMaxDims] = {}, out_strides[kMaxDims] = {};
    strides_of(di.data(), rank, in_strides);
    StridedCopy c;
    c.src = in;
    for (size_t d = 0; d < rank; ++d) {
      const size_t off = offsets[d];
      if (off > di[d])
        return why->set("offset %zu is past dim %zu (%zu)", off, d, di[d]);
      const size_t size = sizes[d] == 0 ? di[d] - off : sizes[d];
      if (size > di[d] - off) {
        return why->set(
            "slice [%zu, +%zu) of dim %zu is past its end (%zu)",
            off,
            size,
            d,
            di[d]);
      }
      dout[d] = size;
      c.src_offset += off * in_strides[d];
    }
    strides_of(dout, rank, out_strides);
    place(c, rank, dout, in_strides, out_strides);
    copies.resize(1);
    copies[0] = c;
    return true;
  }
};

class ConstantPadStep final : public CopyStep {
 public:
  uint32_t in = 0;
  size_t pre[kMaxDims] = {}, post[kMaxDims] = {};

  bool plan(const Graph& g, size_t* dout, ShapeError*) override {
    const auto& di = g.value(in).dims;
    const size_t rank = di.size();
    size_t in_strides[kMaxDims] = {}, out_strides[kMaxDims] = {};
    for (size_t d = 0; d < rank; ++d)
      dout[d] = di[d] + pre[d] + post[d];
    strides_of(di.data(), rank, in_strides);
    strides_of(dout, rank, out_strides);
    StridedCopy c;
    c.src = in;
    for (size_t d = 0; d < rank; ++d)
      c.dst_offset += pre[d] * out_strides[d];
    place(c, rank, di.data(), in_strides, out_strides);
    copies.resize(1);
    copies[0] = c;
    return true;
  }
};

}  // namespace

Error build_transpose(NodeContext& ctx) {
  const auto* p = ctx.node()->xnode_union_as_XNNStaticTranspose();
  auto step = std::make_unique<TransposeStep>();
  Error err = read_1x1(
      ctx, p->input_id(), p->output_id(), p->flags(), step.get(), &step->in);
  if (err != Error::Ok)
    return err;
  const size_t rank = ctx.graph().value(step->in).dims.size();
  const auto* perm = p->perm();
  if (perm == nullptr || perm->size() != rank || p->num_dims() != rank ||
      ctx.graph().value(step->out).dims.size() != rank) {
    return ctx.invalid("perm must have one entry per dim (rank %zu)", rank);
  }
  bool seen[kMaxDims] = {};
  for (size_t i = 0; i < rank; ++i) {
    const uint32_t axis = perm->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (axis >= rank || seen[axis]) {
      return ctx.invalid("perm is not a permutation of 0..%zu", rank - 1);
    }
    seen[axis] = true;
    step->perm[i] = axis;
  }
  return plan_and_accept(ctx, std::move(step));
}

Error build_reshape(NodeContext& ctx) {
  const auto* p = ctx.node()->xnode_union_as_XNNStaticReshape();
  auto step = std::make_unique<ReshapeStep>();
  Error err = read_1x1(
      ctx, p->input_id(), p->output_id(), p->flags(), step.get(), &step->in);
  if (err != Error::Ok)
    return err;
  const size_t rank = ctx.graph().value(step->out).dims.size();
  const auto* shape = p->new_shape();
  if (shape == nullptr || shape->size() != rank || p->num_dims() != rank) {
    return ctx.invalid("new_shape must have one entry per output dim");
  }
  size_t zeros = 0;
  for (size_t d = 0; d < rank; ++d) {
    step->new_shape[d] = shape->Get(static_cast<flatbuffers::uoffset_t>(d));
    zeros += step->new_shape[d] == 0 ? 1 : 0;
  }
  if (zeros > 1) {
    return ctx.invalid("new_shape has %zu inferred (0) dims, at most 1", zeros);
  }
  step->rank = rank;
  return plan_and_accept(ctx, std::move(step));
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
  auto step = std::make_unique<ConcatenateStep>();
  Error err = Error::Ok;
  for (size_t i = 0; i < count && err == Error::Ok; ++i)
    err = ctx.input(ids[i], kFields[i], &step->inputs[i]);
  if (err == Error::Ok)
    err = ctx.output(p->output_id(), "output_id", &step->out);
  if (err == Error::Ok)
    err = check_flags(ctx, p->flags(), 0);
  if (err != Error::Ok)
    return err;
  const size_t rank = ctx.graph().value(step->out).dims.size();
  step->count = count;
  step->axis = p->axis();
  if (step->axis >= rank) {
    return ctx.invalid("axis %zu is not below the rank %zu", step->axis, rank);
  }
  // plan() indexes every input by the output's dims (ranks never change after init): an input
  // of lower rank would be read past its dims, one of higher rank copied past the output.
  for (size_t i = 0; i < count; ++i) {
    const size_t input_rank = ctx.graph().value(step->inputs[i]).dims.size();
    if (input_rank != rank) {
      return ctx.invalid(
          "%s %u has rank %zu, the output %zu",
          kFields[i],
          step->inputs[i],
          input_rank,
          rank);
    }
  }
  return plan_and_accept(ctx, std::move(step));
}

Error build_slice(NodeContext& ctx) {
  const auto* p = ctx.node()->xnode_union_as_XNNStaticSlice();
  auto step = std::make_unique<SliceStep>();
  Error err = read_1x1(
      ctx, p->input_id(), p->output_id(), p->flags(), step.get(), &step->in);
  if (err != Error::Ok)
    return err;
  const size_t rank = ctx.graph().value(step->in).dims.size();
  const auto* offsets = p->offsets();
  const auto* sizes = p->sizes();
  if (offsets == nullptr || sizes == nullptr || offsets->size() != rank ||
      sizes->size() != rank || p->num_dims() != rank ||
      ctx.graph().value(step->out).dims.size() != rank) {
    return ctx.invalid(
        "offsets and sizes must have one entry per dim (rank %zu)", rank);
  }
  for (size_t d = 0; d < rank; ++d) {
    step->offsets[d] = offsets->Get(static_cast<flatbuffers::uoffset_t>(d));
    step->sizes[d] = sizes->Get(static_cast<flatbuffers::uoffset_t>(d));
  }
  return plan_and_accept(ctx, std::move(step));
}

Error build_constant_pad(NodeContext& ctx) {
  const auto* p = ctx.node()->xnode_union_as_XNNStaticConstantPad();
  auto step = std::make_unique<ConstantPadStep>();
  Error err = read_1x1(
      ctx, p->input_id(), p->output_id(), p->flags(), step.get(), &step->in);
  if (err != Error::Ok)
    return err;
  const size_t rank = ctx.graph().value(step->in).dims.size();
  const auto* pre = p->pre_paddings();
  const auto* post = p->post_paddings();
  // The exporter writes kMaxDims paddings whatever the rank; the leading ones apply.
  if (pre == nullptr || post == nullptr || pre->size() < rank ||
      post->size() < rank || ctx.graph().value(step->out).dims.size() != rank) {
    return ctx.invalid(
        "needs pre and post paddings for each of the %zu dims", rank);
  }
  for (size_t d = 0; d < rank; ++d) {
    step->pre[d] = pre->Get(static_cast<flatbuffers::uoffset_t>(d));
    step->post[d] = post->Get(static_cast<flatbuffers::uoffset_t>(d));
  }
  step->fill = true;
  step->fill_value = p->padding_value();
  return plan_and_accept(ctx, std::move(step));
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
