// Every program of the model zoo (test/fixtures/zoo, written by the upstream
// exporter) loads through the file and mmap loaders under both verification
// levels and reports the methods, inputs and outputs its manifest lists.
#include <dirent.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/runtime/executor/program.h>

#include "../common/json.h"
#include "../common/zoo_fixture.h"
#include "test_util.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

using namespace et_test;  // test_util.h
using executorch::extension::FileDataLoader;
using executorch::extension::FlatTensorDataMap;
using executorch::extension::MmapDataLoader;
using executorch::runtime::DataLoader;
using executorch::runtime::Tag;
using test::Json;
using test::zoo_dir;

namespace {

bool read_file(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

int dtype_code(const std::string& d) {
  static const std::map<std::string, int> m = {
      {"uint8", 0},   {"int8", 1},    {"int16", 2},   {"int32", 3}, {"int64", 4},
      {"float16", 5}, {"float32", 6}, {"float64", 7}, {"bool", 11}, {"bfloat16", 15}};
  auto it = m.find(d);
  return it == m.end() ? -1 : it->second;
}

Tag kind_tag(const std::string& k) {
  if (k == "tensor")
    return Tag::Tensor;
  if (k == "int")
    return Tag::Int;
  if (k == "double" || k == "float")
    return Tag::Double;
  if (k == "bool")
    return Tag::Bool;
  if (k == "str" || k == "string")
    return Tag::String;
  return Tag::None;
}

void check_io(const executorch::runtime::MethodMeta& meta, const Json& values, bool inputs,
              bool dynamic, const std::string& where) {
  for (size_t i = 0; i < values.arr.size(); ++i) {
    const Json& v = values.arr[i];
    auto tag = inputs ? meta.input_tag(i) : meta.output_tag(i);
    ASSERT_TRUE(tag.ok()) << where << " io " << i;
    EXPECT_EQ(static_cast<int>(tag.get()), static_cast<int>(kind_tag(v["kind"].str)))
        << where << (inputs ? " input " : " output ") << i;
    if (v["kind"].str != "tensor")
      continue;
    auto ti = inputs ? meta.input_tensor_meta(i) : meta.output_tensor_meta(i);
    ASSERT_TRUE(ti.ok()) << where << " io " << i;
    EXPECT_EQ(static_cast<int>(ti->scalar_type()), dtype_code(v["dtype"].str))
        << where << (inputs ? " input " : " output ") << i;
    ASSERT_EQ(ti->sizes().size(), v["shape"].arr.size()) << where << " io " << i;
    if (!dynamic) {
      for (size_t d = 0; d < ti->sizes().size(); ++d) {
        EXPECT_EQ(ti->sizes()[d], static_cast<int64_t>(v["shape"].arr[d].num))
            << where << " io " << i << " dim " << d;
      }
    }
  }
}

void check_program(const Json& entry, DataLoader* loader, Verification v) {
  const std::string where =
      entry["file"].str + (v == Verification::Minimal ? " [Minimal]" : " [Full]");
  clear_log();
  auto prog = Program::load(loader, v);
  ASSERT_TRUE(prog.ok()) << where << " error 0x" << std::hex << static_cast<int>(prog.error())
                         << "\n"
                         << captured_log();
  const Json& methods = entry["methods"];
  std::set<std::string> want, got;
  for (const Json& m : methods.arr)
    want.insert(m["name"].str);
  for (size_t i = 0; i < prog->num_methods(); ++i)
    got.insert(prog->get_method_name(i).get());
  EXPECT_EQ(got, want) << where;

  for (const Json& m : methods.arr) {
    const std::string mw = where + " " + m["name"].str;
    auto meta = prog->method_meta(m["name"].str.c_str());
    ASSERT_TRUE(meta.ok()) << mw;
    EXPECT_EQ(meta->num_inputs(), static_cast<size_t>(m["num_inputs"].num)) << mw;
    EXPECT_EQ(meta->num_outputs(), static_cast<size_t>(m["num_outputs"].num)) << mw;
    if (m.has("num_instructions")) {
      EXPECT_EQ(meta->num_instructions(), static_cast<size_t>(m["num_instructions"].num)) << mw;
    }
    const Json& ncbs = m["non_const_buffer_sizes"];
    if (ncbs.type == Json::Type::Array && !ncbs.arr.empty()) {
      ASSERT_EQ(meta->num_memory_planned_buffers(), ncbs.arr.size() - 1) << mw;
      for (size_t j = 0; j + 1 < ncbs.arr.size(); ++j) {
        EXPECT_EQ(meta->memory_planned_buffer_size(j).get(),
                  static_cast<int64_t>(ncbs.arr[j + 1].num))
            << mw;
      }
    }
    for (const Json& b : m["backend_ids"].arr) {
      EXPECT_TRUE(meta->uses_backend(b.str.c_str())) << mw << " backend " << b.str;
    }
    EXPECT_EQ(meta->num_backends() > 0, !m["backend_ids"].arr.empty()) << mw;
    if (!m["calls"].arr.empty()) {
      const Json& call = m["calls"].arr[0];
      const bool dyn = m["dynamic_shapes"].b;
      ASSERT_EQ(call["inputs"].arr.size(), meta->num_inputs()) << mw;
      ASSERT_EQ(call["outputs"].arr.size(), meta->num_outputs()) << mw;
      check_io(meta.get(), call["inputs"], true, dyn, mw);
      check_io(meta.get(), call["outputs"], false, dyn, mw);
    }
  }
  // Named data listed by the exporter is reachable through the PTE map.
  const Json& keys = entry["named_data_keys_in_pte"];
  if (!keys.arr.empty()) {
    auto map = prog->get_named_data_map();
    ASSERT_TRUE(map.ok()) << where;
    EXPECT_EQ(map.get()->get_num_keys().get(), keys.arr.size()) << where;
    for (const Json& k : keys.arr) {
      auto blob = map.get()->get_data(k.str);
      EXPECT_TRUE(blob.ok()) << where << " key " << k.str;
    }
  }
}

class Zoo : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string path = zoo_dir() + "/manifest.json";
    if (!std::ifstream(path)) {
      GTEST_SKIP() << "no zoo manifest in " << zoo_dir();
    }
    ASSERT_TRUE(test::read_json(path, &manifest_)) << "malformed " << path;
  }
  Json manifest_;
};

