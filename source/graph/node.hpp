// Node: one operator of a model as a file describes it: what it is, which operands it reads and
// writes, its typed parameters and its weights. Plain data, filled by a reader (pnnx/, onnx/) and
// read by the runtime when it builds layers.
#ifndef LUMEN_GRAPH_NODE_HPP_
#define LUMEN_GRAPH_NODE_HPP_

#include <map>
#include <string>
#include <vector>

#include "graph/attribute.hpp"
#include "graph/parameter.hpp"

namespace lumen {

// An operator node: its type ("nn.Conv2d"), name, operands by name, parameters and weights.
struct Node {
  std::string type;  // e.g. "nn.Conv2d"
  std::string name;  // unique in the graph, e.g. "layer1.0.conv1"
  int line = 0;      // line (or node index) in the model file, for messages; 0 when made by hand

  // Operand names as written, by position: the same name may appear more than once.
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
  // `$key=operand` items: the role an input plays (e.g. "attn_mask"), keyed by role.
  std::map<std::string, std::string> input_keys;
  // Hyper-parameters (`stride=(2,2)`).
  std::map<std::string, Parameter> params;
  // Weights (`@weight=(64,3,7,7)f32`), with their bytes once the weights file is read.
  std::map<std::string, Attribute> attributes;

  // "nn.Conv2d 'conv1'": how messages name this operator.
  std::string Describe() const;
  // The same with the line when known: "nn.Conv2d 'conv1' (line 7)".
  std::string DescribeWithLine() const;
};

}  // namespace lumen

#endif  // LUMEN_GRAPH_NODE_HPP_
