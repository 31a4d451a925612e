#include "npy.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

namespace et_run {

using executorch::aten::ScalarType;

namespace {

struct DescrEntry {
  const char* descr;
  ScalarType dtype;
};

// '<' little-endian, '|' not applicable (one byte); '=' native is little-endian here.
constexpr DescrEntry kDescrs[] = {
    {"<f4", ScalarType::Float},
    {"<f8", ScalarType::Double},
    {"<f2", ScalarType::Half},
    {"|i1", ScalarType::Char},
    {"|u1", ScalarType::Byte},
    {"<i2", ScalarType::Short},
    {"<i4", ScalarType::Int},
    {"<i8", ScalarType::Long},
    {"|b1", ScalarType::Bool},
    {"<u2", ScalarType::UInt16},
    {"<u4", ScalarType::UInt32},
    {"<u8", ScalarType::UInt64},
};

bool lookup_descr(std::string d, ScalarType* out) {
  if (d.size() == 3 && (d[0] == '=' || (d[0] == '<' && (d[2] == '1')))) {
    d[0] = d[2] == '1' ? '|' : '<';
  }
  for (const DescrEntry& e : kDescrs) {
    if (d == e.descr) {
      *out = e.dtype;
      return true;
    }
  }
  return false;
}

size_t element_size(ScalarType t) {
  switch (t) {
    case ScalarType::Double:
    case ScalarType::Long:
    case ScalarType::UInt64:
      return 8;
    case ScalarType::Float:
    case ScalarType::Int:
    case ScalarType::UInt32:
      return 4;
    case ScalarType::Half:
    case ScalarType::Short:
    case ScalarType::UInt16:
    case ScalarType::BFloat16:
      return 2;
    default:
      return 1;
  }
}

// Value of 'key': in the header dict, as the raw text up to the matching delimiter.
bool dict_value(const std::string& h, const char* key, std::string* out) {
  const std::string k1 = std::string("'") + key + "'";
  size_t p = h.find(k1);
  if (p == std::string::npos) {
    return false;
  }
  p = h.find(':', p + k1.size());
  if (p == std::string::npos) {
    return false;
  }
  ++p;
  while (p < h.size() && h[p] == ' ') {
    ++p;
  }
  if (p >= h.size()) {
    return false;
  }
  size_t end;
  if (h[p] == '\'') {
    end = h.find('\'', p + 1);
    if (end == std::string::npos) {
      return false;
    }
    *out = h.substr(p + 1, end - p - 1);
    return true;
  }
  if (h[p] == '(') {
    end = h.find(')', p);
    if (end == std::string::npos) {
      return false;
    }
    *out = h.substr(p + 1, end - p - 1);
    return true;
  }
  end = h.find_first_of(",}", p);
  if (end == std::string::npos) {
    return false;
  }
  *out = h.substr(p, end - p);
  while (!out->empty() && out->back() == ' ') {
    out->pop_back();
  }
  return true;
}

}  // namespace

const char* npy_descr(ScalarType dtype) {
  for (const DescrEntry& e : kDescrs) {
    if (e.dtype == dtype) {
      return e.descr;
    }
  }
  return nullptr;
}

bool read_npy(const std::string& path, NpyArray* out, std::string* error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    *error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::vector<uint8_t> bytes(
      (std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  static const uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0) {
    *error = "'" + path + "' is not a .npy file (bad magic)";
    return false;
  }
  const uint8_t major = bytes[6];
  size_t header_len;
  size_t header_start;
  if (major == 1) {
    header_len = bytes[8] | (size_t(bytes[9]) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) {
      *error = "'" + path + "': truncated header";
      return false;
    }
    header_len = bytes[8] | (size_t(bytes[9]) << 8) |
                 (size_t(bytes[10]) << 16) | (size_t(bytes[11]) << 24);
    header_start = 12;
  } else {
    *error =
        "'" + path + "': unsupported .npy version " + std::to_string(major);
    return false;
  }
  if (header_len > bytes.size() - header_start) {
    *error = "'" + path + "': truncated header";
    return false;
  }
  const std::string h(
      reinterpret_cast<const char*>(bytes.data() + header_start), header_len);
  std::string descr, fortran, shape;
  if (!dict_value(h, "descr", &descr) ||
      !dict_value(h, "fortran_order", &fortran) ||
      !dict_value(h, "shape", &shape)) {
    *error = "'" + path + "': malformed header: " + h;
    return false;
  }
  if (fortran != "False") {
    *error = "'" + path + "': Fortran-order arrays are not supported";
    return false;
  }
  if (!lookup_descr(descr, &out->dtype)) {
    *error = "'" + path + "': unsupported dtype '" + descr +
             "' (little-endian bool/int/uint/float only)";
    return false;
  }
  out->descr = descr;
  out->shape.clear();
  size_t numel = 1;
  const char* s = shape.c_str();
  while (*s != '\0') {
    while (*s == ' ' || *s == ',') {
      ++s;
    }
    if (*s == '\0') {
      break;
    }
    char* end = nullptr;
    const long long d = std::strtoll(s, &end, 10);
    if (end == s || d < 0) {
      *error = "'" + path + "': bad shape (" + shape + ")";
      return false;
    }
    out->shape.push_back(d);
    if (d != 0 && numel > (size_t(1) << 40) / size_t(d)) {
      *error = "'" + path + "': shape too large";
      return false;
    }
    numel *= size_t(d);
    s = end;
  }
  const size_t nbytes = numel * element_size(out->dtype);
  const size_t data_start = header_start + header_len;
  if (bytes.size() - data_start < nbytes) {
    *error = "'" + path + "': " + std::to_string(bytes.size() - data_start) +
             " data bytes, shape needs " + std::to_string(nbytes);
    return false;
  }
  out->data.assign(
      bytes.begin() + data_start, bytes.begin() + data_start + nbytes);
  return true;
}

bool write_npy(
    const std::string& path,
    ScalarType dtype,
    const std::vector<int64_t>& shape,
    const void* data,
    size_t nbytes,
    std::string* error) {
  const char* descr = npy_descr(dtype);
  if (descr == nullptr) {
    *error = "dtype has no .npy representation";
    return false;
  }
  std::string dict = std::string("{'descr': '") + descr +
                     "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i) {
    dict += std::to_string(shape[i]);
    if (shape.size() == 1 || i + 1 < shape.size()) {
      dict += ",";
    }
    if (i + 1 < shape.size()) {
      dict += " ";
    }
  }
  dict += "), }";
  // Pad so that the data starts on a 64-byte boundary; the header ends in '\n'.
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::ofstream f(path, std::ios::binary);
  if (!f) {
    *error = "cannot create '" + path + "': " + std::strerror(errno);
    return false;
  }
  const uint8_t pre[10] = {
      0x93,
      'N',
      'U',
      'M',
      'P',
      'Y',
      1,
      0,
      uint8_t(dict.size() & 0xff),
      uint8_t(dict.size() >> 8)};
  f.write(reinterpret_cast<const char*>(pre), sizeof(pre));
  f.write(dict.data(), static_cast<std::streamsize>(dict.size()));
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(nbytes));
  if (!f) {
    *error = "write to '" + path + "' failed";
    return false;
  }
  return true;
}

}  // namespace et_run
