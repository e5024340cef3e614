#include "graph/graph_reader.hpp"

#include <sys/stat.h>

#include <fstream>
#include <mutex>
#include <vector>

#include "lumen/error.hpp"

namespace lumen {
namespace {

std::vector<GraphFormat>& Formats() {
  static std::vector<GraphFormat> formats;
  return formats;
}

}  // namespace

void RegisterGraphFormat(const GraphFormat& format) { Formats().push_back(format); }

Graph ReadGraph(const std::string& path, const std::string& weights_path) {
  static std::once_flag once;
  std::call_once(once, RegisterBuiltinGraphFormats);
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) throw Error(Concat(path, ": cannot open"));
  if (S_ISDIR(info.st_mode)) throw Error(Concat(path, ": is a directory, not a model file"));
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error(Concat(path, ": cannot open"));
  std::string head(64, '\0');
  file.read(&head[0], static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(file.gcount()));
  if (head.empty()) throw Error(Concat(path, ": empty file"));
  std::string names;
  for (const GraphFormat& format : Formats()) {
    if (format.recognises(path, head)) return format.read(path, weights_path);
    names += Concat(names.empty() ? "" : ", ", format.name);
  }
  throw Error(Concat(path, ": not a model file Lumen can read (formats: ", names, ")"));
}

}  // namespace lumen
