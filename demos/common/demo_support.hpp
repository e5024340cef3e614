// Small helpers the demos share: text files of names.
#ifndef LUMEN_DEMOS_COMMON_DEMO_SUPPORT_HPP_
#define LUMEN_DEMOS_COMMON_DEMO_SUPPORT_HPP_

#include <fstream>
#include <string>
#include <vector>

#include "lumen/error.hpp"

namespace lumen {
namespace demo {

// Reads a file of names, one per line (class labels); `what` says what it is in errors.
inline std::vector<std::string> ReadLines(const std::string& path, const std::string& what) {
  std::ifstream file(path);
  if (!file) throw Error(Concat(path, ": cannot open the ", what, " file"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);) lines.push_back(line);
  return lines;
}

}  // namespace demo
}  // namespace lumen

#endif  // LUMEN_DEMOS_COMMON_DEMO_SUPPORT_HPP_
