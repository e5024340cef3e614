// LayerGraph: a model's operators as layers, linked to their operands by index. The runtime builds
// one from a reader's Graph (runtime/runtime_graph.hpp), the graph passes rewrite it
// (passes/passes.hpp), the runtime sorts it, and sessions run its steps in that order. It lives
// here, below the runtime, so that the passes can see it.
#ifndef LUMEN_PASSES_LAYER_GRAPH_HPP_
#define LUMEN_PASSES_LAYER_GRAPH_HPP_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "layer/layer.hpp"

namespace lumen {

// The layers of a model and the operands between them.
struct LayerGraph {
  // One operand: its name, the shape the model file annotates (-1 unknown; empty if none) and
  // the step that produces it (-1 for a graph input, or an operand a pass removed).
  struct OperandInfo {
    std::string name;
    std::vector<int> annotated_shape;
    int producer = -1;
    std::string fused_into;  // when a pass removed this operand: the step that absorbed it
  };

  // One layer to run, with the operands it reads and writes (indices into operands).
  struct Step {
    std::string type;         // op type ("nn.Conv2d")
    std::string name;         // node name
    std::string description;  // "nn.Conv2d 'conv1' (line 7)"
    std::unique_ptr<Layer> layer;
    std::vector<int> inputs;
    std::vector<int> outputs;
    std::vector<std::string> fused;  // nodes merged into this step ("nn.ReLU 'relu'")
    // Marked by a pass that made the step redundant; DropRemovedSteps takes it out. Until then
    // every step keeps its index, so a pass can go on reading the graph by index.
    bool removed = false;

    // Puts `new_layer` in place of the step's layer (computing the same in another way) and takes
    // the step's type from it; the name and line stay.
    void ReplaceLayer(std::unique_ptr<Layer> new_layer);
  };

  std::vector<OperandInfo> operands;  // every operand, graph inputs included
  std::vector<Step> steps;
  std::vector<int> inputs;   // operand indices of the graph's inputs, in the caller's order
  std::vector<int> outputs;  // and of its outputs

  // For each operand, the step that is its only reader, reading it once, when the operand is not
  // also a graph output: what that step does with it nobody else sees. -1 for any other operand.
  std::vector<int> SoleReaders() const;
  // The step that alone reads step `step`'s only output, given SoleReaders()'s answer: where a
  // fusion may go on from `step`. -1 when the step has more than one output, when its output has
  // other readers or is a graph output, or when that reader is already removed.
  int NextStep(const std::vector<int>& sole_readers, size_t step) const;
  // Appends an operand no step uses yet (a pass's new layout of another); returns its index.
  int AddOperand(const std::string& name, const std::vector<int>& annotated_shape);
  // Keeps the steps listed in `order`, in that order, dropping the others, and points every
  // operand's producer at its step's new position (-1 when no kept step writes it).
  void KeepSteps(const std::vector<size_t>& order);
  // Drops the steps marked removed, keeping the order of the others (see KeepSteps).
  void DropRemovedSteps();
  // Step `gone` is now computed by step `into` (a pass fused it there): `into` lists it among its
  // fused nodes, gone's outputs name `into` as what absorbed them, and gone is marked removed.
  void AbsorbStep(size_t gone, size_t into);
  // Step `step`, of one output, now also computes what `reader`, that output's sole reader of one
  // output, computed (a fused activation or bias): step writes reader's output, lists reader
  // among its fused nodes, the operand between them names step as what absorbed it, and reader is
  // marked removed.
  void AbsorbSoleReader(size_t step, size_t reader);
  // What the passes that fold a step's sole reader into the step (an activation, a bias addition)
  // ask of each pair: true when step `step`'s layer took over the work of `reader`, the step that
  // alone reads its only output (`sole_readers` is SoleReaders()' table, taken before the walk).
  using SoleReaderFold =
      std::function<bool(size_t step, size_t reader, const std::vector<int>& sole_readers)>;
  // Offers every live step with a sole reader to `fold`, in order, and absorbs each reader it
  // takes (AbsorbSoleReader); then drops the removed steps. Returns how many readers it absorbed.
  int FoldSoleReaders(const SoleReaderFold& fold);
  // Step `constant`, a stored value nothing else reads, is held by step `into`'s layer now (a
  // fused weight or bias): its outputs name `into` as what absorbed them, and it is marked
  // removed (unlike AbsorbStep, `into` does not list it among its fused nodes).
  void AbsorbConstant(size_t constant, size_t into);
};

}  // namespace lumen

#endif  // LUMEN_PASSES_LAYER_GRAPH_HPP_
