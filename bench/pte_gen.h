// Small helpers shared by the runtime benchmarks: timing, medians, and the extended-header
// insertion that turns a plain flatbuffer into a .pte with a segment area (docs/format.md §1.1).
#pragma once

#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace bench {

inline uint64_t wall_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

template <typename T>
double median(std::vector<T> v) {
  if (v.empty()) {
    return 0;
  }
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? double(v[n / 2]) : (double(v[n / 2 - 1]) + double(v[n / 2])) / 2;
}

inline void put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = uint8_t(v >> (8 * i));
}
inline void put_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    p[i] = uint8_t(v >> (8 * i));
}

/// `flatbuffer` (root offset + "ET12" + body) with a 32-byte extended header inserted after
/// byte 7, the segment area starting at the next multiple of `segment_alignment`, and
/// `segment_data` there.
inline std::vector<uint8_t> with_segments(const std::vector<uint8_t>& flatbuffer,
                                          const std::vector<uint8_t>& segment_data,
                                          size_t segment_alignment = 4096) {
  constexpr size_t kHeader = 32;
  const uint64_t program_size = flatbuffer.size() + kHeader;
  const uint64_t base =
      (program_size + segment_alignment - 1) / segment_alignment * segment_alignment;
  std::vector<uint8_t> out(base + segment_data.size(), 0);
  std::memcpy(out.data(), flatbuffer.data(), 8);
  uint32_t root;
  std::memcpy(&root, flatbuffer.data(), 4);  // little-endian host
  put_u32(out.data(), root + uint32_t(kHeader));
  std::memcpy(out.data() + 8, "eh00", 4);
  put_u32(out.data() + 12, 32);
  put_u64(out.data() + 16, program_size);
  put_u64(out.data() + 24, base);
  put_u64(out.data() + 32, segment_data.size());
  std::memcpy(out.data() + 8 + kHeader, flatbuffer.data() + 8, flatbuffer.size() - 8);
  if (!segment_data.empty()) {
    std::memcpy(out.data() + base, segment_data.data(), segment_data.size());
  }
  return out;
}

}  // namespace bench
