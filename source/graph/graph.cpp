#include "graph/graph.hpp"

namespace lumen {

const Operand* Graph::FindOperand(const std::string& name) const {
  for (const Operand& operand : operands) {
    if (operand.name == name) return &operand;
  }
  return nullptr;
}

}  // namespace lumen
