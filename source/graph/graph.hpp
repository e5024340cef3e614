// Graph: everything a model file describes, as nodes and operands, whatever its format.
//
// Each reader (pnnx/, onnx/) turns its format into a Graph; nothing above this folder knows which
// format a model came from. Format-specific constructs (pnnx.Input / pnnx.Output lines, a
// prim::TupleConstruct that only packs the outputs) are resolved by the reader into the graph's
// input and output lists.
#ifndef LUMEN_GRAPH_GRAPH_HPP_
#define LUMEN_GRAPH_GRAPH_HPP_

#include <map>
#include <string>
#include <vector>

#include "graph/node.hpp"
#include "graph/operand.hpp"

namespace lumen {

// A model's nodes and operands in file order, and which operands are its inputs and outputs.
struct Graph {
  std::vector<Node> nodes;
  std::vector<Operand> operands;
  std::vector<std::string> input_names;   // in the order callers pass inputs
  std::vector<std::string> output_names;  // in the order outputs are returned
  std::string source;                     // the file it was read from, for messages
  // Names the file gives the extents of some operands (ONNX's dim_param for a free extent of a
  // graph input or output), by operand name: one per extent of its shape, "" where it names none.
  // PNNX files name no extent.
  std::map<std::string, std::vector<std::string>> dim_names;

  // The operand called `name`, or null.
  const Operand* FindOperand(const std::string& name) const;
};

}  // namespace lumen

#endif  // LUMEN_GRAPH_GRAPH_HPP_
