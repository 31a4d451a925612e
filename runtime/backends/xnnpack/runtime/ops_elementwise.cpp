// Elementwise nodes: the unary ones (math functions, activations, Clamp, Copy, Convert), the
// binary ones with numpy-style broadcasting (Add, Subtract, Multiply, Div, Minimum, Maximum,
// PReLU) and Softmax over the innermost dim.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include <executorch/runtime/kernels/compute/conv_nhwc.h>
#include <executorch/runtime/kernels/compute/parallel.h>
#include <executorch/runtime/kernels/compute/vmath_span.h>

#include "node_context.h"

namespace executorch {
namespace backends {
namespace xnnpack {

using runtime::Error;

namespace {

enum class UnaryOp {
  kAbs,
  kNegate,
  kSquare,
  kSquareRoot,
  kReciprocalSquareRoot,
  kCeiling,
  kFloor,
  kTanh,
  kExp,
  kLog,
  kSin,
  kCos,
  kSigmoid,
  kGelu,
  kHardswish,
  kClamp,
  kLeakyReLU,
  kELU,
  kCopy
};

// Elementwise, so any split across the thread pool gives the same bits.
template <typename F>
void map(const float* in, float* out, size_t n, F f) {
  kernels::compute::parallel_items(
      static_cast<int64_t>(n), 1.0, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          out[i] = f(in[i]);
        }
      });
}

class UnaryStep final : public Step {
 public:
  UnaryStep(UnaryOp op, uint32_t in, uint32_t out, float a, float b)
      : op_(op), in_(in), out_(out), a_(a), b_(b) {}
  UnaryOp op() const {
    return op_;
  }
  FusableActivation fusable_activation() const override {
    return op_ == UnaryOp::kHardswish ? FusableActivation::kHardswish
                                      : FusableActivation::kNone;
  }
  float a() const {
    return a_;
  }
  float b() const {
    return b_;
  }

  Error reshape(Graph& g) override {
    const Value& in = g.value(in_);
    set_dims(g.values[out_], in.dims.data(), in.dims.size());
    return Error::Ok;
  }

  void run(Graph& g) override {
    const float* x = g.data(in_);
    float* y = g.data(out_);
    const size_t n = g.value(out_).numel;
    const float a = a_, b = b_;
    switch (op_) {
      case UnaryOp::kAbs:
        map(x, y, n, [](float v) { return std::fabs(v); });
        break;
      case UnaryOp::kNegate:
        map(x, y, n, [](float v) { return -v; });
        break;
      case UnaryOp::kSquare:
        map(x, y, n, [](float v) { return v * v; });
        break;
      case UnaryOp::kSquareRoot:
        map(x, y, n, [](float v) { return std::sqrt(v); });
        break;
      case UnaryOp::kReciprocalSquareRoot:
        map(x, y, n, [](float v) { return 1.0f / std::sqrt(v); });
        break;
      case UnaryOp::kCeiling:
        map(x, y, n, [](float v) { return std::ceil(v); });
        break;
      case UnaryOp::kFloor:
        map(x, y, n, [](float v) { return std::floor(v); });
        break;
      case UnaryOp::kTanh:
        kernels::compute::span_tanh(x, y, static_cast<int64_t>(n));
        break;
      case UnaryOp::kExp:
        kernels::compute::span_exp(x, y, static_cast<int64_t>(n));
        break;
      case UnaryOp::kLog:
        map(x, y, n, [](float v) { return std::log(v); });
        break;
      case UnaryOp::kSin:
        map(x, y, n, [](float v) { return std::sin(v); });
        break;
      case UnaryOp::kCos:
        map(x, y, n, [](float v) { return std::cos(v); });
        break;
      case UnaryOp::kSigmoid:
        // The kernel library's vectorized sigmoid (EfficientNet's swish gates made the scalar
        // std::exp loop half of its time).
        kernels::compute::span_sigmoid(x, y, static_cast<int64_t>(n));
        break;
      case UnaryOp::kGelu:
        // The kernel library's vectorized x * Phi(x): the scalar std::erf loop was a tenth of
        // ViT's and BERT's time.
        kernels::compute::span_gelu(x, y, static_cast<int64_t>(n));
        break;
      case UnaryOp::kHardswish:
        // The kernel library's vectorized form, bit for bit the scalar
        // x * min(max(x + 3, 0), 6) / 6 (MobileNetV3 runs it after most of its
        // convolutions).
        kernels::compute::span_hardswish(x, y, static_cast<int64_t>(n));
        break;
      case UnaryOp::kClamp:
        // NaN passes through, as in the other clamps of the backend.
        map(x, y, n, [a, b](float v) { return v < a ? a : (v > b ? b : v); });
        break;
      case UnaryOp::kLeakyReLU:
        map(x, y, n, [a](float v) { return v < 0 ? v * a : v; });
        break;
      case UnaryOp::kELU:
        map(x, y, n, [a](float v) { return v < 0 ? a * std::expm1(v) : v; });
        break;
      case UnaryOp::kCopy:
        std::copy(x, x + n, y);
        break;
    }
  }

