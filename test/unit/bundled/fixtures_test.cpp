// The committed .bpte fixtures (test/fixtures/bundled, written with upstream's BundledProgram
// writer by test/bundled/export_bundled.py): every test case of every method passes, except the
// ones the manifest lists as failing, which fail with the mismatch reported.
#include <set>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include <executorch/devtools/bundled_program/bundled_program.h>
#include <executorch/devtools/bundled_program/bundled_program_reader.h>

#include "bundled_test_util.h"

namespace bp = executorch::bundled_program;
using executorch::runtime::Error;

namespace {

std::set<std::pair<std::string, size_t>> failing_cases(const test::Json& prog) {
  std::set<std::pair<std::string, size_t>> out;
  for (const auto& f : prog["failing_cases"].arr) {
    out.insert({f["method"].str, static_cast<size_t>(f["case"].num)});
  }
  return out;
}

class BundledFixtures : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(bptest::manifest().type, test::Json::Type::Object)
        << "no manifest in " << bptest::fixtures_dir();
    rtol_ = bptest::manifest()["tolerance"]["rtol"].num;
    atol_ = bptest::manifest()["tolerance"]["atol"].num;
  }
  double rtol_ = 0;
  double atol_ = 0;
};

TEST_F(BundledFixtures, EveryCaseRunsAndMatchesExceptTheWrongOnes) {
  size_t passed = 0;
  size_t failed = 0;
  for (const auto& prog : bptest::manifest()["programs"].arr) {
    const std::string file = bptest::fixtures_dir() + "/" + prog["file"].str;
    auto bundle = bptest::open_bundle(bptest::read_bytes(file));
    ASSERT_EQ(bundle->error, Error::Ok) << file;
    const auto wrong = failing_cases(prog);
    for (const auto& m : prog["methods"].arr) {
      const std::string name = m["name"].str;
      auto loaded = bptest::load_method(*bundle, name.c_str());
      ASSERT_EQ(loaded->program_error, Error::Ok) << file << " " << name;
      ASSERT_EQ(loaded->method_error, Error::Ok) << file << " " << name;
      bp::Method& method = *loaded->method;
      for (size_t c = 0; c < static_cast<size_t>(m["test_cases"].num); ++c) {
        const std::string where = file + " " + name + " case " + std::to_string(c);
        ASSERT_EQ(bp::load_bundled_input(method, bundle->file.data(), c), Error::Ok) << where;
        ASSERT_EQ(method.execute(), Error::Ok) << where;
        test::clear_captured_logs();
        const Error verdict =
            bp::verify_method_outputs(method, bundle->file.data(), c, rtol_, atol_);
        const bp::ErrorStats stats =
            bp::compute_method_output_error_stats(method, bundle->file.data(), c);
        ASSERT_EQ(stats.status, Error::Ok) << where;
        if (wrong.count({name, c}) != 0) {
          EXPECT_EQ(verdict, Error::NotFound) << where;
          // The generator moved one element by 0.5.
          EXPECT_NEAR(stats.max_abs_error, 0.5, 1e-3) << where;
          EXPECT_NE(
              test::captured_logs().find("method '" + name + "', test case " + std::to_string(c) +
                                         ": output 0 differs (max abs error 0.5"),
              std::string::npos)
              << test::captured_logs();
          ++failed;
        } else {
          EXPECT_EQ(verdict, Error::Ok) << where << "\n" << test::captured_logs();
          EXPECT_LE(stats.max_abs_error, 1e-4) << where;
          ++passed;
        }
      }
    }
  }
  EXPECT_EQ(failed, 1u);
  EXPECT_GE(passed, 15u);
}

TEST_F(BundledFixtures, ReaderListsTheManifestsSuitesAndCases) {
  for (const auto& prog : bptest::manifest()["programs"].arr) {
    const std::string file = bptest::fixtures_dir() + "/" + prog["file"].str;
    bptest::Bytes bytes = bptest::read_bytes(file);
    auto reader = bp::BundledProgramReader::load(bytes.data(), bytes.size);
    ASSERT_TRUE(reader.ok()) << file;
    ASSERT_EQ(reader->num_method_test_suites(), prog["methods"].size()) << file;
    for (const auto& m : prog["methods"].arr) {
      auto suite = reader->find_method_test_suite(m["name"].str.c_str());
      ASSERT_TRUE(suite.ok()) << file << " " << m["name"].str;
      EXPECT_STREQ(reader->method_name(suite.get()).get(), m["name"].str.c_str());
      EXPECT_EQ(reader->num_test_cases(suite.get()).get(),
                static_cast<size_t>(m["test_cases"].num));
    }
    EXPECT_EQ(reader->find_method_test_suite("no_such_method").error(), Error::NotFound);
    // The embedded program is the file's program vector, inside the file.
    const auto* begin = static_cast<const uint8_t*>(bytes.data());
    const auto* program = static_cast<const uint8_t*>(reader->program_data());
    EXPECT_GT(program, begin);
    EXPECT_LE(program + reader->program_size(), begin + bytes.size);
  }
}

TEST_F(BundledFixtures, PrimInputsAreReadAsScalars) {
  bptest::Bytes bytes = bptest::read_bytes(bptest::fixtures_dir() + "/prim_inputs.bpte");
  auto reader = bp::BundledProgramReader::load(bytes.data(), bytes.size);
  ASSERT_TRUE(reader.ok());
  ASSERT_EQ(reader->num_inputs(0, 0).get(), 5u);
  EXPECT_EQ(reader->input(0, 0, 0)->kind, bp::BundledValueKind::Tensor);
  EXPECT_EQ(reader->input(0, 0, 2)->kind, bp::BundledValueKind::Int);
  EXPECT_EQ(reader->input(0, 0, 2)->int_value, 3);
  EXPECT_EQ(reader->input(0, 0, 3)->kind, bp::BundledValueKind::Double);
  EXPECT_EQ(reader->input(0, 0, 3)->double_value, 0.5);
  EXPECT_EQ(reader->input(0, 0, 4)->kind, bp::BundledValueKind::Bool);
  EXPECT_TRUE(reader->input(0, 0, 4)->bool_value);
  EXPECT_EQ(reader->input(0, 0, 5).error(), Error::InvalidArgument);
  EXPECT_EQ(reader->input(0, 2, 0).error(), Error::InvalidArgument);
  EXPECT_EQ(reader->input(1, 0, 0).error(), Error::InvalidArgument);
}

}  // namespace
