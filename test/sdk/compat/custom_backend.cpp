// A custom delegate backend written the way upstream documents it: a
// BackendInterface subclass (const overrides) registered from a static
// initializer. main() looks it up and drives init/execute/destroy directly.
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/platform/profiler.h>

#include <cstdio>
#include <cstring>

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
using executorch::runtime::MemoryAllocator;
using executorch::runtime::Result;
using executorch::runtime::Span;

namespace {

struct Handle {
  int scale;
};

class DemoBackend final : public BackendInterface {
 public:
  bool is_available() const override {
    return true;
  }

  Result<DelegateHandle*> init(BackendInitContext& context, FreeableBuffer* processed,
                               ArrayRef<CompileSpec> compile_specs) const override {
    MemoryAllocator* allocator = context.get_runtime_allocator();
    Handle* handle = allocator->allocateInstance<Handle>();
    if (handle == nullptr) {
      return Error::MemoryAllocationFailed;
    }
    handle->scale = 1;
    for (const CompileSpec& spec : compile_specs) {
      if (std::strcmp(spec.key, "scale") == 0 && spec.value.nbytes == sizeof(int)) {
        std::memcpy(&handle->scale, spec.value.buffer, sizeof(int));
      }
    }
    if (processed != nullptr) {
      processed->Free();
    }
    return handle;
  }

  Error execute(BackendExecutionContext& context, DelegateHandle* handle,
                Span<EValue*> args) const override {
    (void)context;
    EXECUTORCH_SCOPE_PROF("DemoBackend::execute");
    const auto* h = static_cast<const Handle*>(handle);
    ET_CHECK_OR_RETURN_ERROR(args.size() == 2, InvalidArgument, "expected 2 args, got %zu",
                             args.size());
    *args[1] = EValue(args[0]->toInt() * h->scale);
    return Error::Ok;
  }

  void destroy(DelegateHandle* handle) const override {
    (void)handle;
  }
};

auto demo_backend = DemoBackend();
Backend backend{"DemoBackend", &demo_backend};
static auto registered = executorch::runtime::register_backend(backend);

}  // namespace

int main() {
  if (registered != Error::Ok) {
    std::fprintf(stderr, "registration failed\n");
    return 1;
  }
  BackendInterface* found = executorch::runtime::get_backend_class("DemoBackend");
  if (found != &demo_backend || !found->is_available()) {
    std::fprintf(stderr, "backend not found\n");
    return 1;
  }
  if (executorch::runtime::register_backend(backend) == Error::Ok) {
    std::fprintf(stderr, "duplicate registration accepted\n");
    return 1;
  }

  uint8_t pool[256];
  MemoryAllocator allocator(sizeof(pool), pool);
  BackendInitContext init_context(&allocator);
  int scale = 3;
  CompileSpec specs[] = {{"scale", {&scale, sizeof(scale)}}};
  auto handle = found->init(init_context, nullptr, ArrayRef<CompileSpec>(specs, 1));
  if (!handle.ok()) {
    return 1;
  }
  EValue in(int64_t(14));
  EValue out;
  EValue* args[] = {&in, &out};
  BackendExecutionContext exec_context;
  if (found->execute(exec_context, *handle, Span<EValue*>(args, 2)) != Error::Ok ||
      out.toInt() != 42) {
    std::fprintf(stderr, "execute failed\n");
    return 1;
  }
  found->destroy(*handle);
  std::printf("custom_backend: ok\n");
  return 0;
}