 private:
  UnaryOp op_;
  uint32_t in_, out_;
  float a_, b_;
};

bool unary_op_of(fb::XNodeUnion type, UnaryOp* op) {
  using T = fb::XNodeUnion;
  switch (type) {
    case T::XNNAbs:
      *op = UnaryOp::kAbs;
      return true;
    case T::XNNNegate:
      *op = UnaryOp::kNegate;
      return true;
    case T::XNNSquare:
      *op = UnaryOp::kSquare;
      return true;
    case T::XNNSquareRoot:
      *op = UnaryOp::kSquareRoot;
      return true;
    case T::XNNReciprocalSquareRoot:
      *op = UnaryOp::kReciprocalSquareRoot;
      return true;
    case T::XNNCeiling:
      *op = UnaryOp::kCeiling;
      return true;
    case T::XNNFloor:
      *op = UnaryOp::kFloor;
      return true;
    case T::XNNTanh:
      *op = UnaryOp::kTanh;
      return true;
    case T::XNNExp:
      *op = UnaryOp::kExp;
      return true;
    case T::XNNLog:
      *op = UnaryOp::kLog;
      return true;
    case T::XNNSin:
      *op = UnaryOp::kSin;
      return true;
    case T::XNNCos:
      *op = UnaryOp::kCos;
      return true;
    case T::XNNSigmoid:
      *op = UnaryOp::kSigmoid;
      return true;
    case T::XNNGelu:
      *op = UnaryOp::kGelu;
      return true;
    case T::XNNHardswish:
      *op = UnaryOp::kHardswish;
      return true;
    case T::XNNClamp:
      *op = UnaryOp::kClamp;
      return true;
    case T::XNNLeakyReLU:
      *op = UnaryOp::kLeakyReLU;
      return true;
    case T::XNNELU:
      *op = UnaryOp::kELU;
      return true;
    // Every value is held as float32, so Convert is a copy; the rounding onto the output's
    // grid (quantized, fp16, bf16) is the step that follows every write of such a value.
    case T::XNNCopy:
    case T::XNNConvert:
      *op = UnaryOp::kCopy;
      return true;
    default:
      return false;
  }
}

// A Clamp from one quantization grid onto the same grid (the int8 programs' ReLU6): its input
// holds grid points, so clamping to the bounds' own grid points (lo and hi rounded onto the
// grid) gives exactly the grid point that rounding the clamped value would, and the rounding
// pass after the node can go. Moves *lo and *hi and returns true when that holds.
bool clamp_bounds_onto_grid(
    const Graph& g, uint32_t in, uint32_t out, float* lo, float* hi) {
  const Quant& qi = g.value(in).quant;
  const Quant& qo = g.value(out).quant;
  if (qi.kind != Quant::Kind::kPerTensor ||
      qo.kind != Quant::Kind::kPerTensor || qi.scale != qo.scale ||
      qi.zero_point != qo.zero_point || qi.qmin != qo.qmin ||
      qi.qmax != qo.qmax) {
    return false;
  }
  float bounds[2] = {*lo, *hi};
  if (!kernels::compute::quantize_to_grid(
          bounds,
          2,
          qo.scale,
          static_cast<float>(qo.zero_point),
          static_cast<float>(qo.qmin),
          static_cast<float>(qo.qmax))) {
    return false;
  }
  *lo = bounds[0];
  *hi = bounds[1];
  return true;
}

Error accept_unary(
    NodeContext& ctx,
    UnaryOp op,
    uint32_t in_id,
    uint32_t out_id,
    uint32_t flags,
    float a,
    float b) {
  uint32_t in = 0, out = 0;
  Error err = ctx.input(in_id, "input_id", &in);
  if (err == Error::Ok)
    err = ctx.output(out_id, "output_id", &out);
  if (err == Error::Ok)
    err = check_flags(ctx, flags, 0);
  if (err != Error::Ok) {
    return err;
  }
  if (ctx.graph().value(in).dims != ctx.graph().value(out).dims) {
    return ctx.invalid("input %u and output %u have different shapes", in, out);
  }
  const bool on_grid = op == UnaryOp::kClamp &&
                       clamp_bounds_onto_grid(ctx.graph(), in, out, &a, &b);
  auto step = std::make_unique<UnaryStep>(op, in, out, a, b);
  step->rounds_quantized_outputs = on_grid;
  return ctx.accept(std::move(step));
}

// Strides of `dims` (right-aligned to `rank`) over the output's index space: 0 where the
// value is broadcast.
void broadcast_strides(
    const std::vector<size_t>& dims, size_t rank, size_t* strides) {
  size_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    const size_t offset = rank - dims.size();
    if (i < offset) {
      strides[i] = 0;
      continue;
    }
    const size_t d = dims[i - offset];
    strides[i] = d == 1 ? 0 : stride;
    stride *= d;
  }
}

// The numpy-style broadcast of dims da and db into out (rank *rank).
bool broadcast_shape(
    const std::vector<size_t>& da,
    const std::vector<size_t>& db,
    size_t* out,
    size_t* rank,
    ShapeError* why) {
  const size_t r = std::max(da.size(), db.size());
  for (size_t i = 0; i < r; ++i) {
    const size_t x = i + da.size() >= r ? da[i + da.size() - r] : 1;
    const size_t y = i + db.size() >= r ? db[i + db.size() - r] : 1;
    if (x != y && x != 1 && y != 1) {
      return why->set(
          "input dims %zu and %zu do not broadcast (dim %zu)", x, y, i);
    }
    out[i] = (x == 1) ? y : x;
  }
  *rank = r;
  return true;
}

enum class BinaryOp {
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kMinimum,
  kMaximum,
  kPReLU
};

class BinaryStep final : public Step {
 public:
  BinaryStep(
      BinaryOp op, uint32_t a, uint32_t b, uint32_t out, float lo, float hi)
      : op_(op), a_(a), b_(b), out_(out), lo_(lo), hi_(hi) {}
  BinaryOp op() const {
    return op_;
  }
  bool clamps() const {
    return lo_ != -std::numeric_limits<float>::infinity() ||
           hi_ != std::numeric_limits<float>::infinity();
  }

