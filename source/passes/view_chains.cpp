// Runs of view layers as one strided copy.
//
// Matches steps whose layers only move their input's elements (Layer::IsView: permutes, slices,
// reshapes, flattens, squeezes), each the only reader of the one before, reading it as its input
// 0:
//
//   x -> view -> view -> ... -> y
//
// and puts one lumen.ViewChain (layer/layout/view_chain.cpp, made by MakeViewChain) in the first
// one's place, computing
// y from x in one gather, so that the intermediate operands are never written. ONNX exports of
// attention split the heads of Q, K and V as Slice -> Reshape -> Transpose, and merge them back
// as Transpose -> Reshape: each run becomes one copy, as nn.MultiheadAttention's own layout is.
//
// Leaves alone: a single view (nothing to save), a view whose output anything else reads or the
// caller sees (it must be written), and views that read the previous one's output as another
// input than the first (a reshape to another operand's shape).
#include <memory>
#include <utility>
#include <vector>

#include "layer/layer_config.hpp"
#include "layer/view_layer.hpp"
#include "passes/passes.hpp"

namespace lumen {
namespace {

using Step = LayerGraph::Step;

// Whether `step` can be a link: a view with one output and a first input.
bool IsLink(const Step& step) {
  return step.layer != nullptr && step.layer->IsView() && step.outputs.size() == 1 &&
         !step.inputs.empty();
}

}  // namespace

int JoinViewChains(LayerGraph* graph) {
  std::vector<Step>& steps = graph->steps;
  const std::vector<int> readers = graph->SoleReaders();
  int chains = 0;
  for (size_t first = 0; first < steps.size(); ++first) {
    if (steps[first].removed || !IsLink(steps[first])) continue;
    std::vector<size_t> chain = {first};
    while (true) {
      const int reader = graph->NextStep(readers, chain.back());
      if (reader < 0) break;
      const Step& next = steps[static_cast<size_t>(reader)];
      if (!IsLink(next) || next.inputs[0] != steps[chain.back()].outputs[0]) break;
      chain.push_back(static_cast<size_t>(reader));
    }
    if (chain.size() < 2) continue;
    // The chain reads x and every link's other inputs; it writes the last link's output.
    Step& head = steps[first];
    std::vector<int> inputs = {head.inputs[0]};
    std::vector<ViewChainLink> links;
    for (size_t index : chain) {
      ViewChainLink link;
      for (size_t i = 1; i < steps[index].inputs.size(); ++i) {
        link.other_inputs.push_back(inputs.size());
        inputs.push_back(steps[index].inputs[i]);
      }
      link.layer = std::move(steps[index].layer);
      links.push_back(std::move(link));
    }
    const std::vector<int> outputs = steps[chain.back()].outputs;
    const std::string first_description = head.description;
    // The intermediate operands are computed inside the chain; its output is its own.
    for (size_t k = 0; k + 1 < chain.size(); ++k) {
      graph->operands[static_cast<size_t>(steps[chain[k]].outputs[0])].fused_into =
          first_description;
    }
    Node chain_node;  // names the chain in profiles and messages after its first link
    chain_node.type = "lumen.ViewChain";
    chain_node.name = head.name;
    head.ReplaceLayer(MakeViewChain(LayerConfig(chain_node), std::move(links)));
    head.fused.push_back(first_description);
    for (size_t k = 1; k < chain.size(); ++k) graph->AbsorbStep(chain[k], first);
    head.inputs = std::move(inputs);
    head.outputs = outputs;
    for (int output : outputs) graph->operands[static_cast<size_t>(output)].fused_into.clear();
    ++chains;
  }
  graph->DropRemovedSteps();
  return chains;
}

}  // namespace lumen
