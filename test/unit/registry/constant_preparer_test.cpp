// The constant-preparer table (runtime/kernel/prepared_constants.h): lookups by the exact
// operator name, one preparer per name, typed errors for bad registrations.
#include <gtest/gtest.h>

#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/prepared_constants.h>

namespace {

using executorch::runtime::ArgumentRewriter;
using executorch::runtime::ConstantPreparer;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::find_constant_preparer;
using executorch::runtime::find_instruction_folder;
using executorch::runtime::find_instruction_fuser;
using executorch::runtime::find_run_fuser;
using executorch::runtime::FusedKernel;
using executorch::runtime::FusionCandidate;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::PreparedConstants;
using executorch::runtime::register_constant_preparer;
using executorch::runtime::register_instruction_folder;
using executorch::runtime::register_instruction_fuser;
using executorch::runtime::register_run_fuser;
using executorch::runtime::Span;

void preparer_a(KernelRuntimeContext&, Span<EValue*>, PreparedConstants&) {}
void preparer_b(KernelRuntimeContext&, Span<EValue*>, PreparedConstants&) {}

TEST(ConstantPreparer, RegisteredNameIsFoundExactly) {
  ASSERT_EQ(register_constant_preparer("test_prep::first.out", preparer_a), Error::Ok);
  EXPECT_EQ(find_constant_preparer("test_prep::first.out"), &preparer_a);
  EXPECT_EQ(find_constant_preparer("test_prep::first"), nullptr);
  EXPECT_EQ(find_constant_preparer("test_prep::first.out.x"), nullptr);
  EXPECT_EQ(find_constant_preparer(nullptr), nullptr);
}

TEST(ConstantPreparer, SecondPreparerForANameIsRefused) {
  ASSERT_EQ(register_constant_preparer("test_prep::second.out", preparer_a), Error::Ok);
  EXPECT_EQ(register_constant_preparer("test_prep::second.out", preparer_b),
            Error::InvalidArgument);
  EXPECT_EQ(find_constant_preparer("test_prep::second.out"), &preparer_a);
}

TEST(ConstantPreparer, NullArgumentsAreRefused) {
  EXPECT_EQ(register_constant_preparer(nullptr, preparer_a), Error::InvalidArgument);
  EXPECT_EQ(register_constant_preparer("test_prep::null.out", ConstantPreparer{nullptr}),
            Error::InvalidArgument);
  EXPECT_EQ(find_constant_preparer("test_prep::null.out"), nullptr);
}

FusedKernel fuser_a(Span<EValue*>, Span<EValue*>) {
  return nullptr;
}

TEST(InstructionFuser, PairsAreFoundExactlyAndOnce) {
  ASSERT_EQ(register_instruction_fuser("test_fuse::a.out", "test_fuse::b.out", fuser_a), Error::Ok);
  EXPECT_EQ(find_instruction_fuser("test_fuse::a.out", "test_fuse::b.out"), &fuser_a);
  EXPECT_EQ(find_instruction_fuser("test_fuse::b.out", "test_fuse::a.out"), nullptr);
  EXPECT_EQ(find_instruction_fuser("test_fuse::a.out", nullptr), nullptr);
  // A fuser is not a preparer of its first operator.
  EXPECT_EQ(find_constant_preparer("test_fuse::a.out"), nullptr);
  EXPECT_EQ(register_instruction_fuser("test_fuse::a.out", "test_fuse::b.out", fuser_a),
            Error::InvalidArgument);
  EXPECT_EQ(register_instruction_fuser("test_fuse::a.out", nullptr, fuser_a),
            Error::InvalidArgument);
}

int folder_a(Span<EValue*>, Span<EValue*>, ArgumentRewriter&) {
  return -1;
}

// Folders and fusers of the same pair are separate entries: registering one does not make
// (or block) the other.
TEST(InstructionFolder, KeptApartFromFusersOfTheSamePair) {
  ASSERT_EQ(register_instruction_folder("test_fold::a.out", "test_fold::b.out", folder_a),
            Error::Ok);
  EXPECT_EQ(find_instruction_folder("test_fold::a.out", "test_fold::b.out"), &folder_a);
  EXPECT_EQ(find_instruction_fuser("test_fold::a.out", "test_fold::b.out"), nullptr);
  EXPECT_EQ(find_instruction_folder("test_fold::b.out", "test_fold::a.out"), nullptr);
  ASSERT_EQ(register_instruction_fuser("test_fold::a.out", "test_fold::b.out", fuser_a), Error::Ok);
  EXPECT_EQ(find_instruction_fuser("test_fold::a.out", "test_fold::b.out"), &fuser_a);
  EXPECT_EQ(register_instruction_folder("test_fold::a.out", "test_fold::b.out", folder_a),
            Error::InvalidArgument);
  EXPECT_EQ(register_instruction_folder("test_fold::a.out", nullptr, folder_a),
            Error::InvalidArgument);
}

FusedKernel run_fuser_a(Span<EValue*>, Span<const FusionCandidate>, size_t*) {
  return nullptr;
}

TEST(RunFuser, OnePerFirstOperatorAndNotAPreparer) {
  ASSERT_EQ(register_run_fuser("test_run::a.out", run_fuser_a), Error::Ok);
  EXPECT_EQ(find_run_fuser("test_run::a.out"), &run_fuser_a);
  EXPECT_EQ(find_run_fuser("test_run::b.out"), nullptr);
  EXPECT_EQ(find_constant_preparer("test_run::a.out"), nullptr);
  EXPECT_EQ(register_run_fuser("test_run::a.out", run_fuser_a), Error::InvalidArgument);
  EXPECT_EQ(register_run_fuser(nullptr, run_fuser_a), Error::InvalidArgument);
}

}  // namespace