  // The loop bounds and broadcast strides for inputs of dims da and db (output dims dout).
  void configure(
      const std::vector<size_t>& da,
      const std::vector<size_t>& db,
      const size_t* dout,
      size_t rank) {
    // Left-pad to kMaxDims so that run() is one fixed loop nest.
    const size_t pad = kMaxDims - rank;
    for (size_t i = 0; i < kMaxDims; ++i) {
      dims_[i] = i < pad ? 1 : dout[i - pad];
    }
    broadcast_strides(da, kMaxDims, sa_);
    broadcast_strides(db, kMaxDims, sb_);
  }

  Error reshape(Graph& g) override {
    const auto& da = g.value(a_).dims;
    const auto& db = g.value(b_).dims;
    size_t dout[kMaxDims];
    size_t rank = 0;
    ShapeError why;
    if (!broadcast_shape(da, db, dout, &rank, &why)) {
      return fail(Error::InvalidArgument, "%s", why.message);
    }
    set_dims(g.values[out_], dout, rank);
    configure(da, db, dout, rank);
    return Error::Ok;
  }

  void run(Graph& g) override {
    switch (op_) {
      case BinaryOp::kAdd:
        loop(g, [](float x, float y) { return x + y; });
        break;
      case BinaryOp::kSubtract:
        loop(g, [](float x, float y) { return x - y; });
        break;
      case BinaryOp::kMultiply:
        loop(g, [](float x, float y) { return x * y; });
        break;
      case BinaryOp::kDivide:
        loop(g, [](float x, float y) { return x / y; });
        break;
      case BinaryOp::kMinimum:
        loop(g, [](float x, float y) { return std::fmin(x, y); });
        break;
      case BinaryOp::kMaximum:
        loop(g, [](float x, float y) { return std::fmax(x, y); });
        break;
      case BinaryOp::kPReLU:
        loop(g, [](float x, float s) { return x < 0 ? x * s : x; });
        break;
    }
  }

