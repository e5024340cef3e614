#include "passes/layer_graph.hpp"

#include <utility>

namespace lumen {

void LayerGraph::Step::ReplaceLayer(std::unique_ptr<Layer> new_layer) {
  // A description starts with the op type (Node::Describe); the name and line after it stay.
  description.replace(0, type.size(), new_layer->type());
  type = new_layer->type();
  layer = std::move(new_layer);
}

std::vector<int> LayerGraph::SoleReaders() const {
  std::vector<int> uses(operands.size(), 0);
  std::vector<int> reader(operands.size(), -1);
  for (size_t index = 0; index < steps.size(); ++index) {
    for (int input : steps[index].inputs) {
      ++uses[static_cast<size_t>(input)];
      reader[static_cast<size_t>(input)] = static_cast<int>(index);
    }
  }
  for (int output : outputs) ++uses[static_cast<size_t>(output)];  // the caller reads these
  for (size_t operand = 0; operand < operands.size(); ++operand) {
    if (uses[operand] != 1) reader[operand] = -1;
  }
  return reader;
}

int LayerGraph::NextStep(const std::vector<int>& sole_readers, size_t step) const {
  if (steps[step].outputs.size() != 1) return -1;
  const int reader = sole_readers[static_cast<size_t>(steps[step].outputs[0])];
  if (reader < 0 || steps[static_cast<size_t>(reader)].removed) return -1;
  return reader;
}

int LayerGraph::AddOperand(const std::string& name, const std::vector<int>& annotated_shape) {
  operands.push_back({name, annotated_shape, -1, {}});
  return static_cast<int>(operands.size() - 1);
}

void LayerGraph::KeepSteps(const std::vector<size_t>& order) {
  std::vector<Step> kept;
  kept.reserve(order.size());
  for (size_t index : order) kept.push_back(std::move(steps[index]));
  steps = std::move(kept);
  for (OperandInfo& operand : operands) operand.producer = -1;
  for (size_t index = 0; index < steps.size(); ++index) {
    for (int output : steps[index].outputs) {
      operands[static_cast<size_t>(output)].producer = static_cast<int>(index);
    }
  }
}

void LayerGraph::DropRemovedSteps() {
  std::vector<size_t> order;
  for (size_t index = 0; index < steps.size(); ++index) {
    if (!steps[index].removed) order.push_back(index);
  }
  KeepSteps(order);
}

void LayerGraph::AbsorbStep(size_t gone, size_t into) {
  steps[into].fused.push_back(steps[gone].description);
  for (int output : steps[gone].outputs) {
    operands[static_cast<size_t>(output)].fused_into = steps[into].description;
  }
  steps[gone].removed = true;
}

void LayerGraph::AbsorbSoleReader(size_t step, size_t reader) {
  Step& writer = steps[step];
  operands[static_cast<size_t>(writer.outputs[0])].fused_into = writer.description;
  writer.outputs[0] = steps[reader].outputs[0];
  writer.fused.push_back(steps[reader].description);
  steps[reader].removed = true;
}

int LayerGraph::FoldSoleReaders(const SoleReaderFold& fold) {
  const std::vector<int> sole_readers = SoleReaders();
  int folded = 0;
  for (size_t index = 0; index < steps.size(); ++index) {
    const int reader = NextStep(sole_readers, index);
    if (steps[index].removed || reader < 0) continue;
    if (!fold(index, static_cast<size_t>(reader), sole_readers)) continue;
    AbsorbSoleReader(index, static_cast<size_t>(reader));
    ++folded;
  }
  DropRemovedSteps();
  return folded;
}

void LayerGraph::AbsorbConstant(size_t constant, size_t into) {
  for (int output : steps[constant].outputs) {
    operands[static_cast<size_t>(output)].fused_into = steps[into].description;
  }
  steps[constant].removed = true;
}

}  // namespace lumen
