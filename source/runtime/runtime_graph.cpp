#include "runtime/runtime_graph.hpp"

#include <algorithm>
#include <map>
#include <new>
#include <queue>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {

RuntimeGraph::RuntimeGraph(Graph graph, const RuntimeGraphOptions& options)
    : source_(graph.source) {
  IndexOperands(graph);
  CreateLayers(graph);
  if (options.fuse) FuseActivations();
  SortTopologically();
}

int RuntimeGraph::FindOperand(const std::string& name) const {
  const auto found = operand_index_.find(name);
  return found == operand_index_.end() ? -1 : found->second;
}

void RuntimeGraph::IndexOperands(const Graph& graph) {
  // LESSON 05 BEGIN: index operands by name; find the graph's inputs and outputs
  for (const Operand& operand : graph.operands) {
    if (!operand_index_.emplace(operand.name, static_cast<int>(operands_.size())).second) {
      throw Error(Concat("operand '", operand.name, "' is defined twice"));
    }
    operands_.push_back({operand.name, operand.shape, -1, {}});
  }
  const auto find = [&](const std::string& name, const std::string& user) {
    const int index = FindOperand(name);
    if (index < 0) throw Error(Concat(user, " uses operand '", name, "', which does not exist"));
    return index;
  };
  for (const std::string& name : graph.input_names)
    inputs_.push_back(find(name, "the graph input"));
  for (const std::string& name : graph.output_names) {
    outputs_.push_back(find(name, "the graph output"));
  }
  if (inputs_.empty()) throw Error("the graph has no inputs");
  if (outputs_.empty()) throw Error("the graph has no outputs");
  for (const Node& node : graph.nodes) {
    for (const std::string& name : node.input_names) find(name, node.DescribeWithLine());
    for (const std::string& name : node.output_names) find(name, node.DescribeWithLine());
  }
  // LESSON 05 END
}

void RuntimeGraph::CreateLayers(Graph& graph) {
  // Report every unsupported op type at once: a user converting a new model wants the whole list.
  // One problem is reported on one line, several as a list.
  std::string unsupported;
  std::string first_unsupported;
  for (const Node& node : graph.nodes) {
    if (LayerRegistry::Has(node.type)) continue;
    if (unsupported.empty()) first_unsupported = node.DescribeWithLine();
    unsupported += Concat("\n  ", node.DescribeWithLine());
  }
  if (unsupported == Concat("\n  ", first_unsupported)) {
    throw Error(Concat("the model uses an operator Lumen does not implement: ", first_unsupported));
  }
  if (!unsupported.empty()) {
    throw Error(Concat("the model uses operators Lumen does not implement:", unsupported));
  }
  std::string failures;
  std::string first_failure;
  int failure_count = 0;
  for (Node& node : graph.nodes) {
    Step step;
    step.type = node.type;
    step.name = node.name;
    step.description = node.DescribeWithLine();
    for (const std::string& name : node.input_names) step.inputs.push_back(FindOperand(name));
    for (const std::string& name : node.output_names) {
      const int index = FindOperand(name);
      OperandInfo& operand = operands_[static_cast<size_t>(index)];
      const bool is_input = std::find(inputs_.begin(), inputs_.end(), index) != inputs_.end();
      if (operand.producer >= 0 || is_input) {
        throw Error(Concat("operand '", name, "' is produced by both ",
                           is_input ? std::string("the graph input")
                                    : steps_[static_cast<size_t>(operand.producer)].description,
                           " and ", step.description));
      }
      operand.producer = static_cast<int>(steps_.size());
      step.outputs.push_back(index);
    }
    for (const auto& [key, attribute] : node.attributes) weight_bytes_ += attribute.data.size();
    try {
      step.layer = LayerRegistry::Create(LayerConfig(node, &graph.operands));
    } catch (const Error& error) {
      if (failure_count++ == 0) first_failure = error.what();
      failures += Concat("\n  ", error.what());
    } catch (const std::bad_alloc&) {
      const std::string failure =
          Concat(step.description, ": out of memory while reading its weights");
      if (failure_count++ == 0) first_failure = failure;
      failures += Concat("\n  ", failure);
    }
    // The layer has taken its own (converted) copy of the weights: free the raw bytes now, so
    // that a model's weights are in memory at most twice, never three times, while it builds.
    for (auto& [key, attribute] : node.attributes) std::vector<char>().swap(attribute.data);
    steps_.push_back(std::move(step));
  }
  if (failure_count == 1) throw Error(first_failure);
  if (failure_count > 1) throw Error(Concat("cannot build some layers:", failures));
  for (size_t index = 0; index < operands_.size(); ++index) {
    const bool is_input =
        std::find(inputs_.begin(), inputs_.end(), static_cast<int>(index)) != inputs_.end();
    if (operands_[index].producer < 0 && !is_input) {
      throw Error(Concat("operand '", operands_[index].name, "' has no producer"));
    }
  }
}