 private:
  template <typename F>
  void loop(Graph& g, F f) {
    const float* pa = g.data(a_);
    const float* pb = g.data(b_);
    float* y = g.data(out_);
    const float lo = lo_, hi = hi_;
    const size_t n = dims_[5], ia = sa_[5], ib = sb_[5];
    // Elements [i0, i1) of the innermost run at ra, rb into ry.
    auto span =
        [&](const float* ra, const float* rb, float* ry, size_t i0, size_t i1) {
          if (ia == 1 && ib == 1) {
            for (size_t i = i0; i < i1; ++i)
              ry[i] = clamp_to(f(ra[i], rb[i]), lo, hi);
          } else {
            for (size_t i = i0; i < i1; ++i)
              ry[i] = clamp_to(f(ra[i * ia], rb[i * ib]), lo, hi);
          }
        };
    size_t rows = 1;
    for (size_t d = 0; d + 1 < kMaxDims; ++d)
      rows *= dims_[d];
    // Elementwise, so any split across the thread pool gives the same bits: the elements of
    // a single run, else whole runs.
    if (rows == 1) {
      kernels::compute::parallel_items(
          static_cast<int64_t>(n), 1.0, [&](int64_t begin, int64_t end) {
            span(
                pa,
                pb,
                y,
                static_cast<size_t>(begin),
                static_cast<size_t>(end));
          });
      return;
    }
    kernels::compute::parallel_items(
        static_cast<int64_t>(rows),
        static_cast<double>(n),
        [&](int64_t begin, int64_t end) {
          // The outer index of run `begin`, then stepped like an odometer.
          size_t idx[kMaxDims - 1];
          size_t rest = static_cast<size_t>(begin);
          for (size_t d = kMaxDims - 1; d-- > 0;) {
            idx[d] = rest % dims_[d];
            rest /= dims_[d];
          }
          for (int64_t r = begin; r < end; ++r) {
            size_t oa = 0, ob = 0;
            for (size_t d = 0; d + 1 < kMaxDims; ++d) {
              oa += idx[d] * sa_[d];
              ob += idx[d] * sb_[d];
            }
            span(pa + oa, pb + ob, y + static_cast<size_t>(r) * n, 0, n);
            for (size_t d = kMaxDims - 1; d-- > 0;) {
              if (++idx[d] < dims_[d])
                break;
              idx[d] = 0;
            }
          }
        });
  }

