// Runs a zoo program (test/fixtures/zoo) the way the whole-model tests need it: Program and
// Method with planned memory from the method's meta, unplanned outputs given buffers, the
// program's .ptd data file if it has one, and every recorded call of every method in order on
// one loaded method (stateful programs carry their state; dynamic-shape programs get both
// sizes). After each call, `after_call(where, method, call)` sees the outputs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>

#include "json.h"
#include "zoo_fixture.h"

namespace test {

using ZooCallback = std::function<void(const std::string& where,
                                       executorch::runtime::Method& method, const Json& call)>;

// Uses gtest assertions: a failure to load or execute ends the run with a failure.
// `config` is the load configuration of every method (e.g. preparation off).
inline void run_zoo_program(const Json& prog, const ZooCallback& after_call,
                            const executorch::runtime::MethodLoadConfig& config = {}) {
  using executorch::extension::FileDataLoader;
  using executorch::extension::FlatTensorDataMap;
  using executorch::extension::MallocMemoryAllocator;
  using executorch::runtime::Error;
  using executorch::runtime::HierarchicalAllocator;
  using executorch::runtime::MemoryManager;
  using executorch::runtime::Program;
  using executorch::runtime::Span;

  const std::string name = prog["name"].str;
  auto loader = FileDataLoader::from((zoo_dir() + "/" + prog["file"].str).c_str());
  ASSERT_TRUE(loader.ok()) << name;
  auto program = Program::load(&loader.get());
  ASSERT_TRUE(program.ok()) << name << ": Program::load error "
                            << static_cast<int>(program.error());
  std::unique_ptr<FileDataLoader> ptd_loader;
  std::unique_ptr<FlatTensorDataMap> data_map;
  if (prog["data_files"].size() > 0) {
    auto l = FileDataLoader::from((zoo_dir() + "/" + prog["data_files"][0].str).c_str());
    ASSERT_TRUE(l.ok());
    ptd_loader = std::make_unique<FileDataLoader>(std::move(l.get()));
    auto m = FlatTensorDataMap::load(ptd_loader.get());
    ASSERT_TRUE(m.ok());
    data_map = std::make_unique<FlatTensorDataMap>(std::move(m.get()));
  }
  for (const auto& meth : prog["methods"].arr) {
    const std::string mname = meth["name"].str;
    const std::string where0 = name + "." + mname;
    auto meta = program->method_meta(mname.c_str());
    ASSERT_TRUE(meta.ok()) << where0;
    std::vector<std::vector<uint8_t>> buffers;
    std::vector<Span<uint8_t>> spans;
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      buffers.emplace_back(static_cast<size_t>(meta->memory_planned_buffer_size(i).get()));
    }
    for (auto& b : buffers) {
      spans.emplace_back(b.data(), b.size());
    }
    HierarchicalAllocator planned({spans.data(), spans.size()});
    MallocMemoryAllocator method_alloc;
    MallocMemoryAllocator temp_alloc;
    MemoryManager mm(&method_alloc, &planned, &temp_alloc);
    auto method = program->load_method(mname.c_str(), &mm, config, nullptr, data_map.get());
    ASSERT_TRUE(method.ok()) << where0 << ": load_method error 0x" << std::hex
                             << static_cast<int>(method.error());
    std::vector<std::vector<uint8_t>> out_buffers;
    for (size_t o = 0; o < meta->num_outputs(); ++o) {
      auto tag = meta->output_tag(o);
      if (!tag.ok() || tag.get() != executorch::runtime::Tag::Tensor) {
        continue;
      }
      auto info = meta->output_tensor_meta(o);
      if (info.ok() && !info->is_memory_planned()) {
        out_buffers.emplace_back(info->nbytes() + 64);
        ASSERT_EQ(
            method->set_output_data_ptr(out_buffers.back().data(), out_buffers.back().size(), o),
            Error::Ok)
            << where0 << " output " << o;
      }
    }
    const auto& calls = meth["calls"].arr;
    for (size_t c = 0; c < calls.size(); ++c) {
      const std::string where = where0 + " call " + std::to_string(c);
      const auto& ins = calls[c]["inputs"].arr;
      std::vector<ZooValue> inputs(ins.size());
      for (size_t i = 0; i < ins.size(); ++i) {
        std::string err;
        ASSERT_TRUE(make_zoo_value(ins[i], &inputs[i], &err)) << where << ": " << err;
        ASSERT_EQ(method->set_input(inputs[i].value, i), Error::Ok) << where << " input " << i;
      }
      const Error e = method->execute();
      ASSERT_EQ(e, Error::Ok) << where << ": execute error 0x" << std::hex << static_cast<int>(e);
      after_call(where, *method, calls[c]);
    }
  }
}

}  // namespace test