void RuntimeGraph::FuseActivations() {
  // A layer whose only reader is an activation can apply the activation itself while its output
  // is still in cache: if the layer accepts, the activation's step disappears and the layer
  // writes straight into the activation's output operand. The runtime only asks; each layer
  // decides (Layer::FuseActivation), so no layer is named here.
  std::vector<int> readers(operands_.size(), 0);
  for (const Step& step : steps_) {
    for (int input : step.inputs) ++readers[static_cast<size_t>(input)];
  }
  for (int output : outputs_) ++readers[static_cast<size_t>(output)];  // the caller reads these
  std::vector<bool> removed(steps_.size(), false);
  for (Step& step : steps_) {
    if (step.outputs.size() != 1) continue;
    OperandInfo& middle = operands_[static_cast<size_t>(step.outputs[0])];
    if (readers[static_cast<size_t>(step.outputs[0])] != 1) continue;
    const auto reader = std::find_if(steps_.begin(), steps_.end(), [&](const Step& other) {
      return std::find(other.inputs.begin(), other.inputs.end(), step.outputs[0]) !=
             other.inputs.end();
    });
    if (reader == steps_.end() || reader->inputs.size() != 1 || reader->outputs.size() != 1) {
      continue;
    }
    const Activation* activation = reader->layer->ElementwiseActivation();
    if (activation == nullptr || !step.layer->FuseActivation(*activation)) continue;
    const int result = reader->outputs[0];
    step.outputs[0] = result;
    step.fused.push_back(reader->description);
    operands_[static_cast<size_t>(result)].producer = -1;  // set again below, once steps move
    middle.producer = -1;
    middle.fused_into = step.description;
    removed[static_cast<size_t>(reader - steps_.begin())] = true;
  }
  std::vector<Step> kept;
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (!removed[i]) kept.push_back(std::move(steps_[i]));
  }
  steps_ = std::move(kept);
  for (size_t i = 0; i < steps_.size(); ++i) {
    for (int output : steps_[i].outputs) {
      operands_[static_cast<size_t>(output)].producer = static_cast<int>(i);
    }
  }
}

void RuntimeGraph::SortTopologically() {
  // LESSON 05 BEGIN: Kahn's algorithm; earliest line first among the ready
  // Kahn's algorithm. Among the steps that are ready, the one earliest in the file runs first,
  // so a file that is already in order (as pnnx writes them) keeps its order.
  std::vector<std::vector<size_t>> readers(operands_.size());
  std::vector<size_t> pending_inputs(steps_.size(), 0);
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < steps_.size(); ++i) {
    for (int input : steps_[i].inputs) {
      readers[static_cast<size_t>(input)].push_back(i);  // one entry per use, like the inputs
      if (operands_[static_cast<size_t>(input)].producer >= 0) ++pending_inputs[i];
    }
    if (pending_inputs[i] == 0) ready.push(i);
  }
  std::vector<size_t> order;
  while (!ready.empty()) {
    const size_t index = ready.top();
    ready.pop();
    order.push_back(index);
    for (int output : steps_[index].outputs) {
      for (size_t reader : readers[static_cast<size_t>(output)]) {
        if (--pending_inputs[reader] == 0) ready.push(reader);
      }
    }
  }
  if (order.size() != steps_.size()) {
    std::string stuck;
    for (size_t i = 0; i < steps_.size(); ++i) {
      if (pending_inputs[i] > 0) stuck += Concat("\n  ", steps_[i].description);
    }
    throw Error(Concat("the graph has a cycle; these operators can never run:", stuck));
  }
  std::vector<Step> sorted;
  for (size_t index : order) sorted.push_back(std::move(steps_[index]));
  steps_ = std::move(sorted);
  for (size_t i = 0; i < steps_.size(); ++i) {
    for (int output : steps_[i].outputs) {
      operands_[static_cast<size_t>(output)].producer = static_cast<int>(i);
    }
  }
  // LESSON 05 END
}

}  // namespace lumen