  BinaryOp op_;
  uint32_t a_, b_, out_;
  float lo_, hi_;
  size_t dims_[kMaxDims];
  size_t sa_[kMaxDims];
  size_t sb_[kMaxDims];
};

}  // namespace

Error build_unary(NodeContext& ctx) {
  const fb::XNode* node = ctx.node();
  UnaryOp op;
  if (!unary_op_of(node->xnode_union_type(), &op)) {
    return ctx.unsupported("not a unary node");
  }
  if (op == UnaryOp::kLeakyReLU) {
    const auto* p = node->xnode_union_as_XNNLeakyReLU();
    return accept_unary(
        ctx,
        op,
        p->input_id(),
        p->output_id(),
        p->flags(),
        p->negative_slope(),
        0);
  }
  if (op == UnaryOp::kELU) {
    const auto* p = node->xnode_union_as_XNNELU();
    return accept_unary(
        ctx, op, p->input_id(), p->output_id(), p->flags(), p->alpha(), 0);
  }
  const auto* p = static_cast<const fb::_XNNNode1x1*>(node->xnode_union());
  if (op == UnaryOp::kClamp) {
    // Clamp's bounds are its output_min_max.
    return accept_unary(
        ctx,
        op,
        p->input_id(),
        p->output_id(),
        p->flags(),
        ctx.output_min(),
        ctx.output_max());
  }
  return accept_unary(ctx, op, p->input_id(), p->output_id(), p->flags(), 0, 0);
}

Error build_binary(NodeContext& ctx) {
  using T = fb::XNodeUnion;
  const fb::XNode* node = ctx.node();
  BinaryOp op;
  bool clamps = true;  // Add/Subtract/Multiply/Div apply output_min_max
  switch (node->xnode_union_type()) {
    case T::XNNAdd:
      op = BinaryOp::kAdd;
      break;
    case T::XNNSubtract:
      op = BinaryOp::kSubtract;
      break;
    case T::XNNMultiply:
      op = BinaryOp::kMultiply;
      break;
    case T::XNNDiv:
      op = BinaryOp::kDivide;
      break;
    case T::XNNMinimum:
      op = BinaryOp::kMinimum;
      clamps = false;
      break;
    case T::XNNMaximum:
      op = BinaryOp::kMaximum;
      clamps = false;
      break;
    case T::XNNPReLU:
      op = BinaryOp::kPReLU;
      clamps = false;
      break;
    default:
      return ctx.unsupported("not a binary node");
  }
  const auto* p = static_cast<const fb::_XNNNode2x1*>(node->xnode_union());
  uint32_t a = 0, b = 0, out = 0;
  Error err = ctx.input(p->input1_id(), "input1_id", &a);
  if (err == Error::Ok)
    err = ctx.input(p->input2_id(), "input2_id", &b);
  if (err == Error::Ok)
    err = ctx.output(p->output_id(), "output_id", &out);
  if (err == Error::Ok)
    err = check_flags(ctx, p->flags(), 0);
  if (err != Error::Ok) {
    return err;
  }
  const auto& da = ctx.graph().value(a).dims;
  const auto& db = ctx.graph().value(b).dims;
  // The output's shape must be exactly the broadcast of the inputs' shapes.
  size_t dout[kMaxDims];
  size_t rank = 0;
  ShapeError why;
  if (!broadcast_shape(da, db, dout, &rank, &why)) {
    return ctx.invalid("%s", why.message);
  }
  err = ctx.expect_output_dims(out, dout, rank);
  if (err != Error::Ok) {
    return err;
  }
  const float inf = std::numeric_limits<float>::infinity();
  auto step = std::make_unique<BinaryStep>(
      op,
      a,
      b,
      out,
      clamps ? ctx.output_min() : -inf,
      clamps ? ctx.output_max() : inf);
  step->configure(da, db, dout, rank);
  return ctx.accept(std::move(step));
}

