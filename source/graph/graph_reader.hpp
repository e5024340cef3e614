// Reading a model file of any supported format into a Graph.
//
// Each format lives in its own folder (pnnx/, onnx/) and registers itself with
// LUMEN_REGISTER_GRAPH_FORMAT: a test that recognises its files by their first bytes, and a
// reader. ReadGraph asks every format in turn; adding a format is one more folder and one
// registration, and nothing above this folder knows which format a model came from.
#ifndef LUMEN_GRAPH_GRAPH_READER_HPP_
#define LUMEN_GRAPH_GRAPH_READER_HPP_

#include <string>

#include "graph/graph.hpp"

namespace lumen {

// One model format.
struct GraphFormat {
  const char* name;  // "pnnx", "onnx"
  // True if a file whose first bytes are `head` (up to 64) at `path` is of this format.
  bool (*recognises)(const std::string& path, const std::string& head);
  // Reads the model at `path`, with its weights from `weights_path` (empty: the format's
  // default place). Throws lumen::Error naming the file and what is wrong.
  Graph (*read)(const std::string& path, const std::string& weights_path);
};

// Adds a format to the list ReadGraph tries.
void RegisterGraphFormat(const GraphFormat& format);

// Reads a model file of whichever registered format recognises it; throws lumen::Error if the
// file cannot be opened, is a directory, or no format recognises it.
Graph ReadGraph(const std::string& path, const std::string& weights_path = "");

// Defined in the generated registration file: calls every RegisterGraphFormat_<Name>().
void RegisterBuiltinGraphFormats();

}  // namespace lumen

// Defines RegisterGraphFormat_<Name>(), registering `format` (a GraphFormat). Use it inside
// namespace lumen.
#define LUMEN_REGISTER_GRAPH_FORMAT(Name, format)                             \
  void RegisterGraphFormat_##Name() { ::lumen::RegisterGraphFormat(format); } \
  static_assert(true, "the macro is used as a statement: LUMEN_REGISTER_GRAPH_FORMAT(...);")

#endif  // LUMEN_GRAPH_GRAPH_READER_HPP_
