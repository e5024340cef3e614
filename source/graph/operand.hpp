// Operand: one named tensor of a model (an edge of the graph) as the file describes it.
#ifndef LUMEN_GRAPH_OPERAND_HPP_
#define LUMEN_GRAPH_OPERAND_HPP_

#include <string>
#include <vector>

#include "graph/attribute.hpp"

namespace lumen {

// A tensor flowing between operators: its name and what the file says of its shape and type.
struct Operand {
  std::string name;
  // Full shape as annotated (`#name=(1,3,224,224)f32`), batch first; -1 for an unknown extent
  // (`?`); empty when the file has no annotation. The shapes of the export: the runtime infers
  // its own from the inputs it is given, and uses these only as defaults and as a cross-check.
  std::vector<int> shape;
  DataType type = DataType::kUnknown;
};

}  // namespace lumen

#endif  // LUMEN_GRAPH_OPERAND_HPP_
