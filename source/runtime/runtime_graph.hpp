// RuntimeGraph: a model built for running: every node turned into a layer, operands linked to the
// steps that produce and read them, activations fused into the layers before them, steps sorted
// into an order that runs every producer before its consumers.
//
// It is built once and is read-only afterwards, so any number of sessions (session.hpp) run it at
// the same time; everything that depends on input shapes, or changes during a run, is theirs.
//
//   Graph (from a reader)  -->  RuntimeGraph(graph):
//     1 index operands by name; check every operand has exactly one producer (or is an input)
//     2 create a layer per node through the LayerRegistry (every unsupported op reported at once)
//     3 fuse: offer each activation to the layer whose only reader it is
//     4 sort topologically (Kahn), keeping file order among the ready
#ifndef LUMEN_RUNTIME_RUNTIME_GRAPH_HPP_
#define LUMEN_RUNTIME_RUNTIME_GRAPH_HPP_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "layer/layer.hpp"

namespace lumen {

// How a RuntimeGraph is built.
struct RuntimeGraphOptions {
  // Fuse activations into the layers before them (faster; the fused-away operands can then not
  // be read, so tools that compare every operand turn this off).
  bool fuse = true;
};

// A graph of layers in execution order (see the top of this file).
class RuntimeGraph {
 public:
  // One operand: its name, the shape the model file annotates (-1 unknown; empty if none) and
  // the step that produces it (-1 for a graph input).
  struct OperandInfo {
    std::string name;
    std::vector<int> annotated_shape;
    int producer = -1;
    std::string fused_into;  // when a fusion removed this operand: the step that absorbed it
  };

  // One layer to run, with the operands it reads and writes (indices into operands()).
  struct Step {
    std::string type;         // op type ("nn.Conv2d")
    std::string name;         // node name
    std::string description;  // "nn.Conv2d 'conv1' (line 7)"
    std::unique_ptr<Layer> layer;
    std::vector<int> inputs;
    std::vector<int> outputs;
    std::vector<std::string> fused;  // nodes merged into this step ("nn.ReLU 'relu'")
  };

  // Builds the graph; throws lumen::Error on a malformed graph, unsupported ops or bad weights.
  // The nodes' weight bytes are released once the layers have taken them.
  explicit RuntimeGraph(Graph graph, const RuntimeGraphOptions& options = {});

  RuntimeGraph(const RuntimeGraph&) = delete;
  RuntimeGraph& operator=(const RuntimeGraph&) = delete;

  // Steps in execution order.
  const std::vector<Step>& steps() const { return steps_; }
  // Every operand, graph inputs included.
  const std::vector<OperandInfo>& operands() const { return operands_; }
  // Operand indices of the graph's inputs and outputs, in the caller's order.
  const std::vector<int>& inputs() const { return inputs_; }
  const std::vector<int>& outputs() const { return outputs_; }
  // The index of the operand called `name`, or -1.
  int FindOperand(const std::string& name) const;
  // The file the model was read from.
  const std::string& source() const { return source_; }
  // Bytes of weights the model file held (before layers converted or packed them).
  size_t weight_bytes() const { return weight_bytes_; }

 private:
  void IndexOperands(const Graph& graph);
  void CreateLayers(Graph& graph);
  void FuseActivations();
  void SortTopologically();

  std::string source_;
  std::vector<OperandInfo> operands_;
  std::map<std::string, int> operand_index_;
  std::vector<Step> steps_;
  std::vector<int> inputs_;
  std::vector<int> outputs_;
  size_t weight_bytes_ = 0;
};

}  // namespace lumen

#endif  // LUMEN_RUNTIME_RUNTIME_GRAPH_HPP_
