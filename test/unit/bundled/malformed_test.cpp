// Malformed and mismatched .bpte files: each is refused with a typed Error and a log line naming
// what is wrong, never a crash. The files are mlp.bpte (forward: one float [4, 16] input, one
// float [4, 10] output) rewritten through the flatbuffers object API or patched in place.
#include <cstring>
#include <vector>
#include <string>

#include <gtest/gtest.h>

#include <executorch/devtools/bundled_program/bundled_program.h>
#include <executorch/devtools/bundled_program/bundled_program_reader.h>

#include "bundled_test_util.h"

namespace bp = executorch::bundled_program;
namespace fb = bundled_program_flatbuffer;
using executorch::runtime::Error;

namespace {

bptest::Bytes mlp() {
  return bptest::read_bytes(bptest::fixtures_dir() + "/mlp.bpte");
}

// The first input (or expected output) tensor of the first case.
fb::TensorT& first_tensor(fb::BundledProgramT& p, bool output = false) {
  auto& c = *p.method_test_suites[0]->test_cases[0];
  return *(output ? c.expected_outputs : c.inputs)[0]->val.AsTensor();
}

const fb::Tensor* first_input_table(bptest::Bytes& b) {
  return fb::GetBundledProgram(b.data())
      ->method_test_suites()
      ->Get(0)
      ->test_cases()
      ->Get(0)
      ->inputs()
      ->Get(0)
      ->val_as_Tensor();
}

fb::Tensor* mutable_first_input(bptest::Bytes& b) {
  void* val = fb::GetMutableBundledProgram(b.data())
                  ->mutable_method_test_suites()
                  ->GetMutableObject(0)
                  ->mutable_test_cases()
                  ->GetMutableObject(0)
                  ->mutable_inputs()
                  ->GetMutableObject(0)
                  ->mutable_val();
  return static_cast<fb::Tensor*>(val);
}

// Where field `vt` of a table lies in the (writable) file: the Verifier's own territory.
uint8_t* field_address(const void* table, flatbuffers::voffset_t vt) {
  return const_cast<uint8_t*>(reinterpret_cast<const flatbuffers::Table*>(table)->GetAddressOf(vt));
}

// get_program_data()'s verdict on `b`, with the log checked to contain `needle`.
void expect_rejected(bptest::Bytes b, Error want, const std::string& needle) {
  test::clear_captured_logs();
  const void* pte = nullptr;
  size_t len = 0;
  EXPECT_EQ(bp::get_program_data(b.data(), b.size, &pte, &len), want);
  EXPECT_NE(test::captured_logs().find(needle), std::string::npos)
      << "log lacks '" << needle << "':\n"
      << test::captured_logs();
  EXPECT_EQ(bp::BundledProgramReader::load(b.data(), b.size).error(), want);
}

TEST(BundledMalformed, TruncatedFilesAreInvalidProgram) {
  bptest::Bytes full = mlp();
  for (size_t len : {size_t{0}, size_t{4}, size_t{7}}) {
    expect_rejected(bptest::bytes_of(full.data(), len), Error::InvalidProgram,
                    "cannot hold a header");
  }
  for (size_t len = 8; len < full.size; len += 61) {
    expect_rejected(bptest::bytes_of(full.data(), len), Error::InvalidProgram,
                    "flatbuffer structure is invalid");
  }
  expect_rejected(bptest::bytes_of(full.data(), full.size - 1), Error::InvalidProgram,
                  "flatbuffer structure is invalid");
}

// The flatbuffers Verifier asserts on a length of 2^31 - 1 or more: such a length is refused
// before the Verifier sees it. Nothing past the real file is read (the check comes first).
TEST(BundledMalformed, ALengthBeyondTheFlatbufferLimitIsInvalidProgram) {
  bptest::Bytes b = mlp();
  for (size_t len : {size_t{FLATBUFFERS_MAX_BUFFER_SIZE}, size_t{1} << 40}) {
    test::clear_captured_logs();
    const void* pte = nullptr;
    size_t pte_len = 0;
    EXPECT_EQ(bp::get_program_data(b.data(), len, &pte, &pte_len), Error::InvalidProgram);
    EXPECT_NE(test::captured_logs().find("exceed the flatbuffer limit"), std::string::npos)
        << test::captured_logs();
    EXPECT_EQ(bp::BundledProgramReader::load(b.data(), len).error(), Error::InvalidProgram);
  }
}

TEST(BundledMalformed, APlainProgramIsNotSupported) {
  bptest::Bytes pte = bptest::read_bytes("test/fixtures/zoo/mlp.pte");
  ASSERT_GT(pte.size, 8u);
  EXPECT_FALSE(bp::is_bundled_program(pte.data(), pte.size));
  expect_rejected(std::move(pte), Error::NotSupported, "identifier 'ET12' is not 'BP08'");
}

TEST(BundledMalformed, RootOffsetOutsideTheFile) {
  bptest::Bytes b = mlp();
  const uint32_t far = 0xFFFFFF00u;
  std::memcpy(b.data(), &far, sizeof(far));
  expect_rejected(std::move(b), Error::InvalidProgram, "flatbuffer structure is invalid");
}

TEST(BundledMalformed, VectorOffsetOutsideTheFile) {
  bptest::Bytes b = mlp();
  // The sizes vector's offset (a uoffset relative to where it is stored) now points far past
  // the end; only the Verifier can tell.
  uint8_t* sizes_field = field_address(first_input_table(b), fb::Tensor::VT_SIZES);
  ASSERT_NE(sizes_field, nullptr);
  const uint32_t far = 0x7FFFFFF0u;
  std::memcpy(sizes_field, &far, sizeof(far));
  expect_rejected(std::move(b), Error::InvalidProgram, "flatbuffer structure is invalid");
}

TEST(BundledMalformed, UnknownValueTypeIsInvalidProgram) {
  bptest::Bytes b = mlp();
  const fb::Value* value = fb::GetBundledProgram(b.data())
                               ->method_test_suites()
                               ->Get(0)
                               ->test_cases()
                               ->Get(0)
                               ->inputs()
                               ->Get(0);
  uint8_t* type_field = field_address(value, fb::Value::VT_VAL_TYPE);
  ASSERT_NE(type_field, nullptr);
  *type_field = 9;
  expect_rejected(std::move(b), Error::InvalidProgram,
                  "suite 0, test case 0, input 0: unknown value type 9");
}

TEST(BundledMalformed, NegativeSizeIsInvalidProgram) {
  bptest::Bytes b = mlp();
  mutable_first_input(b)->mutable_sizes()->Mutate(1, -16);
  expect_rejected(std::move(b), Error::InvalidProgram, "input 0: size -16 of dim 1 is negative");
}

TEST(BundledMalformed, InvalidScalarTypeIsInvalidProgram) {
  bptest::Bytes b = mlp();
  ASSERT_TRUE(mutable_first_input(b)->mutate_scalar_type(
      static_cast<executorch_flatbuffer::ScalarType>(99)));
  expect_rejected(std::move(b), Error::InvalidProgram, "input 0: invalid scalar type 99");
}

TEST(BundledMalformed, DimOrderThatIsNoPermutation) {
  bptest::Bytes b = mlp();
  mutable_first_input(b)->mutable_dim_order()->Mutate(1, 0);
  expect_rejected(std::move(b), Error::InvalidProgram, "dim_order is not a permutation");
}

TEST(BundledMalformed, DimOrderOfTheWrongLength) {
  expect_rejected(
      bptest::rewrite(mlp(), [](fb::BundledProgramT& p) { first_tensor(p).dim_order = {0}; }),
      Error::InvalidProgram, "dim_order has 1 entries for rank 2");
}

TEST(BundledMalformed, DataShorterThanTheShape) {
  expect_rejected(
      bptest::rewrite(mlp(), [](fb::BundledProgramT& p) { first_tensor(p, true).data.resize(39); }),
      Error::InvalidProgram, "expected output 0: data holds 39 bytes, the Float tensor needs 160");
}

TEST(BundledMalformed, BoolElementThatIsNeitherZeroNorOne) {
  // dtype_io's third input is a Bool tensor; kernels read its elements as C++ bool.
  const bptest::Bytes dtype_io = bptest::read_bytes(bptest::fixtures_dir() + "/dtype_io.bpte");
  expect_rejected(bptest::rewrite(dtype_io,
                                  [](fb::BundledProgramT& p) {
                                    auto& in = p.method_test_suites[0]->test_cases[0]->inputs;
                                    fb::TensorT& b = *in[2]->val.AsTensor();
                                    ASSERT_EQ(b.scalar_type,
                                              executorch_flatbuffer::ScalarType::BOOL);
                                    b.data[4] = 11;
                                  }),
                  Error::InvalidProgram, "input 2: Bool element 4 is 11, not 0 or 1");
}

TEST(BundledMalformed, RankBeyondTheLimit) {
  expect_rejected(bptest::rewrite(mlp(),
                                  [](fb::BundledProgramT& p) {
                                    fb::TensorT& t = first_tensor(p);
                                    t.sizes.assign(17, 1);
                                    t.dim_order.clear();
                                    for (uint8_t d = 0; d < 17; ++d) {
                                      t.dim_order.push_back(d);
                                    }
                                  }),
                  Error::InvalidProgram, "rank 17 exceeds the limit of 16");
}

TEST(BundledMalformed, ElementCountOverflow) {
  expect_rejected(bptest::rewrite(mlp(),
                                  [](fb::BundledProgramT& p) {
                                    fb::TensorT& t = first_tensor(p);
                                    t.sizes.assign(8, 0x7FFFFFFF);
                                    t.dim_order = {0, 1, 2, 3, 4, 5, 6, 7};
                                  }),
                  Error::InvalidProgram, "overflows");
}

// No elements (a 0-sized dim) but strides beyond int32: 256 * 2146435072 (found by the fuzzer,
// test/fuzz/regressions/bundled_program/input-strides-overflow-int32).
TEST(BundledMalformed, StridesBeyondInt32) {
  expect_rejected(bptest::rewrite(mlp(),
                                  [](fb::BundledProgramT& p) {
                                    fb::TensorT& t = first_tensor(p);
                                    t.sizes = {0, 256, 2146435072};
                                    t.dim_order = {0, 1, 2};
                                  }),
                  Error::InvalidProgram, "strides overflow int32");
}

TEST(BundledMalformed, MissingMethodNameAndProgram) {
  expect_rejected(
      bptest::rewrite(mlp(),
                      [](fb::BundledProgramT& p) { p.method_test_suites[0]->method_name.clear(); }),
      Error::InvalidProgram, "method test suite 0 has no method_name");
  expect_rejected(bptest::rewrite(mlp(), [](fb::BundledProgramT& p) { p.program.clear(); }),
                  Error::InvalidProgram, "no embedded program");
}

// Every byte flipped in turn: whatever the reader accepts can be walked completely.
TEST(BundledMalformed, ByteSweepNeverCrashes) {
  const bptest::Bytes original = bptest::read_bytes(bptest::fixtures_dir() + "/prim_inputs.bpte");
  ASSERT_GT(original.size, 0u);
  size_t accepted = 0;
  for (size_t i = 0; i < original.size; ++i) {
    bptest::Bytes b = original;
    static_cast<uint8_t*>(b.data())[i] ^= 0xFF;
    auto reader = bp::BundledProgramReader::load(b.data(), b.size);
    if (!reader.ok()) {
      EXPECT_TRUE(reader.error() == Error::InvalidProgram || reader.error() == Error::NotSupported)
          << "byte " << i;
      continue;
    }
    ++accepted;
    for (size_t s = 0; s < reader->num_method_test_suites(); ++s) {
      ASSERT_TRUE(reader->method_name(s).ok());
      for (size_t c = 0; c < reader->num_test_cases(s).get(); ++c) {
        for (size_t k = 0; k < reader->num_inputs(s, c).get(); ++k) {
          ASSERT_TRUE(reader->input(s, c, k).ok());
        }
        for (size_t k = 0; k < reader->num_expected_outputs(s, c).get(); ++k) {
          ASSERT_TRUE(reader->expected_output(s, c, k).ok());
        }
      }
    }
  }
  // Flipping data bytes (tensor contents, the embedded program) keeps the file well formed.
  EXPECT_GT(accepted, 0u);
}

// ---- well-formed files that do not fit the method --------------------------------------

class BundledMismatch : public ::testing::Test {
 protected:
  // Opens `file` and loads its forward method; the test then runs case `testset_idx`.
  void open(bptest::Bytes file) {
    bundle_ = bptest::open_bundle(std::move(file));
    ASSERT_EQ(bundle_->error, Error::Ok);
    loaded_ = bptest::load_method(*bundle_, "forward");
    ASSERT_EQ(loaded_->method_error, Error::Ok);
    test::clear_captured_logs();
  }
  Error load_input(size_t testset_idx = 0) {
    return bp::load_bundled_input(*loaded_->method, bundle_->file.data(), testset_idx);
  }
  Error run_and_verify(size_t testset_idx = 0) {
    EXPECT_EQ(load_input(testset_idx), Error::Ok);
    EXPECT_EQ(loaded_->method->execute(), Error::Ok);
    test::clear_captured_logs();
    return bp::verify_method_outputs(*loaded_->method, bundle_->file.data(), testset_idx);
  }
  void expect_logged(const std::string& needle) {
    EXPECT_NE(test::captured_logs().find(needle), std::string::npos)
        << "log lacks '" << needle << "':\n"
        << test::captured_logs();
  }
  std::unique_ptr<bptest::Bundle> bundle_;
  std::unique_ptr<test::Loaded> loaded_;
};

TEST_F(BundledMismatch, TestCaseIndexOutOfRange) {
  open(mlp());
  EXPECT_EQ(load_input(4), Error::InvalidArgument);
  expect_logged("test case 4 out of range, method 'forward' has 4");
  EXPECT_EQ(bp::verify_method_outputs(*loaded_->method, bundle_->file.data(), 99),
            Error::InvalidArgument);
  EXPECT_EQ(bp::compute_method_output_error_stats(*loaded_->method, bundle_->file.data(), 4).status,
            Error::InvalidArgument);
}

TEST_F(BundledMismatch, NoSuiteForTheMethod) {
  open(bptest::rewrite(
      mlp(), [](fb::BundledProgramT& p) { p.method_test_suites[0]->method_name = "other"; }));
  EXPECT_EQ(load_input(), Error::InvalidArgument);
  expect_logged("no test suite for method 'forward'");
}

TEST_F(BundledMismatch, WrongInputDtype) {
  open(bptest::rewrite(mlp(), [](fb::BundledProgramT& p) {
    first_tensor(p).scalar_type = executorch_flatbuffer::ScalarType::INT;
  }));
  EXPECT_EQ(load_input(), Error::InvalidArgument);
  expect_logged("input 0 of method 'forward' is Float, the test case gives Int");
}

TEST_F(BundledMismatch, WrongInputRank) {
  open(bptest::rewrite(mlp(), [](fb::BundledProgramT& p) {
    first_tensor(p).sizes = {64};
    first_tensor(p).dim_order = {0};
  }));
  EXPECT_EQ(load_input(), Error::InvalidArgument);
  expect_logged("input 0 of method 'forward' has rank 2, the test case gives rank 1");
}

TEST_F(BundledMismatch, WrongInputShape) {
  open(bptest::rewrite(mlp(), [](fb::BundledProgramT& p) { first_tensor(p).sizes = {8, 8}; }));
  const Error err = load_input();
  // set_input() refuses a shape that does not fit the static [4, 16] tensor.
  EXPECT_TRUE(err == Error::NotSupported || err == Error::InvalidArgument) << static_cast<int>(err);
  expect_logged("setting input 0 failed");
}

TEST_F(BundledMismatch, WrongInputCount) {
  open(bptest::rewrite(mlp(), [](fb::BundledProgramT& p) {
    auto& inputs = p.method_test_suites[0]->test_cases[0]->inputs;
    inputs.push_back(std::make_unique<fb::ValueT>(*inputs[0]));
  }));
  EXPECT_EQ(load_input(), Error::InvalidArgument);
  expect_logged("method 'forward' takes 1 inputs, test case 0 gives 2");
}

TEST_F(BundledMismatch, ScalarWhereATensorIsExpected) {
  open(bptest::rewrite(mlp(), [](fb::BundledProgramT& p) {
    fb::IntT seven;
    seven.int_val = 7;
    p.method_test_suites[0]->test_cases[0]->inputs[0]->val.Set(std::move(seven));
  }));
  EXPECT_EQ(load_input(), Error::InvalidArgument);
  expect_logged("input 0 of method 'forward' is Tensor, the test case gives Int");
}

TEST_F(BundledMismatch, ExpectedOutputDtypeShapeAndCount) {
  open(bptest::rewrite(mlp(), [](fb::BundledProgramT& p) {
    first_tensor(p, true).scalar_type = executorch_flatbuffer::ScalarType::DOUBLE;
    first_tensor(p, true).data.resize(320);
  }));
  EXPECT_EQ(run_and_verify(), Error::InvalidArgument);
  expect_logged("output 0: dtype Float, expected Double");

  open(bptest::rewrite(mlp(), [](fb::BundledProgramT& p) {
    first_tensor(p, true).sizes = {10, 4};
  }));
  EXPECT_EQ(run_and_verify(), Error::InvalidArgument);
  expect_logged("output 0: shape");

  open(bptest::rewrite(mlp(), [](fb::BundledProgramT& p) {
    auto& outs = p.method_test_suites[0]->test_cases[0]->expected_outputs;
    outs.push_back(std::make_unique<fb::ValueT>(*outs[0]));
  }));
  EXPECT_EQ(run_and_verify(), Error::InvalidArgument);
  expect_logged("method 'forward' has 1 outputs, test case 0 expects 2");

  open(bptest::rewrite(mlp(), [](fb::BundledProgramT& p) {
    p.method_test_suites[0]->test_cases[0]->expected_outputs.clear();
  }));
  EXPECT_EQ(run_and_verify(), Error::NotSupported);
  expect_logged("has no expected outputs");
}

TEST_F(BundledMismatch, AValueMismatchIsNotFoundWithItsError) {
  open(bptest::rewrite(mlp(), [](fb::BundledProgramT& p) {
    float v;
    auto& data = first_tensor(p, true).data;
    std::memcpy(&v, &data[4 * 7], sizeof(v));
    v += 2.0f;
    std::memcpy(&data[4 * 7], &v, sizeof(v));
  }));
  EXPECT_EQ(run_and_verify(), Error::NotFound);
  expect_logged("method 'forward', test case 0: output 0 differs (max abs error 2");
  const bp::ErrorStats stats =
      bp::compute_method_output_error_stats(*loaded_->method, bundle_->file.data(), 0);
  ASSERT_EQ(stats.status, Error::Ok);
  EXPECT_NEAR(stats.max_abs_error, 2.0, 1e-4);
  EXPECT_NEAR(stats.mean_abs_error, 2.0 / 40, 1e-4);
  // A loose enough tolerance accepts it.
  EXPECT_EQ(bp::verify_method_outputs(*loaded_->method, bundle_->file.data(), 0, 0.0, 2.5),
            Error::Ok);
}

TEST_F(BundledMismatch, TheFileIsVerifiedAgainOnEveryCall) {
  open(mlp());
  ASSERT_EQ(load_input(), Error::Ok);
  // The buffer changed after the last call: the next call sees the damage.
  mutable_first_input(bundle_->file)->mutable_sizes()->Mutate(0, -1);
  EXPECT_EQ(load_input(), Error::InvalidProgram);
  expect_logged("size -1 of dim 0 is negative");
}

}  // namespace
