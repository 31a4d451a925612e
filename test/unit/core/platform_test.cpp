// Logging through a PAL override, ticks, runtime_init and register_pal.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <executorch/runtime/platform/clock.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/platform.h>
#include <executorch/runtime/platform/runtime.h>

namespace {
struct Captured {
  char level;
  std::string file;
  size_t line;
  std::string message;
};
std::vector<Captured> g_strong_log;
std::vector<Captured> g_registered_log;
int g_init_calls = 0;
}  // namespace

// Strong definitions replace the library's weak POSIX defaults.
extern "C" void et_pal_emit_log_message(et_timestamp_t, et_pal_log_level_t level,
                                        const char* filename, const char*, size_t line,
                                        const char* message, size_t length) {
  EXPECT_EQ(std::strlen(message), length);
  g_strong_log.push_back({static_cast<char>(level), filename, line, std::string(message, length)});
  // Still show the line, so other tests linked into this binary stay debuggable.
  std::fprintf(stderr, "[%c %s:%zu] %s\n", static_cast<char>(level), filename, line, message);
}

extern "C" void et_pal_init(void) {
  g_init_calls++;
}

TEST(PlatformTest, LogGoesThroughStrongPalOverride) {
  g_strong_log.clear();
  ET_LOG(Info, "hello %d %s", 42, "world");
  ET_LOG(Error, "failure %" PRIu32, static_cast<uint32_t>(7));
  ET_LOG(Debug, "filtered out at the default level");
  ASSERT_EQ(g_strong_log.size(), 2u);
  EXPECT_EQ(g_strong_log[0].level, 'I');
  EXPECT_EQ(g_strong_log[0].message, "hello 42 world");
  EXPECT_EQ(g_strong_log[0].file, "platform_test.cpp");
  EXPECT_GT(g_strong_log[0].line, 0u);
  EXPECT_EQ(g_strong_log[1].level, 'E');
  EXPECT_EQ(g_strong_log[1].message, "failure 7");
}

TEST(PlatformTest, LongMessagesAreTruncatedNotOverflowed) {
  g_strong_log.clear();
  std::string big(5000, 'x');
  ET_LOG(Info, "%s", big.c_str());
  ASSERT_EQ(g_strong_log.size(), 1u);
  EXPECT_LT(g_strong_log[0].message.size(), big.size());
  EXPECT_GT(g_strong_log[0].message.size(), 100u);
}

TEST(PlatformTest, RuntimeInitCallsPalInitOnce) {
  executorch::runtime::runtime_init();
  executorch::runtime::runtime_init();
  EXPECT_EQ(g_init_calls, 1);
}

TEST(PlatformTest, TicksAreMonotonic) {
  et_timestamp_t a = executorch::runtime::pal_current_ticks();
  et_timestamp_t b = executorch::runtime::pal_current_ticks();
  EXPECT_LE(a, b);
  et_tick_ratio_t r = et_pal_ticks_to_ns_multiplier();
  EXPECT_NE(r.denominator, 0u);
  EXPECT_EQ(executorch::runtime::ticks_to_ns(1000), 1000 * r.numerator / r.denominator);
}

namespace {
void registered_sink(et_timestamp_t, et_pal_log_level_t level, const char*, const char*, size_t,
                     const char* message, size_t length) {
  g_registered_log.push_back({static_cast<char>(level), "", 0, std::string(message, length)});
}
}  // namespace

// Runs last within this file's suite order: a registered PAL stays installed.
TEST(PlatformTest, ZRegisteredPalTakesPrecedence) {
  g_strong_log.clear();
  ASSERT_TRUE(executorch::runtime::register_pal(
      executorch::runtime::PalImpl::create(registered_sink, __FILE__)));
  ET_LOG(Error, "to the registered sink");
  ASSERT_EQ(g_registered_log.size(), 1u);
  EXPECT_EQ(g_registered_log[0].message, "to the registered sink");
  EXPECT_TRUE(g_strong_log.empty());
  EXPECT_EQ(executorch::runtime::get_pal_impl()->emit_log_message, &registered_sink);
  // Members left null still fall back to the C hooks.
  EXPECT_EQ(executorch::runtime::get_pal_impl()->current_ticks, nullptr);
}

TEST(PlatformDeathTest, CheckAbortsThroughPal) {
  EXPECT_DEATH(ET_CHECK_MSG(1 + 1 == 3, "math is broken"), "");
}