TEST_F(Zoo, EveryFixtureLoadsAndMatchesTheManifest) {
  const Json& programs = manifest_["programs"];
  ASSERT_FALSE(programs.arr.empty());
  for (const Json& entry : programs.arr) {
    const std::string path = zoo_dir() + "/" + entry["file"].str;
    for (Verification v : {Verification::Minimal, Verification::InternalConsistency}) {
      auto fl = FileDataLoader::from(path.c_str());
      ASSERT_TRUE(fl.ok()) << path;
      check_program(entry, &fl.get(), v);
      auto ml = MmapDataLoader::from(path.c_str(), MmapDataLoader::MlockConfig::NoMlock);
      ASSERT_TRUE(ml.ok()) << path;
      check_program(entry, &ml.get(), v);
    }
    for (const Json& df : entry["data_files"].arr) {
      const std::string dpath = zoo_dir() + "/" + df.str;
      auto dl = FileDataLoader::from(dpath.c_str());
      ASSERT_TRUE(dl.ok()) << dpath;
      clear_log();
      auto map = FlatTensorDataMap::load(&dl.get());
      ASSERT_TRUE(map.ok()) << dpath << "\n" << captured_log();
      const uint32_t n = map->get_num_keys().get();
      EXPECT_GT(n, 0u) << dpath;
      for (uint32_t k = 0; k < n; ++k) {
        const char* key = map->get_key(k).get();
        auto layout = map->get_tensor_layout(key);
        ASSERT_TRUE(layout.ok()) << dpath << " " << key;
        auto blob = map->get_data(key);
        ASSERT_TRUE(blob.ok()) << dpath << " " << key;
        EXPECT_GE(blob->size(), layout->nbytes()) << dpath << " " << key;
      }
    }
  }
}

TEST_F(Zoo, EveryFixtureHasCompatibleHeader) {
  DIR* d = opendir(zoo_dir().c_str());
  ASSERT_NE(d, nullptr);
  size_t n = 0;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() < 4 || name.substr(name.size() - 4) != ".pte")
      continue;
    std::string bytes;
    ASSERT_TRUE(read_file(zoo_dir() + "/" + name, &bytes));
    EXPECT_EQ(Program::check_header(bytes.data(), bytes.size()),
              Program::HeaderStatus::CompatibleVersion)
        << name;
    ++n;
  }
  closedir(d);
  EXPECT_GT(n, 0u);
}

}  // namespace
