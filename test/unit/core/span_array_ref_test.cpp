// Span and ArrayRef views.
#include <gtest/gtest.h>

#include <array>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/span.h>

using executorch::runtime::ArrayRef;
using executorch::runtime::IntArrayRef;
using executorch::runtime::makeArrayRef;
using executorch::runtime::Span;

TEST(SpanTest, Constructors) {
  int arr[4] = {1, 2, 3, 4};
  Span<int> empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.size(), 0u);

  Span<int> from_array = arr;
  EXPECT_EQ(from_array.size(), 4u);
  EXPECT_EQ(from_array.data(), arr);

  Span<int> from_ptr_len{arr, 2};
  EXPECT_EQ(from_ptr_len.size(), 2u);

  Span<int> from_range(arr + 1, arr + 4);
  EXPECT_EQ(from_range.size(), 3u);
  EXPECT_EQ(from_range[0], 2);

  int single = 9;
  Span<int> one = single;
  EXPECT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0], 9);
}

TEST(SpanTest, MutationAndIteration) {
  int arr[3] = {1, 2, 3};
  Span<int> s(arr, 3);
  s[1] = 20;
  EXPECT_EQ(arr[1], 20);
  int sum = 0;
  for (int v : s) {
    sum += v;
  }
  EXPECT_EQ(sum, 24);
  EXPECT_EQ(s.end() - s.begin(), 3);
}

TEST(ArrayRefTest, Constructors) {
  ArrayRef<int> empty;
  EXPECT_TRUE(empty.empty());

  int one = 3;
  ArrayRef<int> single = one;
  EXPECT_EQ(single.size(), 1u);
  EXPECT_EQ(single[0], 3);

  const int arr[] = {1, 2, 3, 4, 5};
  ArrayRef<int> from_c_array = arr;
  EXPECT_EQ(from_c_array.size(), 5u);

  std::array<int, 3> std_arr = {7, 8, 9};
  ArrayRef<int> from_std_array = std_arr;
  EXPECT_EQ(from_std_array.back(), 9);

  ArrayRef<int> range(arr + 1, arr + 3);
  EXPECT_EQ(range.size(), 2u);
  EXPECT_EQ(range.front(), 2);
}

TEST(ArrayRefTest, SliceEqualsAndAt) {
  const int64_t arr[] = {1, 2, 3, 4, 5};
  IntArrayRef a(arr, 5);
  EXPECT_EQ(a.slice(1, 3).size(), 3u);
  EXPECT_EQ(a.slice(1, 3)[0], 2);
  EXPECT_EQ(a.slice(3).size(), 2u);
  EXPECT_EQ(a.slice(5).size(), 0u);
  EXPECT_EQ(a.at(4), 5);

  const int64_t same[] = {1, 2, 3, 4, 5};
  const int64_t other[] = {1, 2, 3, 4, 6};
  EXPECT_TRUE(a.equals(IntArrayRef(same, 5)));
  EXPECT_TRUE(a == makeArrayRef(same, 5));
  EXPECT_TRUE(a != makeArrayRef(other, 5));
  EXPECT_FALSE(a == a.slice(0, 4));
}

TEST(ArrayRefDeathTest, OutOfRangeChecks) {
  const int arr[] = {1, 2};
  ArrayRef<int> a(arr, 2);
  EXPECT_DEATH((void)a.at(2), "");
  EXPECT_DEATH((void)a.slice(1, 2), "");
  ArrayRef<int> empty;
  EXPECT_DEATH((void)empty.front(), "");
}