namespace {

// Reductions in kLanes independent partial results, so that the compiler vectorizes them
// (a single running float max or sum is a serial dependency chain it must keep in order).
// The order is fixed by the row length alone, never by the thread count.
constexpr size_t kLanes = 8;

float row_max(const float* x, size_t n) {
  float lanes[kLanes];
  std::fill(lanes, lanes + kLanes, -std::numeric_limits<float>::infinity());
  size_t c = 0;
  for (; c + kLanes <= n; c += kLanes)
    for (size_t l = 0; l < kLanes; ++l)
      lanes[l] = lanes[l] < x[c + l] ? x[c + l] : lanes[l];
  float max = lanes[0];
  for (size_t l = 1; l < kLanes; ++l)
    max = max < lanes[l] ? lanes[l] : max;
  for (; c < n; ++c)
    max = max < x[c] ? x[c] : max;
  return max;
}

float row_sum(const float* x, size_t n) {
  float lanes[kLanes] = {};
  size_t c = 0;
  for (; c + kLanes <= n; c += kLanes)
    for (size_t l = 0; l < kLanes; ++l)
      lanes[l] += x[c + l];
  float sum = 0;
  for (size_t l = 0; l < kLanes; ++l)
    sum += lanes[l];
  for (; c < n; ++c)
    sum += x[c];
  return sum;
}

class SoftmaxStep final : public Step {
 public:
  SoftmaxStep(uint32_t in, uint32_t out, size_t rows, size_t cols)
      : in_(in), out_(out), rows_(rows), cols_(cols) {}
  Error reshape(Graph& g) override {
    const Value& in = g.value(in_);
    set_dims(g.values[out_], in.dims.data(), in.dims.size());
    cols_ = in.dims.back();
    rows_ = cols_ == 0 ? 0 : in.numel / cols_;
    return Error::Ok;
  }
  void run(Graph& g) override {
    const float* x = g.data(in_);
    float* y = g.data(out_);
    for (size_t r = 0; r < rows_; ++r) {
      const float* xr = x + r * cols_;
      float* yr = y + r * cols_;
      const float max = row_max(xr, cols_);
      for (size_t c = 0; c < cols_; ++c)
        yr[c] = xr[c] - max;
      // The kernel library's vectorized exp: the scalar std::exp loop dominated the attention
      // softmaxes of ViT and BERT.
      kernels::compute::span_exp(yr, yr, static_cast<int64_t>(cols_));
      const float scale = 1.0f / row_sum(yr, cols_);
      for (size_t c = 0; c < cols_; ++c)
        yr[c] *= scale;
    }
  }

 private:
  uint32_t in_, out_;
  size_t rows_, cols_;
};

}  // namespace

Error build_softmax(NodeContext& ctx) {
  const auto* p =
      static_cast<const fb::_XNNNode1x1*>(ctx.node()->xnode_union());
  uint32_t in = 0, out = 0;
  Error err = ctx.input(p->input_id(), "input_id", &in);
  if (err == Error::Ok)
    err = ctx.output(p->output_id(), "output_id", &out);
  if (err == Error::Ok)
    err = check_flags(ctx, p->flags(), 0);
  if (err != Error::Ok) {
    return err;
  }
  const auto& dims = ctx.graph().value(in).dims;
  if (dims != ctx.graph().value(out).dims || dims.empty()) {
    return ctx.invalid(
        "input %u and output %u must have the same shape of rank >= 1",
        in,
        out);
  }
  const size_t cols = dims.back();
  const size_t rows = cols == 0 ? 0 : ctx.graph().value(in).numel / cols;
  return ctx.accept(std::make_unique<SoftmaxStep>(in, out, rows, cols));
}

