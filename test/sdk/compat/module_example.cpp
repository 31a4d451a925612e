// Consumer program in the style of the upstream Module documentation
// (extension-module.md / using-executorch-cpp.md): only the documented
// headers and names. Run as: module_example path/to/identity.pte
//
// identity.pte's forward(x[2,3], y[4]) returns (x, y), so it needs no
// kernel library.
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>

#include <cstdio>
#include <string>
#include <vector>

using namespace ::executorch::extension;
namespace runtime = ::executorch::runtime;
using executorch::aten::ScalarType;

#define CHECK(cond)                                                           \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::fprintf(stderr, "check failed at line %d: %s\n", __LINE__, #cond); \
      return 1;                                                               \
    }                                                                         \
  } while (0)

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s model.pte\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];

  // Create a Module; nothing is loaded yet.
  Module module(path);
  CHECK(!module.is_loaded());

  // Explicit loading reports errors early.
  const runtime::Error error = module.load();
  CHECK(error == runtime::Error::Ok);
  CHECK(module.is_loaded());

  const auto method_names = module.method_names();
  CHECK(method_names.ok());
  CHECK(method_names->count("forward") == 1);

  const auto method_meta = module.method_meta("forward");
  CHECK(method_meta.ok());
  std::printf("method %s: %zu inputs, %zu outputs\n", method_meta->name(),
              method_meta->num_inputs(), method_meta->num_outputs());
  const auto input_meta = method_meta->input_tensor_meta(0);
  CHECK(input_meta.ok());
  CHECK(input_meta->scalar_type() == ScalarType::Float);
  CHECK(method_meta->output_tensor_meta(0)->sizes().size() == 2);

  CHECK(module.load_method("forward") == runtime::Error::Ok);
  CHECK(module.is_method_loaded("forward"));
  CHECK(module.load_forward() == runtime::Error::Ok);

  // Wrap caller data, then run.
  float x_data[2 * 3] = {1, 2, 3, 4, 5, 6};
  auto x = from_blob(x_data, {2, 3});
  std::vector<float> y_data = {10, 20, 30, 40};
  auto y = make_tensor_ptr({4}, y_data.data());

  const auto result = module.forward({x, y});
  CHECK(result.ok());
  const auto output = result->at(0).toTensor().const_data_ptr<float>();
  CHECK(output[5] == 6.0f);
  CHECK(result->at(1).toTensor().const_data_ptr<float>()[3] == 40.0f);

  // Inputs set ahead of time, then forward() with no arguments.
  auto x2 = make_tensor_ptr({2, 3}, std::vector<float>(6, 7.0f));
  CHECK(module.set_input("forward", x2, 0) == runtime::Error::Ok);
  CHECK(module.set_input(y, 1) == runtime::Error::Ok);
  const auto again = module.forward();
  CHECK(again.ok());
  CHECK(again->at(0).toTensor().const_data_ptr<float>()[0] == 7.0f);

  CHECK(module.set_inputs("forward", std::vector<runtime::EValue>{x, y}) == runtime::Error::Ok);
  const auto by_name = module.execute("forward");
  CHECK(by_name.ok());
  const auto first = module.get("forward");
  CHECK(first.ok() && first->isTensor());

  // Errors come back as values.
  const auto missing = module.execute("no_such_method");
  CHECK(!missing.ok());
  std::printf("missing method -> error 0x%x\n", static_cast<unsigned>(missing.error()));

  Module broken(path + ".does-not-exist", Module::LoadMode::MmapUseMlock);
  CHECK(broken.load() != runtime::Error::Ok);

  std::printf("module_example: ok\n");
  return 0;
}
