// The XNNPACK-lowered Llamas of test/fixtures/llm (upstream's export_llama with -X, written by
// test/zoo/export_llm.py): their delegate graphs have a dynamic sequence length, so a prefill
// call runs the graph below its exported bound and every decode call at length 1. The greedy
// continuation must be upstream's runtime's, token for token, and each step's logits must
// agree with the ones upstream's runtime gave (recorded next to the program).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>

#include "../common/json.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::extension::FileDataLoader;
using executorch::extension::MallocMemoryAllocator;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::Program;
using executorch::runtime::Span;

namespace {

const std::string kLlmDir = "test/fixtures/llm";
// Ours and upstream's logits differ by rounding only (about 1e-6 measured, for the 8da4w
// program too: its quantized linear layers run XNNPACK's own integer arithmetic, bit for bit,
// and what differs by an ulp is outside them: the portable mean and sigmoid, the attention).
constexpr float kLogitTolerance = 1e-4f;

class LlamaFixture {
 public:
  explicit LlamaFixture(const std::string& file)
      : loader_(FileDataLoader::from((kLlmDir + "/" + file).c_str())) {}

  // Loads the program and its forward method; false (with a test failure) if anything fails.
  bool load() {
    EXPECT_TRUE(loader_.ok());
    if (!loader_.ok())
      return false;
    auto program = Program::load(&loader_.get());
    EXPECT_TRUE(program.ok());
    if (!program.ok())
      return false;
    program_.reset(new Program(std::move(program.get())));
    auto meta = program_->method_meta("forward");
    EXPECT_TRUE(meta.ok());
    if (!meta.ok())
      return false;
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i)
      buffers_.emplace_back(static_cast<size_t>(meta->memory_planned_buffer_size(i).get()));
    for (auto& b : buffers_)
      spans_.emplace_back(b.data(), b.size());
    planned_.reset(new HierarchicalAllocator({spans_.data(), spans_.size()}));
    memory_.reset(new MemoryManager(&method_alloc_, planned_.get(), &temp_alloc_));
    auto method = program_->load_method("forward", memory_.get());
    EXPECT_EQ(method.error(), Error::Ok);
    if (!method.ok())
      return false;
    method_.reset(new Method(std::move(method.get())));
    return true;
  }

  // forward(tokens [1, n], input_pos [1]): the last position's logits.
  std::vector<float> forward(const std::vector<int64_t>& tokens, int64_t pos) {
    std::vector<int64_t> tok = tokens;
    int64_t pos_data = pos;
    TensorImpl::SizesType tok_sizes[2] = {1, static_cast<TensorImpl::SizesType>(tok.size())};
    TensorImpl::SizesType pos_sizes[1] = {1};
    TensorImpl tok_impl(ScalarType::Long, 2, tok_sizes, tok.data());
    TensorImpl pos_impl(ScalarType::Long, 1, pos_sizes, &pos_data);
    EXPECT_EQ(method_->set_input(EValue(Tensor(&tok_impl)), 0), Error::Ok);
    EXPECT_EQ(method_->set_input(EValue(Tensor(&pos_impl)), 1), Error::Ok);
    EXPECT_EQ(method_->execute(), Error::Ok);
    const Tensor out = method_->get_output(0).toTensor();
    const size_t vocab = static_cast<size_t>(out.size(out.dim() - 1));
    const float* p = out.const_data_ptr<float>() + (out.numel() - vocab);
    return std::vector<float>(p, p + vocab);
  }

 private:
  executorch::runtime::Result<FileDataLoader> loader_;
  std::unique_ptr<Program> program_;
  std::vector<std::vector<uint8_t>> buffers_;
  std::vector<Span<uint8_t>> spans_;
  std::unique_ptr<HierarchicalAllocator> planned_;
  MallocMemoryAllocator method_alloc_, temp_alloc_;
  std::unique_ptr<MemoryManager> memory_;
  std::unique_ptr<Method> method_;
};

size_t argmax(const std::vector<float>& v) {
  size_t best = 0;
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] > v[best])
      best = i;
  return best;
}

std::vector<float> read_floats(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<float> v(bytes.size() / sizeof(float));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  return v;
}

TEST(XnnpackLlama, GreedyTokensAndLogitsMatchUpstream) {
  test::Json manifest;
  ASSERT_TRUE(test::read_json(kLlmDir + "/manifest.json", &manifest));
  size_t lowered = 0;
  for (const test::Json& prog : manifest["programs"].arr) {
    const std::string name = prog["name"].str;
    if (name.find("xnnpack") == std::string::npos)
      continue;
    ++lowered;
    SCOPED_TRACE(name);
    LlamaFixture llama(prog["file"].str);
    ASSERT_TRUE(llama.load());
    std::vector<int64_t> prompt;
    for (const test::Json& t : prog["prompt"].arr)
      prompt.push_back(static_cast<int64_t>(t.num));
    std::vector<size_t> want;
    for (const test::Json& t : prog["expected_tokens_upstream"].arr)
      want.push_back(static_cast<size_t>(t.num));
    const std::vector<float> upstream = read_floats(kLlmDir + "/" + prog["logits_upstream"].str);
    ASSERT_FALSE(want.empty());
    ASSERT_EQ(upstream.size() % want.size(), 0u);
    const size_t vocab = upstream.size() / want.size();

    // One prefill call with the whole prompt (below the graph's bound), then one decode call
    // per token (length 1), as upstream's runtime ran it.
    std::vector<float> logits = llama.forward(prompt, 0);
    int64_t pos = static_cast<int64_t>(prompt.size());
    for (size_t step = 0; step < want.size(); ++step) {
      ASSERT_EQ(logits.size(), vocab) << "step " << step;
      for (size_t i = 0; i < vocab; ++i) {
        ASSERT_NEAR(logits[i], upstream[step * vocab + i], kLogitTolerance)
            << "step " << step << ", logit " << i;
      }
      ASSERT_EQ(argmax(logits), want[step]) << "step " << step;
      logits = llama.forward({static_cast<int64_t>(want[step])}, pos++);
    }
  }
  EXPECT_GE(lowered, 2u) << "the manifest lists no XNNPACK-lowered Llama";
}

}  // namespace
