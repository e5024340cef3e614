// Writer for PNNX models: a Graph as read from a .pnnx.param (pnnx.Input and pnnx.Output lines
// kept, see param_reader.hpp) back to a .pnnx.param / .pnnx.bin pair that pnnx_reader.hpp reads.
// lumen_quantize writes its quantised models with it.
//
// Every node becomes one line, in the graph's order: type, name, operand counts and names, its
// parameters (`key=value`, as their text was read or made), its attributes' declarations
// (`@key=(shape)dtype`, the bytes going to the .bin as member "<name>.<key>"), its input roles
// (`$key=operand`) and the shapes of the operands it produces (`#operand=(shape)dtype`).
#ifndef LUMEN_PNNX_PNNX_WRITER_HPP_
#define LUMEN_PNNX_PNNX_WRITER_HPP_

#include <string>

#include "graph/graph.hpp"

namespace lumen {

// The .pnnx.param text of `graph` (see the top of this file).
std::string PnnxParamText(const Graph& graph);

// Writes `graph` to `param_path` and its attributes' bytes to `bin_path`; throws lumen::Error if
// an attribute's bytes disagree with its declaration or a file cannot be written.
void WritePnnxModel(const Graph& graph, const std::string& param_path, const std::string& bin_path);

}  // namespace lumen

#endif  // LUMEN_PNNX_PNNX_WRITER_HPP_
