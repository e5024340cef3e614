// JSON text for lumen_run --json: just enough to write one object of strings, numbers, booleans,
// shapes and nested objects and arrays, for scripts to read with json.load.
#ifndef LUMEN_DEMOS_RUN_JSON_TEXT_HPP_
#define LUMEN_DEMOS_RUN_JSON_TEXT_HPP_

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace lumen {
namespace run {

// A string as a JSON string literal, quoted and escaped.
inline std::string JsonString(const std::string& text) {
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      quoted += escaped;
    } else {
      quoted += c;
    }
  }
  return quoted + "\"";
}

// A number; JSON has no NaN or infinity, so those become null.
inline std::string JsonNumber(double value) {
  if (!std::isfinite(value)) return "null";
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", value);
  return text;
}

// Values already written as JSON, as one array.
inline std::string JsonArray(const std::vector<std::string>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i > 0 ? ", " : "") + values[i];
  return text + "]";
}

// A shape as an array of integers (-1 for an extent left open).
template <typename Extent>
std::string JsonShape(const std::vector<Extent>& shape) {
  std::vector<std::string> extents;
  for (const Extent extent : shape) extents.push_back(std::to_string(extent));
  return JsonArray(extents);
}

// An object built key by key, in the order the keys are added.
class JsonObject {
 public:
  // Adds `key` with a value already written as JSON (JsonString, JsonNumber, another object...).
  JsonObject& Add(const std::string& key, std::string value) {
    members_.emplace_back(key, std::move(value));
    return *this;
  }
  // The object's text on one line.
  std::string Text() const {
    std::string text = "{";
    for (size_t i = 0; i < members_.size(); ++i) {
      text += (i > 0 ? ", " : "") + JsonString(members_[i].first) + ": " + members_[i].second;
    }
    return text + "}";
  }

 private:
  std::vector<std::pair<std::string, std::string>> members_;
};

}  // namespace run
}  // namespace lumen

#endif  // LUMEN_DEMOS_RUN_JSON_TEXT_HPP_
