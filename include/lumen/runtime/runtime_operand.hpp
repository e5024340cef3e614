// RuntimeOperand: one named tensor of the graph (an edge), with its producer and consumers.
#ifndef LUMEN_RUNTIME_RUNTIME_OPERAND_HPP_
#define LUMEN_RUNTIME_RUNTIME_OPERAND_HPP_

#include <string>
#include <vector>

#include "lumen/runtime/runtime_attribute.hpp"
#include "lumen/tensor/tensor.hpp"

namespace lumen {

struct RuntimeOperator;

// A tensor flowing between operators: what the reader knows of it, how the graph links it, and
// (after RuntimeGraph::Build) its preallocated data.
struct RuntimeOperand {
  std::string name;
  // Full shape from the `#name=(...)` notes, batch first; -1 for an unknown extent (`?`); empty
  // when the file has no note for this operand.
  std::vector<int> shape;
  DataType type = DataType::kUnknown;

  RuntimeOperator* producer = nullptr;      // set by RuntimeGraph::Build
  std::vector<RuntimeOperator*> consumers;  // set by RuntimeGraph::Build; one entry per use
  TensorBatch data;                         // one Tensor per sample, allocated by Build
};

}  // namespace lumen

#endif  // LUMEN_RUNTIME_RUNTIME_OPERAND_HPP_
