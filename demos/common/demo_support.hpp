// Small helpers the demos share: strict command-line numbers and text files of names.
#ifndef LUMEN_DEMOS_COMMON_DEMO_SUPPORT_HPP_
#define LUMEN_DEMOS_COMMON_DEMO_SUPPORT_HPP_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "lumen/base/error.hpp"
#include "lumen/base/parse_number.hpp"

namespace lumen {
namespace demo {

// Parses an option's value as a number in [0, 1] (a threshold); throws naming the option.
inline float ParseFraction(const std::string& text, const std::string& option) {
  float value = 0;
  if (!ParseFloat(text, &value) || value < 0 || value > 1) {
    throw Error(Concat(option, " needs a number in [0, 1], got '", text, "'"));
  }
  return value;
}

// Parses an option's value as a positive count; throws naming the option.
inline int ParseCount(const std::string& text, const std::string& option) {
  int64_t value = 0;
  if (!ParseInteger(text, &value) || value < 1 || value > 100000) {
    throw Error(Concat(option, " needs a positive integer, got '", text, "'"));
  }
  return static_cast<int>(value);
}

// Reads a file of names, one per line (class labels); `what` says what it is in errors.
inline std::vector<std::string> ReadLines(const std::string& path, const std::string& what) {
  std::ifstream file(path);
  if (!file) throw Error(Concat(path, ": cannot open the ", what, " file"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);) lines.push_back(line);
  return lines;
}

// What a demo does with the value of one "--name value" option.
using OptionHandler = std::function<void(const std::string& value)>;

// Walks "--name value" pairs, calling each name's handler with its value; prints `usage` and exits
// on --help; throws on an unknown option or a missing value.
inline void ParseCommandLine(int argc, char** argv,
                             const std::map<std::string, OptionHandler>& handlers,
                             const char* usage) {
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--help" || argument == "-h") {
      std::printf("%s", usage);
      std::exit(0);
    }
    const auto handler = handlers.find(argument);
    if (handler == handlers.end()) {
      throw Error(Concat("unknown argument '", argument, "'\n", usage));
    }
    if (i + 1 >= argc) throw Error(Concat(argument, " needs a value"));
    handler->second(argv[++i]);
  }
}

}  // namespace demo
}  // namespace lumen

#endif  // LUMEN_DEMOS_COMMON_DEMO_SUPPORT_HPP_
