/*
 * Random ops: rand.out (uniform in [0, 1)), randn.out (standard normal) and
 * native_dropout.out (out0 = input * mask / (1 - p), out1 = the Bool mask,
 * each element kept with probability 1 - p; without training, or with
 * p = 0, input is copied and the mask is all true). Floating dtypes. Each
 * call draws from its own generator seeded from std::random_device, so
 * results differ from call to call as PyTorch's unseeded ones do.
 */
#include <cmath>
#include <optional>
#include <random>
#include <tuple>

#include <executorch/runtime/kernels/detail/shape_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(rand_out_name, "aten::rand.out");
ET_DEFINE_OPERATOR_NAME(randn_out_name, "aten::randn.out");
ET_DEFINE_OPERATOR_NAME(native_dropout_out_name, "aten::native_dropout.out");

std::mt19937_64 seeded_generator() {
  std::random_device device;
  return std::mt19937_64((static_cast<uint64_t>(device()) << 32) ^ device());
}

// Writes draw() to every element of out (logical order does not matter: values are i.i.d.).
template <class Draw>
Tensor& fill_random(const char* op, KernelRuntimeContext& ctx, ArrayRef<int64_t> size, Tensor& out,
                    Draw draw) {
  if (!check_dtype_in(ctx, op, "out", out, dtypes::kFloatHBF16) ||
      !resize_out(ctx, op, out, size)) {
    return out;
  }
  std::mt19937_64 gen = seeded_generator();
  const StoreFn<double> st = store_fn<double>(out.scalar_type());
  char* y = static_cast<char*>(out.mutable_data_ptr());
  const int64_t es = out.element_size();
  for (int64_t i = 0; i < out.numel(); ++i) {
    st(draw(gen), y + i * es);
  }
  return out;
}

Tensor& rand_out(KernelRuntimeContext& ctx, ArrayRef<int64_t> size, Tensor& out) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  // A draw that rounds to 1.0 in out's dtype is drawn again: 1 is outside [0, 1).
  const StoreFn<double> st = store_fn<double>(out.scalar_type());
  const LoadFn<double> ld = load_fn<double>(out.scalar_type());
  return fill_random(log_name(rand_out_name), ctx, size, out, [&](std::mt19937_64& g) {
    double v;
    uint64_t buf;
    do {
      v = uniform(g);
      st(v, &buf);
    } while (ld(&buf) >= 1.0);
    return v;
  });
}

Tensor& randn_out(KernelRuntimeContext& ctx, ArrayRef<int64_t> size, Tensor& out) {
  std::normal_distribution<double> normal(0.0, 1.0);
  return fill_random(log_name(randn_out_name), ctx, size, out,
                     [&](std::mt19937_64& g) { return normal(g); });
}

std::tuple<Tensor&, Tensor&> native_dropout_out(KernelRuntimeContext& ctx, const Tensor& input,
                                                double p, std::optional<bool> train, Tensor& out0,
                                                Tensor& out1) {
  const char* op = log_name(native_dropout_out_name);
  std::tuple<Tensor&, Tensor&> ret(out0, out1);
  if (!check_dtype_in(ctx, op, "input", input, dtypes::kFloatHBF16) ||
      !check_same_dtype(ctx, op, "input", input, "out0", out0) ||
      !check_dtype(ctx, op, "out1", out1, ScalarType::Bool) ||
      !resize_out_like(ctx, op, out0, input) || !resize_out_like(ctx, op, out1, input)) {
    return ret;
  }
  ET_KERNEL_CHECK_MSG(ctx, p >= 0 && p <= 1, InvalidArgument, ret,
                      "%s: argument 'p' (%g) must be in [0, 1]", op, p);
  const bool active = train.value_or(true) && p > 0;
  std::mt19937_64 gen = seeded_generator();
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const double scale = p < 1 ? 1.0 / (1.0 - p) : 0.0;
  const LoadFn<double> ld = load_fn<double>(input.scalar_type());
  const StoreFn<double> st = store_fn<double>(out0.scalar_type());
  const int64_t es = input.element_size();
  const char* x = static_cast<const char*>(input.const_data_ptr());
  char* y = static_cast<char*>(out0.mutable_data_ptr());
  bool* m = out1.mutable_data_ptr<bool>();
  for (int64_t i = 0; i < input.numel(); ++i) {
    const int64_t xi = logical_to_offset(input, i);
    const bool keep = !active || (p < 1 && uniform(gen) >= p);
    const double v = ld(x + xi * es);
    st(!active ? v : (keep ? v * scale : 0.0), y + logical_to_offset(out0, i) * es);
    m[logical_to_offset(out1, i)] = keep;
  }
  return ret;
}

ETK_REGISTER_KERNEL(rand_out_name, rand_out);
ETK_REGISTER_KERNEL(randn_out_name, randn_out);
ETK_REGISTER_KERNEL(native_dropout_out_name, native_dropout_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
