// Error codes, to_string, Result<T> semantics and the check/unwrap macros.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>

using executorch::runtime::Error;
using executorch::runtime::Result;

TEST(ErrorTest, NumericValuesMatchUpstream) {
  EXPECT_EQ(static_cast<uint32_t>(Error::Ok), 0x00u);
  EXPECT_EQ(static_cast<uint32_t>(Error::Internal), 0x01u);
  EXPECT_EQ(static_cast<uint32_t>(Error::InvalidState), 0x02u);
  EXPECT_EQ(static_cast<uint32_t>(Error::EndOfMethod), 0x03u);
  EXPECT_EQ(static_cast<uint32_t>(Error::AlreadyLoaded), 0x04u);
  EXPECT_EQ(static_cast<uint32_t>(Error::NotSupported), 0x10u);
  EXPECT_EQ(static_cast<uint32_t>(Error::NotImplemented), 0x11u);
  EXPECT_EQ(static_cast<uint32_t>(Error::InvalidArgument), 0x12u);
  EXPECT_EQ(static_cast<uint32_t>(Error::InvalidType), 0x13u);
  EXPECT_EQ(static_cast<uint32_t>(Error::OperatorMissing), 0x14u);
  EXPECT_EQ(static_cast<uint32_t>(Error::RegistrationExceedingMaxKernels), 0x15u);
  EXPECT_EQ(static_cast<uint32_t>(Error::RegistrationAlreadyRegistered), 0x16u);
  EXPECT_EQ(static_cast<uint32_t>(Error::NotFound), 0x20u);
  EXPECT_EQ(static_cast<uint32_t>(Error::MemoryAllocationFailed), 0x21u);
  EXPECT_EQ(static_cast<uint32_t>(Error::AccessFailed), 0x22u);
  EXPECT_EQ(static_cast<uint32_t>(Error::InvalidProgram), 0x23u);
  EXPECT_EQ(static_cast<uint32_t>(Error::InvalidExternalData), 0x24u);
  EXPECT_EQ(static_cast<uint32_t>(Error::OutOfResources), 0x25u);
  EXPECT_EQ(static_cast<uint32_t>(Error::DelegateInvalidCompatibility), 0x30u);
  EXPECT_EQ(static_cast<uint32_t>(Error::DelegateMemoryAllocationFailed), 0x31u);
  EXPECT_EQ(static_cast<uint32_t>(Error::DelegateInvalidHandle), 0x32u);
  static_assert(sizeof(Error) == sizeof(uint32_t), "Error is 32-bit");
}

TEST(ErrorTest, ToString) {
  static_assert(executorch::runtime::to_string(Error::Ok)[0] == 'E', "constexpr");
  EXPECT_STREQ(executorch::runtime::to_string(Error::Ok), "Error::Ok");
  EXPECT_STREQ(executorch::runtime::to_string(Error::InvalidArgument), "Error::InvalidArgument");
  EXPECT_STREQ(executorch::runtime::to_string(Error::DelegateInvalidHandle),
               "Error::DelegateInvalidHandle");
  EXPECT_STREQ(executorch::runtime::to_string(static_cast<Error>(0x99)), "Error::Unknown");
}

TEST(ErrorTest, TorchAliasIsSameType) {
  ::testing::StaticAssertTypeEq<torch::executor::Error, Error>();
  ::testing::StaticAssertTypeEq<torch::executor::Result<int>, Result<int>>();
}

namespace {

Error check_positive(int v) {
  ET_CHECK_OR_RETURN_ERROR(v > 0, InvalidArgument, "value %d", v);
  return Error::Ok;
}

Error forward_error(Error e) {
  ET_CHECK_OK_OR_RETURN_ERROR(e);
  return Error::Ok;
}

Error forward_error_msg(Error e) {
  ET_CHECK_OK_OR_RETURN_ERROR(e, "context %d", 7);
  return Error::Ok;
}

bool check_false(bool c) {
  ET_CHECK_OR_RETURN_FALSE(c, "flag was %d", static_cast<int>(c));
  return true;
}

Result<int> make_int(bool ok) {
  if (!ok) {
    return Error::NotFound;
  }
  return 42;
}

Result<int> unwrap_twice(bool ok) {
  int v = ET_UNWRAP(make_int(ok));
  int w = ET_UNWRAP(make_int(ok), "with message %d", 1);
  return v + w;
}

Result<int> assign_or_return(bool ok) {
  ET_ASSIGN_OR_RETURN(int v, make_int(ok));
  ET_ASSIGN_OR_RETURN(const int w, make_int(ok), "msg %s", "x");
  return v + w;
}

Result<int> unwrap_unique(bool ok) {
  std::unique_ptr<int> p = ET_UNWRAP_UNIQUE(make_int(ok));
  return *p;
}

}  // namespace

TEST(ErrorTest, CheckMacros) {
  EXPECT_EQ(check_positive(1), Error::Ok);
  EXPECT_EQ(check_positive(-1), Error::InvalidArgument);
  EXPECT_EQ(forward_error(Error::Ok), Error::Ok);
  EXPECT_EQ(forward_error(Error::NotFound), Error::NotFound);
  EXPECT_EQ(forward_error_msg(Error::Ok), Error::Ok);
  EXPECT_EQ(forward_error_msg(Error::AccessFailed), Error::AccessFailed);
  EXPECT_TRUE(check_false(true));
  EXPECT_FALSE(check_false(false));
}

TEST(ResultTest, ValueAndError) {
  Result<int> r = 5;
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.error(), Error::Ok);
  EXPECT_EQ(r.get(), 5);
  EXPECT_EQ(*r, 5);

  Result<int> e = Error::AccessFailed;
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.error(), Error::AccessFailed);
}

TEST(ResultTest, OkErrorBecomesInternal) {
  Result<int> r(Error::Ok);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::Internal);
}

TEST(ResultTest, MoveOnlyValueAndArrow) {
  Result<std::unique_ptr<std::string>> r(std::make_unique<std::string>("abc"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->size(), 3u);
  Result<std::unique_ptr<std::string>> moved(std::move(r));
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(*moved.get(), "abc");

  Result<std::string> s(std::string("hello"));
  EXPECT_EQ(s->size(), 5u);
  static_assert(!std::is_copy_constructible<Result<int>>::value, "no copy");
  static_assert(!std::is_default_constructible<Result<int>>::value, "no default");
}

TEST(ResultTest, UnwrapMacros) {
  EXPECT_EQ(unwrap_twice(true).get(), 84);
  EXPECT_EQ(unwrap_twice(false).error(), Error::NotFound);
  EXPECT_EQ(assign_or_return(true).get(), 84);
  EXPECT_EQ(assign_or_return(false).error(), Error::NotFound);
  EXPECT_EQ(unwrap_unique(true).get(), 42);
  EXPECT_EQ(unwrap_unique(false).error(), Error::NotFound);
}

TEST(ResultDeathTest, GetOnErrorAborts) {
  Result<int> e = Error::NotFound;
  EXPECT_DEATH((void)e.get(), "");
}
