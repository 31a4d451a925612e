// A minimal JSON reader for test manifests: objects, arrays, strings (with
// the common escapes; \u is kept only for ASCII), numbers, true/false/null.
#pragma once

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace test {

struct Json {
  enum class Type { Null, Bool, Number, String, Array, Object } type = Type::Null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<Json> arr;
  std::map<std::string, Json> obj;

  bool has(const std::string& k) const {
    return type == Type::Object && obj.count(k) != 0;
  }
  const Json& operator[](const std::string& k) const {
    static const Json kNull;
    auto it = obj.find(k);
    return it == obj.end() ? kNull : it->second;
  }
  const Json& operator[](size_t i) const {
    return arr[i];
  }
  size_t size() const {
    return type == Type::Array ? arr.size() : obj.size();
  }
};

namespace json_detail {

struct Parser {
  const std::string& s;
  size_t p = 0;
  bool ok = true;

  void ws() {
    while (p < s.size() && (s[p] == ' ' || s[p] == '\n' || s[p] == '\r' || s[p] == '\t'))
      ++p;
  }
  bool lit(const char* w) {
    size_t n = std::char_traits<char>::length(w);
    if (s.compare(p, n, w) == 0) {
      p += n;
      return true;
    }
    return false;
  }
  std::string string() {
    std::string out;
    ++p;  // opening quote
    while (p < s.size() && s[p] != '"') {
      char c = s[p++];
      if (c == '\\' && p < s.size()) {
        char e = s[p++];
        switch (e) {
          case 'n':
            out += '\n';
            break;
          case 't':
            out += '\t';
            break;
          case 'r':
            out += '\r';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'u': {
            unsigned v = static_cast<unsigned>(std::strtoul(s.substr(p, 4).c_str(), nullptr, 16));
            p += 4;
            out += v < 128 ? static_cast<char>(v) : '?';
            break;
          }
          default:
            out += e;
        }
      } else {
        out += c;
      }
    }
    ++p;  // closing quote
    return out;
  }
  Json value() {
    Json v;
    ws();
    if (p >= s.size()) {
      ok = false;
      return v;
    }
    char c = s[p];
    if (c == '{') {
      v.type = Json::Type::Object;
      ++p;
      ws();
      if (s[p] == '}') {
        ++p;
        return v;
      }
      while (ok) {
        ws();
        std::string k = string();
        ws();
        ++p;  // ':'
        v.obj[k] = value();
        ws();
        if (s[p] == ',') {
          ++p;
          continue;
        }
        ++p;  // '}'
        break;
      }
    } else if (c == '[') {
      v.type = Json::Type::Array;
      ++p;
      ws();
      if (s[p] == ']') {
        ++p;
        return v;
      }
      while (ok) {
        v.arr.push_back(value());
        ws();
        if (s[p] == ',') {
          ++p;
          continue;
        }
        ++p;  // ']'
        break;
      }
    } else if (c == '"') {
      v.type = Json::Type::String;
      v.str = string();
    } else if (lit("true")) {
      v.type = Json::Type::Bool;
      v.b = true;
    } else if (lit("false")) {
      v.type = Json::Type::Bool;
    } else if (lit("null")) {
    } else if (lit("NaN")) {
      v.type = Json::Type::Number;
      v.num = std::strtod("nan", nullptr);
    } else if (lit("Infinity")) {
      v.type = Json::Type::Number;
      v.num = std::strtod("inf", nullptr);
    } else if (lit("-Infinity")) {
      v.type = Json::Type::Number;
      v.num = -std::strtod("inf", nullptr);
    } else {
      char* end = nullptr;
      v.type = Json::Type::Number;
      v.num = std::strtod(s.c_str() + p, &end);
      if (end == s.c_str() + p) {
        ok = false;
      }
      p = static_cast<size_t>(end - s.c_str());
    }
    return v;
  }
};

}  // namespace json_detail

inline bool parse_json(const std::string& text, Json* out) {
  json_detail::Parser parser{text};
  *out = parser.value();
  return parser.ok;
}

inline bool read_json(const std::string& path, Json* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    return false;
  }
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return parse_json(text, out);
}

}  // namespace test
