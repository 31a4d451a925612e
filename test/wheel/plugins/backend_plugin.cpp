// A backend plugin built by a consumer of the wheel: registers "WheelPlugBkend" from a static
// initializer. test/wheel/wheelcheck.py runs a copy of the zoo's mlp_xnnpack.pte whose delegate id
// "XnnpackBackend" was renamed "WheelPlugBkend" (same length): this backend ignores the payload
// and fills the delegate's output (its last argument) with 42, which shows it was the one used.
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>

using executorch::runtime::ArrayRef;
using executorch::runtime::Backend;
using executorch::runtime::BackendExecutionContext;
using executorch::runtime::BackendInitContext;
using executorch::runtime::BackendInterface;
using executorch::runtime::CompileSpec;
using executorch::runtime::DelegateHandle;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Result;
using executorch::runtime::Span;

namespace {

int handle_storage = 0;

class WheelPlugBackend final : public BackendInterface {
 public:
  bool is_available() const override {
    return true;
  }
  Result<DelegateHandle*> init(BackendInitContext&, FreeableBuffer* processed,
                               ArrayRef<CompileSpec>) const override {
    if (processed != nullptr)
      processed->Free();
    return static_cast<DelegateHandle*>(&handle_storage);
  }
  Error execute(BackendExecutionContext&, DelegateHandle*, Span<EValue*> args) const override {
    if (args.size() == 0 || !args[args.size() - 1]->isTensor())
      return Error::InvalidArgument;
    auto& out = args[args.size() - 1]->toTensor();
    float* y = out.mutable_data_ptr<float>();
    for (ptrdiff_t i = 0; i < static_cast<ptrdiff_t>(out.numel()); ++i)
      y[i] = 42.0f;
    return Error::Ok;
  }
};

WheelPlugBackend backend_impl;
const Error registered =
    executorch::runtime::register_backend(Backend{"WheelPlugBkend", &backend_impl});

}  // namespace

extern "C" __attribute__((visibility("default"))) int wheel_backend_plugin_status() {
  return static_cast<int>(registered);
}
