// A minimal JSON reader for test manifests (objects, arrays, strings,
// numbers, true/false/null). Throws std::runtime_error on bad input.
#pragma once

#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace et_test {

struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<Json> arr;
  std::map<std::string, Json> obj;

  const Json& operator[](const std::string& k) const {
    static const Json null;
    auto it = obj.find(k);
    return it == obj.end() ? null : it->second;
  }
  bool has(const std::string& k) const { return obj.count(k) != 0; }
  int64_t i() const { return static_cast<int64_t>(num); }

  static Json parse(const std::string& text) {
    size_t pos = 0;
    Json j = parse_value(text, pos);
    skip(text, pos);
    if (pos != text.size()) throw std::runtime_error("trailing data");
    return j;
  }

 private:
  static void skip(const std::string& s, size_t& p) {
    while (p < s.size() && (s[p] == ' ' || s[p] == '\n' || s[p] == '\r' || s[p] == '\t')) ++p;
  }
  static void expect(const std::string& s, size_t& p, char c) {
    skip(s, p);
    if (p >= s.size() || s[p] != c) throw std::runtime_error(std::string("expected ") + c);
    ++p;
  }
  static std::string parse_string(const std::string& s, size_t& p) {
    expect(s, p, '"');
    std::string out;
    while (p < s.size() && s[p] != '"') {
      char c = s[p++];
      if (c == '\\' && p < s.size()) {
        char e = s[p++];
        switch (e) {
          case 'n': out += '\n'; break;
          case 't': out += '\t'; break;
          case 'r': out += '\r'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'u': {
            unsigned cp = std::stoul(s.substr(p, 4), nullptr, 16);
            p += 4;
            if (cp < 0x80) out += char(cp);
            else if (cp < 0x800) { out += char(0xC0 | (cp >> 6)); out += char(0x80 | (cp & 0x3F)); }
            else { out += char(0xE0 | (cp >> 12)); out += char(0x80 | ((cp >> 6) & 0x3F)); out += char(0x80 | (cp & 0x3F)); }
            break;
          }
          default: out += e;
        }
      } else {
        out += c;
      }
    }
    expect(s, p, '"');
    return out;
  }
  static Json parse_value(const std::string& s, size_t& p) {
    skip(s, p);
    if (p >= s.size()) throw std::runtime_error("unexpected end");
    Json j;
    char c = s[p];
    if (c == '{') {
      j.kind = Object;
      ++p;
      skip(s, p);
      if (s[p] == '}') { ++p; return j; }
      while (true) {
        std::string k = parse_string(s, p);
        expect(s, p, ':');
        j.obj[k] = parse_value(s, p);
        skip(s, p);
        if (s[p] == ',') { ++p; continue; }
        expect(s, p, '}');
        return j;
      }
    }
    if (c == '[') {
      j.kind = Array;
      ++p;
      skip(s, p);
      if (s[p] == ']') { ++p; return j; }
      while (true) {
        j.arr.push_back(parse_value(s, p));
        skip(s, p);
        if (s[p] == ',') { ++p; continue; }
        expect(s, p, ']');
        return j;
      }
    }
    if (c == '"') { j.kind = String; j.str = parse_string(s, p); return j; }
    if (s.compare(p, 4, "true") == 0) { j.kind = Bool; j.b = true; p += 4; return j; }
    if (s.compare(p, 5, "false") == 0) { j.kind = Bool; p += 5; return j; }
    if (s.compare(p, 4, "null") == 0) { p += 4; return j; }
    if (s.compare(p, 3, "NaN") == 0) { j.kind = Number; p += 3; return j; }
    if (s.compare(p, 8, "Infinity") == 0) { j.kind = Number; p += 8; return j; }
    if (s.compare(p, 9, "-Infinity") == 0) { j.kind = Number; p += 9; return j; }
    char* end = nullptr;
    j.num = std::strtod(s.c_str() + p, &end);
    if (end == s.c_str() + p) throw std::runtime_error("bad value at " + std::to_string(p));
    j.kind = Number;
    p = static_cast<size_t>(end - s.c_str());
    return j;
  }
};

} // namespace et_test
