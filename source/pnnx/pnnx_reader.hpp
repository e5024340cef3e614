// Reading a PNNX model (a .pnnx.param / .pnnx.bin pair) into a Graph.
//
// The reader is the only code that knows the PNNX file formats. Besides parsing, it turns pnnx's
// own conventions into plain graph facts: the pnnx.Input and pnnx.Output lines become the graph's
// input and output lists, and a prim::TupleConstruct that only packs several results for
// pnnx.Output is replaced by those results. It knows nothing about layers.
#ifndef LUMEN_PNNX_PNNX_READER_HPP_
#define LUMEN_PNNX_PNNX_READER_HPP_

#include <string>

#include "graph/graph.hpp"

namespace lumen {

// Reads a .pnnx.param file and the weights its `@` items declare from the .pnnx.bin file, checking
// every declared weight against the stored member (presence, size, dtype). `bin_path` empty: the
// .bin beside the .param (`x.pnnx.param` -> `x.pnnx.bin`). Throws lumen::Error with the file,
// line and token on any problem.
Graph ReadPnnxGraph(const std::string& param_path, const std::string& bin_path = "");

// Reads the weights of every `@` attribute of `graph` from a .pnnx.bin file.
// `param_path` only names the param file in messages.
void ReadPnnxWeights(const std::string& bin_path, const std::string& param_path, Graph* graph);

// Moves pnnx.Input / pnnx.Output lines (and a prim::TupleConstruct feeding pnnx.Output) into the
// graph's input and output lists. Throws lumen::Error if there is no input or output.
void ResolvePnnxInputsAndOutputs(Graph* graph);

// The .bin file that goes with a .param file.
std::string PnnxBinPathFor(const std::string& param_path);

}  // namespace lumen

#endif  // LUMEN_PNNX_PNNX_READER_HPP_
