/*
 * Profiling hooks. This runtime does not implement the legacy profiler, so
 * the macros compile to nothing; they exist so that kernels and backends
 * written against upstream keep compiling.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define EXECUTORCH_SCOPE_PROF(_name) \
  do {                               \
  } while (0)
#define EXECUTORCH_PROFILE_INSTRUCTION_SCOPE(_chain_idx, _instruction_idx) \
  do {                                                                     \
  } while (0)
#define EXECUTORCH_BEGIN_PROF(_name) (static_cast<uint32_t>(0))
#define EXECUTORCH_END_PROF(_token_id) \
  do {                                 \
    (void)(_token_id);                 \
  } while (0)
#define EXECUTORCH_TRACK_ALLOCATOR(_name) (static_cast<int32_t>(-1))
#define EXECUTORCH_TRACK_ALLOCATION(_id, _size) \
  do {                                          \
    (void)(_id);                                \
    (void)(_size);                              \
  } while (0)
#define EXECUTORCH_PROFILE_CREATE_BLOCK(_name) \
  do {                                         \
  } while (0)
#define EXECUTORCH_RESET_PROFILE_RESULTS() \
  do {                                     \
  } while (0)
#define EXECUTORCH_DUMP_PROFILE_RESULTS(_prof_result) \
  do {                                                \
    (void)(_prof_result);                             \
  } while (0)
