// A kernel plugin built by a consumer of the wheel (find_package(executorch), executorch::runtime
// only): registers "plug::relu.out" from a static initializer. test/wheel/wheelcheck.py loads it
// with executorch_runtime.load_library() and runs a copy of the zoo's mlp.pte whose "aten::relu"
// operator was renamed "plug::relu", so the program's goldens hold only if this kernel ran.
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/kernel/operator_registry.h>

#include <cstddef>

using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Kernel;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::Span;

namespace {

// relu.out(Tensor self, *, Tensor(a!) out): args[0] = self, args[1] = out (memory-planned, same
// shape as self in this program).
void plug_relu_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (args.size() < 2 || !args[0]->isTensor() || !args[1]->isTensor()) {
    ctx.fail(Error::InvalidArgument);
    return;
  }
  const auto& in = args[0]->toTensor();
  auto& out = args[1]->toTensor();
  if (in.numel() != out.numel()) {
    ctx.fail(Error::InvalidArgument);
    return;
  }
  const float* x = in.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  for (ptrdiff_t i = 0; i < static_cast<ptrdiff_t>(in.numel()); ++i) {
    y[i] = x[i] > 0.0f ? x[i] : 0.0f;
  }
}

const Error registered =
    executorch::runtime::register_kernel(Kernel("plug::relu.out", plug_relu_out));

}  // namespace

extern "C" __attribute__((visibility("default"))) int wheel_kernel_plugin_status() {
  return static_cast<int>(registered);
}
