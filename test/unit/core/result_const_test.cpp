// Result<const T>: constructible, movable (returned by value from a local) and destroyed
// exactly once, with only const access to the value. A regression test for the move
// constructor, which used to placement-new into a const member and did not compile.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>

using executorch::runtime::Error;
using executorch::runtime::Result;

namespace {

struct Layout {
  int rank;
  long numel;
};

// Counts live instances and how each was made.
struct Tracked {
  static int live;
  static int moves;
  static int copies;
  int v;
  explicit Tracked(int x) : v(x) {
    ++live;
  }
  Tracked(const Tracked& o) : v(o.v) {
    ++live;
    ++copies;
  }
  Tracked(Tracked&& o) noexcept : v(o.v) {
    o.v = -1;
    ++live;
    ++moves;
  }
  ~Tracked() {
    --live;
  }
  static void reset() {
    live = moves = copies = 0;
  }
};
int Tracked::live = 0;
int Tracked::moves = 0;
int Tracked::copies = 0;

static_assert(std::is_move_constructible<Result<const Layout>>::value, "");
static_assert(std::is_move_constructible<Result<const std::string>>::value, "");
static_assert(std::is_move_constructible<Result<const std::unique_ptr<int>>>::value, "");
static_assert(!std::is_copy_constructible<Result<const Layout>>::value, "");
// Access stays const.
static_assert(
    std::is_same<decltype(std::declval<Result<const Layout>&>().get()), const Layout&>::value, "");
static_assert(std::is_same<decltype(*std::declval<Result<const Layout>&>()), const Layout&>::value,
              "");
static_assert(std::is_same<decltype(std::declval<Result<const Layout>&>().operator->()),
                           const Layout*>::value,
              "");
static_assert(std::is_same<Result<const Layout>::value_type, const Layout>::value, "");

// The pattern of NamedDataMap::get_tensor_layout forwarding: return a local Result by value.
Result<const Layout> make_layout(bool ok) {
  if (!ok) {
    return Error::NotFound;
  }
  return Layout{3, 24};
}

Result<const Layout> forward_layout(bool ok) {
  Result<const Layout> r = make_layout(ok);
  return r;  // implicit move: needs the move constructor
}

Result<const Tracked> make_tracked(int v) {
  Result<const Tracked> r = Tracked(v);
  return r;
}

Error unwrap_layout(bool ok, long* numel) {
  const Layout l = ET_UNWRAP(forward_layout(ok));
  *numel = l.numel;
  return Error::Ok;
}

}  // namespace

TEST(ResultConstTest, MoveValue) {
  Result<const Layout> a = make_layout(true);
  Result<const Layout> b(std::move(a));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->rank, 3);
  EXPECT_EQ(b.get().numel, 24);
  EXPECT_EQ((*b).rank, 3);
}

TEST(ResultConstTest, MoveError) {
  Result<const Layout> a = make_layout(false);
  Result<const Layout> b(std::move(a));
  EXPECT_FALSE(b.ok());
  EXPECT_EQ(b.error(), Error::NotFound);
}

TEST(ResultConstTest, ReturnLocalByValue) {
  Result<const Layout> ok = forward_layout(true);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->numel, 24);
  Result<const Layout> err = forward_layout(false);
  EXPECT_EQ(err.error(), Error::NotFound);
}

TEST(ResultConstTest, NonTrivialValueIsMovedNotCopiedAndDestroyedOnce) {
  Tracked::reset();
  {
    Result<const Tracked> r = make_tracked(7);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->v, 7);
    EXPECT_EQ(Tracked::live, 1);
    EXPECT_EQ(Tracked::copies, 0);  // the move constructor really moves
    Result<const Tracked> r2(std::move(r));
    EXPECT_EQ(r2->v, 7);
    EXPECT_EQ(Tracked::live, 2);  // the moved-from value lives until its Result dies
    EXPECT_EQ(Tracked::copies, 0);
  }
  EXPECT_EQ(Tracked::live, 0);
}

TEST(ResultConstTest, MoveOnlyValue) {
  Result<const std::unique_ptr<int>> a = std::make_unique<int>(42);
  Result<const std::unique_ptr<int>> b(std::move(a));
  ASSERT_TRUE(b.ok());
  ASSERT_NE(b.get(), nullptr);
  EXPECT_EQ(*b.get(), 42);
}

TEST(ResultConstTest, StringValue) {
  Result<const std::string> a = std::string(100, 'x');  // heap-allocated
  Result<const std::string> b(std::move(a));
  EXPECT_EQ(b.get(), std::string(100, 'x'));
}

TEST(ResultConstTest, Unwrap) {
  long numel = 0;
  EXPECT_EQ(unwrap_layout(true, &numel), Error::Ok);
  EXPECT_EQ(numel, 24);
  EXPECT_EQ(unwrap_layout(false, &numel), Error::NotFound);
}
