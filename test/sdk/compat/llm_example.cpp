// Consumer program: greedy generation with a Llama written by upstream's export_llama
// (forward(tokens int64[1, n], input_pos int64[1]) -> logits, KV cache inside). The README's
// C++ generation example is this file. Run as: llm_example llama.pte 1,17,42 N
// and it prints N new token ids.
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

using executorch::aten::ScalarType;
using executorch::extension::make_tensor_ptr;
using executorch::extension::Module;

// Runs forward on `ids` starting at position `pos`; returns the argmax of the last logits row.
static int64_t next_token(Module& llm, std::vector<int64_t> ids, int64_t pos) {
  auto tokens = make_tensor_ptr({1, static_cast<int>(ids.size())}, ids.data(), ScalarType::Long);
  auto start = make_tensor_ptr({1}, &pos, ScalarType::Long);
  auto out = llm.forward({tokens, start});
  if (!out.ok()) {
    std::fprintf(stderr, "forward failed: error 0x%x\n", static_cast<unsigned>(out.error()));
    std::exit(1);
  }
  const auto& logits = (*out)[0].toTensor();
  const int64_t vocab = logits.size(logits.dim() - 1);
  const float* last = logits.const_data_ptr<float>() + logits.numel() - vocab;
  return std::max_element(last, last + vocab) - last;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s llama.pte ID,ID,... N\n", argv[0]);
    return 2;
  }
  std::vector<int64_t> prompt;
  for (char* p = argv[2]; *p != '\0'; p += (*p == ',')) {
    prompt.push_back(std::strtoll(p, &p, 10));
  }
  Module llm(argv[1]);
  int64_t token = next_token(llm, prompt, 0);  // prefill: the whole prompt at position 0
  for (int64_t pos = prompt.size(), n = std::atoll(argv[3]); n > 0; --n, ++pos) {
    std::printf("%lld\n", static_cast<long long>(token));
    if (n > 1) {
      token = next_token(llm, {token}, pos);  // decode: one token at the next position
    }
  }
  return 0;
}
