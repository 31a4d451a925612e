// A C++ program built against the installed wheel (test/wheel/wheelcheck.py builds it through
// find_package, pkg-config and plain -l). Only public headers and names.
//
//   app list <model.pte>                          one "method <name>" line per method, sorted
//   app run <model.pte> <method> <outdir> [in.bin ...]
//       runs the method on raw little-endian tensor inputs (shapes and dtypes from the method's
//       metadata); writes <outdir>/out<k>.bin and out<k>.txt ("<scalar type> <d0> <d1> ...")
//   app registry                                  "kernel <name>" (distinct, sorted) and
//                                                 "backend <name>" lines, then the counts
// Exit status 0 on success, 1 on a runtime error ("error: <code> ..." on stderr), 2 on misuse.
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/kernel/operator_registry.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::extension::Module;
using executorch::extension::TensorPtr;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Tag;

namespace {

int fail(const char* what, Error e) {
  std::fprintf(stderr, "error: %d %s\n", static_cast<int>(e), what);
  return 1;
}

int list(const char* path) {
  Module module(path);
  const Error e = module.load();
  if (e != Error::Ok)
    return fail("load", e);
  auto names = module.method_names();
  if (!names.ok())
    return fail("method_names", names.error());
  std::vector<std::string> sorted(names->begin(), names->end());
  std::sort(sorted.begin(), sorted.end());
  for (const auto& n : sorted)
    std::printf("method %s\n", n.c_str());
  return 0;
}

int run(const char* path, const std::string& method, const std::string& outdir, int nin,
        char** inputs) {
  Module module(path);
  if (Error e = module.load(); e != Error::Ok)
    return fail("load", e);
  auto meta = module.method_meta(method);
  if (!meta.ok())
    return fail("method_meta", meta.error());
  std::vector<TensorPtr> tensors;
  std::vector<EValue> args;
  int next = 0;
  for (size_t i = 0; i < meta->num_inputs(); ++i) {
    auto tag = meta->input_tag(i);
    if (!tag.ok() || *tag != Tag::Tensor) {
      std::fprintf(stderr, "error: input %zu is not a tensor\n", i);
      return 2;
    }
    if (next >= nin) {
      std::fprintf(stderr, "error: input %zu: no file given\n", i);
      return 2;
    }
    auto info = meta->input_tensor_meta(i);
    if (!info.ok())
      return fail("input_tensor_meta", info.error());
    std::ifstream f(inputs[next++], std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)),
                               std::istreambuf_iterator<char>());
    if (bytes.size() != info->nbytes()) {
      std::fprintf(stderr, "error: input %zu: %zu bytes, the method wants %zu\n", i, bytes.size(),
                   info->nbytes());
      return 2;
    }
    std::vector<SizesType> sizes(info->sizes().begin(), info->sizes().end());
    tensors.push_back(executorch::extension::make_tensor_ptr(std::move(sizes), std::move(bytes),
                                                             info->scalar_type()));
    args.emplace_back(*tensors.back());
  }
  auto result = module.execute(method, args);
  if (!result.ok())
    return fail("execute", result.error());
  for (size_t k = 0; k < result->size(); ++k) {
    const EValue& v = result->at(k);
    if (!v.isTensor())
      continue;
    const auto& t = v.toTensor();
    const std::string base = outdir + "/out" + std::to_string(k);
    std::ofstream bin(base + ".bin", std::ios::binary);
    bin.write(static_cast<const char*>(t.const_data_ptr()),
              static_cast<std::streamsize>(t.nbytes()));
    std::ofstream txt(base + ".txt");
    txt << static_cast<int>(t.scalar_type());
    for (auto d : t.sizes())
      txt << ' ' << d;
    txt << '\n';
  }
  std::printf("ran %s: %zu outputs\n", method.c_str(), result->size());
  return 0;
}

int registry() {
  std::set<std::string> kernels;
  for (const auto& k : executorch::runtime::get_registered_kernels()) {
    if (k.name_ != nullptr)
      kernels.insert(k.name_);
  }
  for (const auto& k : kernels)
    std::printf("kernel %s\n", k.c_str());
  const size_t nb = executorch::runtime::get_num_registered_backends();
  for (size_t i = 0; i < nb; ++i) {
    auto name = executorch::runtime::get_backend_name(i);
    std::printf("backend %s\n", name.ok() ? name.get() : "?");
  }
  std::printf("kernels %zu\nbackends %zu\n", kernels.size(), nb);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "list" && argc == 3)
    return list(argv[2]);
  if (cmd == "run" && argc >= 5)
    return run(argv[2], argv[3], argv[4], argc - 5, argv + 5);
  if (cmd == "registry" && argc == 2)
    return registry();
  std::fprintf(stderr,
               "usage: %s list <pte> | run <pte> <method> <outdir> [in.bin...] | registry\n",
               argv[0]);
  return 2;
}
