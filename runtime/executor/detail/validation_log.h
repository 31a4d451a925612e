/*
 * The one way program validation reports a failed rule (private header):
 * log one line that names the offending field, return the error.
 */
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/platform/log.h>

#define ET_VALIDATE(_cond, _err, _fmt, ...) \
  do {                                      \
    if (!(_cond)) {                         \
      ET_LOG(Error, _fmt, ##__VA_ARGS__);   \
      return ::executorch::runtime::Error::_err; \
    }                                       \
  } while (0)
