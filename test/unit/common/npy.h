// A tiny reader for NumPy .npy files (format versions 1.0-3.0), for tests.
//
//   test::Npy a;
//   std::string err;
//   if (!test::read_npy("x.npy", &a, &err)) FAIL() << err;
//   a.dtype     // ScalarType (Float, Double, Half, BFloat16?, Long, Int, Short, Char, Byte, Bool)
//   a.shape     // std::vector<int32_t>
//   a.data      // raw little-endian bytes, C order
//
// Fortran-order arrays, big-endian data and object arrays are rejected.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <executorch/runtime/core/portable_type/scalar_type.h>

namespace test {

struct Npy {
  executorch::aten::ScalarType dtype = executorch::aten::ScalarType::Float;
  std::vector<int32_t> shape;
  std::vector<uint8_t> data;

  size_t numel() const {
    size_t n = 1;
    for (int32_t s : shape) {
      n *= static_cast<size_t>(s);
    }
    return n;
  }
  template <typename T>
  const T* as() const {
    return reinterpret_cast<const T*>(data.data());
  }
};

namespace npy_detail {

inline bool dtype_of(const std::string& d, executorch::aten::ScalarType* st, size_t* size) {
  using executorch::aten::ScalarType;
  struct Entry {
    const char* descr;
    ScalarType type;
    size_t size;
  };
  static const Entry kTable[] = {
      {"<f4", ScalarType::Float, 4},  {"<f8", ScalarType::Double, 8},
      {"<f2", ScalarType::Half, 2},   {"<i8", ScalarType::Long, 8},
      {"<i4", ScalarType::Int, 4},    {"<i2", ScalarType::Short, 2},
      {"|i1", ScalarType::Char, 1},   {"|u1", ScalarType::Byte, 1},
      {"|b1", ScalarType::Bool, 1},   {"<u2", ScalarType::UInt16, 2},
      {"<u4", ScalarType::UInt32, 4}, {"<u8", ScalarType::UInt64, 8},
  };
  for (const Entry& e : kTable) {
    if (d == e.descr) {
      *st = e.type;
      *size = e.size;
      return true;
    }
  }
  return false;
}

// The value text of `'key': value` in the header dict.
inline bool field(const std::string& h, const std::string& key, std::string* out) {
  size_t p = h.find("'" + key + "'");
  if (p == std::string::npos) {
    return false;
  }
  p = h.find(':', p);
  if (p == std::string::npos) {
    return false;
  }
  ++p;
  while (p < h.size() && h[p] == ' ') {
    ++p;
  }
  size_t end = p;
  if (h[p] == '(') {
    end = h.find(')', p);
    if (end == std::string::npos) {
      return false;
    }
    ++end;
  } else if (h[p] == '\'') {
    end = h.find('\'', p + 1);
    if (end == std::string::npos) {
      return false;
    }
    ++end;
  } else {
    while (end < h.size() && h[end] != ',' && h[end] != '}') {
      ++end;
    }
  }
  *out = h.substr(p, end - p);
  return true;
}

}  // namespace npy_detail

inline bool parse_npy(const std::vector<uint8_t>& bytes, Npy* out, std::string* err) {
  static const char kMagic[] = "\x93NUMPY";
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0) {
    *err = "not an .npy file";
    return false;
  }
  const uint8_t major = bytes[6];
  size_t header_len = 0;
  size_t pos = 0;
  if (major == 1) {
    header_len = bytes[8] | (static_cast<size_t>(bytes[9]) << 8);
    pos = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) {
      *err = "truncated header";
      return false;
    }
    header_len = bytes[8] | (static_cast<size_t>(bytes[9]) << 8) |
                 (static_cast<size_t>(bytes[10]) << 16) | (static_cast<size_t>(bytes[11]) << 24);
    pos = 12;
  } else {
    *err = "unsupported .npy version " + std::to_string(major);
    return false;
  }
  if (header_len > bytes.size() - pos) {
    *err = "truncated header";
    return false;
  }
  const std::string h(reinterpret_cast<const char*>(bytes.data() + pos), header_len);
  pos += header_len;
  std::string descr, fortran, shape;
  if (!npy_detail::field(h, "descr", &descr) || !npy_detail::field(h, "fortran_order", &fortran) ||
      !npy_detail::field(h, "shape", &shape)) {
    *err = "bad header: " + h;
    return false;
  }
  if (fortran.rfind("False", 0) != 0) {
    *err = "Fortran-order arrays are not supported";
    return false;
  }
  descr = descr.substr(1, descr.size() - 2);
  size_t elem = 0;
  if (!npy_detail::dtype_of(descr, &out->dtype, &elem)) {
    *err = "unsupported dtype " + descr;
    return false;
  }
  out->shape.clear();
  size_t n = 1;
  for (size_t i = 1; i + 1 < shape.size();) {
    while (i + 1 < shape.size() && (shape[i] == ' ' || shape[i] == ',')) {
      ++i;
    }
    if (i + 1 >= shape.size()) {
      break;
    }
    size_t j = i;
    while (j + 1 < shape.size() && shape[j] >= '0' && shape[j] <= '9') {
      ++j;
    }
    if (j == i) {
      *err = "bad shape " + shape;
      return false;
    }
    const long v = std::stol(shape.substr(i, j - i));
    out->shape.push_back(static_cast<int32_t>(v));
    n *= static_cast<size_t>(v);
    i = j;
  }
  if (n * elem > bytes.size() - pos) {
    *err = "truncated data";
    return false;
  }
  out->data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(pos),
                   bytes.begin() + static_cast<std::ptrdiff_t>(pos + n * elem));
  return true;
}

inline bool read_npy(const std::string& path, Npy* out, std::string* err) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    *err = "cannot open " + path;
    return false;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (!parse_npy(bytes, out, err)) {
    *err = path + ": " + *err;
    return false;
  }
  return true;
}

}  // namespace test
