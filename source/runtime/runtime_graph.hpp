// RuntimeGraph: a model built for running: every node turned into a layer, operands linked to the
// steps that produce and read them, the graph passes run over them, steps sorted into an order that
// runs every producer before its consumers.
//
// It is built once and is read-only afterwards, so any number of sessions (session.hpp) run it at
// the same time; everything that depends on input shapes, or changes during a run, is theirs.
//
//   Graph (from a reader)  -->  RuntimeGraph(graph):
//     1 index operands by name; check every operand has exactly one producer (or is an input)
//     2 create a layer per node through the LayerRegistry (every unsupported op reported at once)
//     3 run the graph passes (passes/passes.hpp): gated activations, channels-first blocks,
//       activation fusion
//     4 sort topologically (Kahn, graph/topological_order.hpp), keeping file order among the ready
#ifndef LUMEN_RUNTIME_RUNTIME_GRAPH_HPP_
#define LUMEN_RUNTIME_RUNTIME_GRAPH_HPP_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "lumen/model.hpp"
#include "passes/layer_graph.hpp"

namespace lumen {

// How a RuntimeGraph is built.
struct RuntimeGraphOptions {
  // Run the graph passes (faster; the operands they remove can then not be read, so tools that
  // compare every operand turn this off).
  bool fuse = true;
};

// A graph of layers in execution order (see the top of this file).
class RuntimeGraph {
 public:
  // One operand, and one layer to run with the operands it reads and writes
  // (passes/layer_graph.hpp).
  using OperandInfo = LayerGraph::OperandInfo;
  using Step = LayerGraph::Step;

  // Builds the graph; throws lumen::Error on a malformed graph, unsupported ops or bad weights.
  // The nodes' weight bytes are released once the layers have taken them.
  explicit RuntimeGraph(Graph graph, const RuntimeGraphOptions& options = {});

  RuntimeGraph(const RuntimeGraph&) = delete;
  RuntimeGraph& operator=(const RuntimeGraph&) = delete;

  // Steps in execution order.
  const std::vector<Step>& steps() const { return layers_.steps; }
  // Every operand, graph inputs included.
  const std::vector<OperandInfo>& operands() const { return layers_.operands; }
  // Operand indices of the graph's inputs and outputs, in the caller's order.
  const std::vector<int>& inputs() const { return layers_.inputs; }
  const std::vector<int>& outputs() const { return layers_.outputs; }
  // What the model file declares of each graph input and output, in the caller's order.
  const std::vector<TensorInfo>& input_infos() const { return input_infos_; }
  const std::vector<TensorInfo>& output_infos() const { return output_infos_; }
  // The index of the operand called `name`, or -1.
  int FindOperand(const std::string& name) const;
  // The file the model was read from.
  const std::string& source() const { return source_; }
  // Bytes of weights the model file held (before layers converted or packed them).
  size_t weight_bytes() const { return weight_bytes_; }
  // Number of weight values the model file held (every stored tensor's elements), for summaries.
  size_t parameter_count() const { return parameter_count_; }

 private:
  void IndexOperands(const Graph& graph);
  void DescribeInputsAndOutputs(const Graph& graph);
  void CreateLayers(Graph& graph);
  void RunPasses();
  void SortTopologically();

  std::string source_;
  LayerGraph layers_;  // the steps, operands, inputs and outputs
  std::map<std::string, int> operand_index_;
  std::vector<TensorInfo> input_infos_;
  std::vector<TensorInfo> output_infos_;
  size_t weight_bytes_ = 0;
  size_t parameter_count_ = 0;
};

}  // namespace lumen

#endif  // LUMEN_RUNTIME_RUNTIME_GRAPH_HPP_