namespace {

// x * sigmoid(x) in one pass: the fused form of a Sigmoid whose only reader is a Multiply of
// it with the Sigmoid's own input (swish / SiLU as the exporter decomposes it). The kernel
// library's sigmoid_mul rounds as sigmoid then multiply, so the result is bit for bit that of
// the two nodes.
class SigmoidMultiplyStep final : public Step {
 public:
  SigmoidMultiplyStep(uint32_t in, uint32_t out) : in_(in), out_(out) {}
  Error reshape(Graph& g) override {
    const Value& in = g.value(in_);
    set_dims(g.values[out_], in.dims.data(), in.dims.size());
    return Error::Ok;
  }
  FusableActivation fusable_activation() const override {
    return FusableActivation::kSigmoidMul;
  }
  bool retarget_output(uint32_t out) override {
    out_ = out;
    return true;
  }
  void run(Graph& g) override {
    kernels::compute::span_sigmoid_mul(
        g.data(in_), g.data(out_), static_cast<int64_t>(g.value(out_).numel));
  }

 private:
  uint32_t in_, out_;
};

// A value only the steps read: no rounding onto a grid, not a constant or an external.
bool is_plain_intermediate(const Value& v) {
  return !v.is_constant && v.format == FloatFormat::kFp32 &&
         v.quant.kind == Quant::Kind::kNone &&
         (v.flags & (kFlagExternalInput | kFlagExternalOutput)) == 0;
}

}  // namespace

namespace {

// For every value: how many steps read it, and which step writes it (-1: none).
struct ValueUse {
  std::vector<uint32_t> readers;
  std::vector<int64_t> writer;
};

ValueUse value_use(const Graph& graph) {
  ValueUse u;
  u.readers.assign(graph.values.size(), 0);
  u.writer.assign(graph.values.size(), -1);
  for (size_t i = 0; i < graph.steps.size(); ++i) {
    for (uint32_t id : graph.steps[i]->inputs)
      ++u.readers[id];
    for (uint32_t id : graph.steps[i]->outputs)
      u.writer[id] = static_cast<int64_t>(i);
  }
  return u;
}

// Removes the steps marked in `drop`, keeping the order of the others.
void drop_steps(Graph& graph, const std::vector<bool>& drop) {
  auto& steps = graph.steps;
  size_t kept = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!drop[i])
      steps[kept++] = std::move(steps[i]);
  }
  steps.resize(kept);
}

}  // namespace

void fuse_sigmoid_multiply(Graph& graph) {
  auto& steps = graph.steps;
  const ValueUse use = value_use(graph);
  const std::vector<uint32_t>& readers = use.readers;
  const std::vector<int64_t>& writer = use.writer;
  std::vector<bool> drop(steps.size(), false);
  for (size_t i = 0; i < steps.size(); ++i) {
    const auto* mul = dynamic_cast<const BinaryStep*>(steps[i].get());
    if (mul == nullptr || mul->op() != BinaryOp::kMultiply || mul->clamps()) {
      continue;
    }
    const uint32_t a = mul->inputs[0], b = mul->inputs[1];
    for (const uint32_t gate : {a, b}) {
      const uint32_t other = gate == a ? b : a;
      if (writer[gate] < 0 || readers[gate] != 1 ||
          !is_plain_intermediate(graph.values[gate])) {
        continue;
      }
      const size_t at = static_cast<size_t>(writer[gate]);
      const auto* sigmoid = dynamic_cast<const UnaryStep*>(steps[at].get());
      if (sigmoid == nullptr || sigmoid->op() != UnaryOp::kSigmoid ||
          drop[at] || sigmoid->inputs[0] != other) {
        continue;
      }
      auto fused =
          std::make_unique<SigmoidMultiplyStep>(other, mul->outputs[0]);
      Step& from = *steps[i];
      fused->node_type_name = from.node_type_name;
      fused->node_index = from.node_index;
      fused->inputs = {other};
      fused->outputs = from.outputs;
      fused->owner_type_name = from.owner_type_name;
      fused->owner_index = from.owner_index;
      // The Sigmoid's output is now written by no step, so it gets no buffer.
      drop[at] = true;
      steps[i] = std::move(fused);
      break;
    }
  }
  drop_steps(graph, drop);
}

