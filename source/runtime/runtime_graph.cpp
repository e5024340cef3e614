#include "runtime/runtime_graph.hpp"

#include <algorithm>
#include <map>
#include <new>

#include "graph/topological_order.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "passes/passes.hpp"

namespace lumen {

RuntimeGraph::RuntimeGraph(Graph graph, const RuntimeGraphOptions& options)
    : source_(graph.source) {
  IndexOperands(graph);
  DescribeInputsAndOutputs(graph);
  CreateLayers(graph);
  if (options.fuse) RunPasses();
  SortTopologically();
}

int RuntimeGraph::FindOperand(const std::string& name) const {
  const auto found = operand_index_.find(name);
  return found == operand_index_.end() ? -1 : found->second;
}

void RuntimeGraph::IndexOperands(const Graph& graph) {
  // LESSON 05 BEGIN: index operands by name; find the graph's inputs and outputs
  for (const Operand& operand : graph.operands) {
    if (!operand_index_.emplace(operand.name, static_cast<int>(layers_.operands.size())).second) {
      throw Error(Concat("operand '", operand.name, "' is defined twice"));
    }
    layers_.operands.push_back({operand.name, operand.shape, -1, {}});
  }
  const auto find = [&](const std::string& name, const std::string& user) {
    const int index = FindOperand(name);
    if (index < 0) throw Error(Concat(user, " uses operand '", name, "', which does not exist"));
    return index;
  };
  for (const std::string& name : graph.input_names)
    layers_.inputs.push_back(find(name, "the graph input"));
  for (const std::string& name : graph.output_names) {
    layers_.outputs.push_back(find(name, "the graph output"));
  }
  // No inputs is fine: a model whose outputs are constants (pnnx folds torch.zeros) still runs.
  if (layers_.outputs.empty()) throw Error("the graph has no outputs");
  for (const Node& node : graph.nodes) {
    for (const std::string& name : node.input_names) find(name, node.DescribeWithLine());
    for (const std::string& name : node.output_names) find(name, node.DescribeWithLine());
  }
  // LESSON 05 END
}

void RuntimeGraph::DescribeInputsAndOutputs(const Graph& graph) {
  const auto describe = [&](const std::string& name) {
    TensorInfo info;
    info.name = name;
    if (const Operand* operand = graph.FindOperand(name)) {
      info.shape = operand->shape;
      const auto named = graph.dim_names.find(name);
      if (named != graph.dim_names.end()) info.dim_names = named->second;
      info.dim_names.resize(info.shape.size());  // "" where the file names no extent
      info.declared_type = DataTypeNumpyName(operand->type);
    }
    return info;
  };
  for (const std::string& name : graph.input_names) input_infos_.push_back(describe(name));
  for (const std::string& name : graph.output_names) output_infos_.push_back(describe(name));
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
      OperandInfo& operand = layers_.operands[static_cast<size_t>(index)];
      const bool is_input =
          std::find(layers_.inputs.begin(), layers_.inputs.end(), index) != layers_.inputs.end();
      if (operand.producer >= 0 || is_input) {
        throw Error(Concat("operand '", name, "' is produced by both ",
                           is_input
                               ? std::string("the graph input")
                               : layers_.steps[static_cast<size_t>(operand.producer)].description,
                           " and ", step.description));
      }
      operand.producer = static_cast<int>(layers_.steps.size());
      step.outputs.push_back(index);
    }
    for (const auto& [key, attribute] : node.attributes) {
      weight_bytes_ += attribute.data.size();
      parameter_count_ += attribute.ElementCount();
    }
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
    layers_.steps.push_back(std::move(step));
  }
  if (failure_count == 1) throw Error(first_failure);
  if (failure_count > 1) throw Error(Concat("cannot build some layers:", failures));
  for (size_t index = 0; index < layers_.operands.size(); ++index) {
    const bool is_input = std::find(layers_.inputs.begin(), layers_.inputs.end(),
                                    static_cast<int>(index)) != layers_.inputs.end();
    if (layers_.operands[index].producer < 0 && !is_input) {
      throw Error(Concat("operand '", layers_.operands[index].name, "' has no producer"));
    }
  }
}

void RuntimeGraph::RunPasses() {
  const size_t named = layers_.operands.size();
  RunGraphPasses(&layers_);
  // A pass may add operands (a new layout of one): they are found by name like the file's own.
  for (size_t index = named; index < layers_.operands.size(); ++index) {
    const std::string& name = layers_.operands[index].name;
    if (!operand_index_.emplace(name, static_cast<int>(index)).second) {
      throw Error(Concat("operand '", name, "' is defined twice"));
    }
  }
}

void RuntimeGraph::SortTopologically() {
  // LESSON 05 BEGIN: sort the steps with OrderTopologically; report a cycle
  // Each step waits for the producers of its inputs, once per use; graph inputs are there already.
  std::vector<Step>& steps = layers_.steps;
  std::vector<std::vector<size_t>> waits_for(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    for (int input : steps[i].inputs) {
      const int producer = layers_.operands[static_cast<size_t>(input)].producer;
      if (producer >= 0) waits_for[i].push_back(static_cast<size_t>(producer));
    }
  }
  const TopologicalOrder sorted = OrderTopologically(waits_for);
  if (!sorted.stuck.empty()) {
    std::string stuck;
    for (size_t i : sorted.stuck) stuck += Concat("\n  ", steps[i].description);
    throw Error(Concat("the graph has a cycle; these operators can never run:", stuck));
  }
  layers_.KeepSteps(sorted.order);  // and each operand's producer is its step's new position
  // LESSON 05 END
}

}  // namespace lumen
