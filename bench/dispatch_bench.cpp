// Per-instruction dispatch overhead of Method::execute (make bench-runtime).
//
// Generates, with the flatbuffers builder on our schema, a program whose one chain is N
// (default 1,000) KernelCalls of a trivial kernel registered by this binary
// ("bench::tiny.out", adds 1 to a one-element float tensor). Then, in interleaved rounds,
// times execute() of that chain against a direct loop calling the same kernel function N
// times through a function pointer with the same arguments. Reports medians:
// ns per instruction through the Method, ns per direct call, and their difference, the
// dispatch overhead.
// Usage: dispatch_bench [--quick] [--instructions N] [--rounds R]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <flatbuffers/flatbuffers.h>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/runtime.h>

#include <executorch_schema/program_generated.h>

#include "pte_gen.h"

namespace fb = ::executorch_flatbuffer;
using namespace executorch::runtime;

namespace {

void tiny_kernel(KernelRuntimeContext& ctx, Span<EValue*> args) {
  (void)ctx;
  float* out = args[1]->toTensor().mutable_data_ptr<float>();
  out[0] += 1.0f;
}

const Kernel kBenchKernels[] = {Kernel("bench::tiny.out", tiny_kernel)};
const Error kRegistered = register_kernels({kBenchKernels, 1});

std::vector<uint8_t> make_program(int n_instructions) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::EValue>> values;
  for (int v = 0; v < 2; ++v) {
    std::vector<int32_t> sizes = {1};
    std::vector<uint8_t> order = {0};
    auto alloc = fb::CreateAllocationDetails(b, 1, uint32_t(v * 64), 0);
    auto t = fb::CreateTensorDirect(b, fb::ScalarType::FLOAT, 0, &sizes, &order, false, 0, alloc);
    values.push_back(fb::CreateEValue(b, fb::KernelTypes::Tensor, t.Union()));
  }
  std::vector<flatbuffers::Offset<fb::Instruction>> instrs;
  std::vector<int32_t> args = {0, 1};
  for (int i = 0; i < n_instructions; ++i) {
    instrs.push_back(fb::CreateInstruction(b, fb::InstructionArguments::KernelCall,
                                           fb::CreateKernelCallDirect(b, 0, &args).Union()));
  }
  std::vector<int32_t> empty;
  std::vector<flatbuffers::Offset<fb::Chain>> chains = {
      fb::CreateChainDirect(b, &empty, &empty, &instrs)};
  std::vector<flatbuffers::Offset<fb::Operator>> ops = {
      fb::CreateOperatorDirect(b, "bench::tiny", "out")};
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs = {1};
  std::vector<int64_t> buffer_sizes = {0, 128};
  std::vector<flatbuffers::Offset<fb::BackendDelegate>> delegates;
  auto plan = fb::CreateExecutionPlanDirect(b, "forward", 0, &values, &inputs, &outputs, &chains,
                                            &ops, &delegates, &buffer_sizes);
  std::vector<flatbuffers::Offset<fb::ExecutionPlan>> plans = {plan};
  auto prog = fb::CreateProgramDirect(b, 0, &plans);
  fb::FinishProgramBuffer(b, prog);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

// Keeps the direct loop from being inlined or hoisted: the call goes through a pointer the
// compiler cannot see through, like the Method's resolved kernel pointer.
OpFunction volatile g_direct_fn = tiny_kernel;

}  // namespace

int main(int argc, char** argv) {
  int n = 1000;
  int rounds = 41;
  int reps = 200;  // executes per timed sample
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      rounds = 7;
      reps = 20;
    } else if (!std::strcmp(argv[i], "--instructions") && i + 1 < argc) {
      n = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--quick] [--instructions N] [--rounds R]\n", argv[0]);
      return 2;
    }
  }
  runtime_init();
  if (kRegistered != Error::Ok) {
    std::fprintf(stderr, "registering the bench kernel failed: %s\n", to_string(kRegistered));
    return 1;
  }
  const std::vector<uint8_t> bytes = make_program(n);
  std::vector<std::max_align_t> storage(bytes.size() / sizeof(std::max_align_t) + 1);
  std::memcpy(storage.data(), bytes.data(), bytes.size());
  executorch::extension::BufferDataLoader loader(storage.data(), bytes.size());
  Result<Program> program = Program::load(&loader);
  if (!program.ok()) {
    std::fprintf(stderr, "Program::load: %s\n", to_string(program.error()));
    return 1;
  }
  alignas(64) static uint8_t arena[128];
  alignas(16) static uint8_t method_pool[1 << 20];
  Span<uint8_t> spans[] = {{arena, sizeof(arena)}};
  HierarchicalAllocator planned({spans, 1});
  MemoryAllocator method_alloc(sizeof(method_pool), method_pool);
  MemoryManager mm(&method_alloc, &planned);
  Result<Method> method = program->load_method("forward", &mm);
  if (!method.ok()) {
    std::fprintf(stderr, "load_method: %s\n", to_string(method.error()));
    return 1;
  }

  // The direct loop's arguments: the Method's own tensors are not reachable, so two
  // equivalent one-element float tensors.
  float x = 0, y = 0;
  executorch::aten::TensorImpl::SizesType sizes[1] = {1};
  executorch::aten::TensorImpl::DimOrderType order[1] = {0};
  executorch::aten::TensorImpl::StridesType strides[1] = {1};
  executorch::aten::TensorImpl tx(executorch::aten::ScalarType::Float, 1, sizes, &x, order,
                                  strides);
  executorch::aten::TensorImpl ty(executorch::aten::ScalarType::Float, 1, sizes, &y, order,
                                  strides);
  EValue ex{executorch::aten::Tensor(&tx)};
  EValue ey{executorch::aten::Tensor(&ty)};
  EValue* direct_args[2] = {&ex, &ey};

  std::vector<double> per_instr, per_call;
  for (int r = 0; r < rounds + 1; ++r) {  // round 0 warms up
    uint64_t t0 = bench::wall_ns();
    for (int k = 0; k < reps; ++k) {
      if (method->execute() != Error::Ok) {
        std::fprintf(stderr, "execute failed\n");
        return 1;
      }
    }
    uint64_t t1 = bench::wall_ns();
    for (int k = 0; k < reps; ++k) {
      for (int i = 0; i < n; ++i) {
        KernelRuntimeContext ctx(nullptr, nullptr);
        g_direct_fn(ctx, Span<EValue*>(direct_args, 2));
      }
    }
    uint64_t t2 = bench::wall_ns();
    if (r > 0) {
      per_instr.push_back(double(t1 - t0) / (double(reps) * n));
      per_call.push_back(double(t2 - t1) / (double(reps) * n));
    }
  }
  const float result = method->get_output(0).toTensor().const_data_ptr<float>()[0];
  const double mi = bench::median(per_instr), mc = bench::median(per_call);
  std::printf(
      "dispatch_bench: chain of %d KernelCalls (bench::tiny.out), %d rounds x %d executes\n", n,
      rounds, reps);
  std::printf("  Method::execute      %8.2f ns/instruction (median)\n", mi);
  std::printf("  direct call loop     %8.2f ns/call        (median)\n", mc);
  std::printf("  dispatch overhead    %8.2f ns/instruction (target <= 50)\n", mi - mc);
  std::printf("  (check: output = %.0f, direct = %.0f)\n", double(result), double(y));
  return 0;
}