namespace {

// Folds single-input steps into the step that writes their input: for each step i with one
// input and one output, where that input is written by a step of one output, read by step i
// alone and accepted by input_ok, absorb(step i, producer) decides; when it succeeds, the
// producer writes step i's output, step i goes, and the input is left without a buffer (no
// step writes it any more).
template <class InputOk, class Absorb>
void fold_into_producers(
    Graph& graph, const InputOk& input_ok, const Absorb& absorb) {
  auto& steps = graph.steps;
  const ValueUse use = value_use(graph);
  std::vector<bool> drop(steps.size(), false);
  for (size_t i = 0; i < steps.size(); ++i) {
    Step& step = *steps[i];
    if (step.inputs.size() != 1 || step.outputs.size() != 1) {
      continue;
    }
    const uint32_t in = step.inputs[0];
    if (use.writer[in] < 0 || use.readers[in] != 1 ||
        !input_ok(graph.values[in])) {
      continue;
    }
    Step& producer = *steps[static_cast<size_t>(use.writer[in])];
    if (producer.outputs.size() != 1 || !absorb(step, producer)) {
      continue;
    }
    producer.outputs[0] = step.outputs[0];
    drop[i] = true;
  }
  drop_steps(graph, drop);
}

}  // namespace

void fuse_activations(Graph& graph) {
  fold_into_producers(
      graph, is_plain_intermediate, [&](Step& act, Step& producer) {
        const FusableActivation a = act.fusable_activation();
        // The output must be a plain float32 value (a rounding step onto a grid or a half format
        // would follow the activation).
        const Value& vo = graph.values[act.outputs[0]];
        return a != FusableActivation::kNone &&
               vo.format == FloatFormat::kFp32 &&
               vo.quant.kind == Quant::Kind::kNone &&
               producer.absorb_activation(a, act.outputs[0]);
      });
}

void fuse_clamps(Graph& graph) {
  const auto not_constant_or_external = [](const Value& v) {
    return !v.is_constant &&
           (v.flags & (kFlagExternalInput | kFlagExternalOutput)) == 0;
  };
  fold_into_producers(
      graph, not_constant_or_external, [](Step& step, Step& producer) {
        const auto* clamp = dynamic_cast<const UnaryStep*>(&step);
        // rounds_quantized_outputs: from a grid onto the same one, bounds on it (accept_unary).
        return clamp != nullptr && clamp->op() == UnaryOp::kClamp &&
               clamp->rounds_quantized_outputs &&
               producer.absorb_clamp(clamp->outputs[0], clamp->a(), clamp->b());
      });
}

void fuse_converts(Graph& graph) {
  // Not a constant or an external (their buffers are the caller's), and not one rounded onto a
  // half-precision or dynamic grid by a step after its producer.
  const auto foldable_input = [](const Value& v) {
    return !v.is_constant && v.format == FloatFormat::kFp32 &&
           v.quant.kind != Quant::Kind::kDynamicPerRow &&
           (v.flags & (kFlagExternalInput | kFlagExternalOutput)) == 0;
  };
  fold_into_producers(graph, foldable_input, [&](Step& step, Step& producer) {
    const auto* copy = dynamic_cast<const UnaryStep*>(&step);
    if (copy == nullptr || copy->op() != UnaryOp::kCopy) {
      return false;
    }
    // A per-tensor grid the producer does not round onto itself is rounded by a step after it,
    // on the input value, which would be left without a buffer.
    const Value& in = graph.values[step.inputs[0]];
    if (in.quant.kind == Quant::Kind::kPerTensor &&
        !producer.rounds_quantized_outputs) {
      return false;
    }
    return producer.retarget_output(step.outputs[0]);
  });
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
