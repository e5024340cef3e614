// Channels-last blocks, run channels-first (ConvNeXt).
//
// Matches a chain permute(0,2,3,1) -> per-pixel layers -> permute(0,3,1,2), as ConvNeXt's blocks
// switch to channels-last around LayerNorm(C) -> Linear -> GELU -> Linear. A permute is any layer
// whose Layer::DimensionOrder(4) is that order (Tensor.permute, torch.permute, ONNX Transpose). A
// per-pixel layer is an elementwise activation (Layer::ElementwiseActivation, in any spelling),
// which does not care about the layout and stays, or a layer with a Layer::ChannelsFirstForm,
// which takes its place: nn.Linear becomes a 1x1 nn.Conv2d, nn.LayerNorm over the last dimension
// lumen.ChannelLayerNorm over dimension 1. The two permutes (two copies of the map) are dropped,
// and the convolutions read the map in place, where nn.Linear had to gather the channels-last
// slices into one matrix first. The operands inside the chain hold another layout than the file's
// operands of those names: they get new ones, `<name>.channels_first`, annotated (N, C, H, W), and
// the file's names say that they were fused away.
//
// Leaves alone: a chain with an operand that anything else could see (read by a second step, read
// twice, a graph output), since it would find the other layout; a chain that does not end in
// permute(0,3,1,2), or holds a layer that mixes pixels or has no channels-first form (softmax,
// LayerNorm over two dimensions, F.layer_norm with weight operands); steps of several inputs or
// outputs.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "passes/passes.hpp"

namespace lumen {
namespace {

const std::vector<size_t> kToChannelsLast = {0, 2, 3, 1};
const std::vector<size_t> kToChannelsFirst = {0, 3, 1, 2};

bool HasOneInputAndOutput(const LayerGraph::Step& step) {
  return step.inputs.size() == 1 && step.outputs.size() == 1;
}

// Whether `step` only permutes a rank-4 input into `order`.
bool IsPermute(const LayerGraph::Step& step, const std::vector<size_t>& order) {
  return HasOneInputAndOutput(step) && step.layer->DimensionOrder(order.size()) == order;
}

// One step of a chain, and the layer that takes its place (null for an activation, which stays).
struct Link {
  size_t step;
  std::unique_ptr<Layer> channels_first;
};

// Whether `step` computes the same for every pixel; if so, `*channels_first` is the layer that
// takes its place, or null when it stays.
bool PerPixel(const LayerGraph::Step& step, std::unique_ptr<Layer>* channels_first) {
  if (!HasOneInputAndOutput(step)) return false;
  if (step.layer->ElementwiseActivation() != nullptr) return true;
  *channels_first = step.layer->ChannelsFirstForm();
  return *channels_first != nullptr;
}

}  // namespace

int RewriteChannelsLastBlocks(LayerGraph* graph) {
  std::vector<LayerGraph::Step>& steps = graph->steps;
  const std::vector<int> sole_readers = graph->SoleReaders();
  int rewritten = 0;
  for (size_t first = 0; first < steps.size(); ++first) {
    if (!IsPermute(steps[first], kToChannelsLast)) continue;
    // Follow the sole readers from the opening permute to the closing one.
    std::vector<Link> chain;
    int next = graph->NextStep(sole_readers, first);
    while (next >= 0) {
      std::unique_ptr<Layer> channels_first;
      if (!PerPixel(steps[static_cast<size_t>(next)], &channels_first)) break;
      chain.push_back({static_cast<size_t>(next), std::move(channels_first)});
      next = graph->NextStep(sole_readers, static_cast<size_t>(next));
    }
    if (chain.empty() || next < 0 ||
        !IsPermute(steps[static_cast<size_t>(next)], kToChannelsFirst)) {
      continue;
    }
    const size_t last = static_cast<size_t>(next);
    for (Link& link : chain) {
      if (link.channels_first) steps[link.step].ReplaceLayer(std::move(link.channels_first));
    }
    // The chain reads what the opening permute read and writes what the closing one wrote.
    LayerGraph::Step& head = steps[chain.front().step];
    LayerGraph::Step& tail = steps[chain.back().step];
    graph->operands[static_cast<size_t>(head.inputs[0])].fused_into = head.description;
    graph->operands[static_cast<size_t>(tail.outputs[0])].fused_into = tail.description;
    head.inputs[0] = steps[first].inputs[0];
    tail.outputs[0] = steps[last].outputs[0];
    // In between, a channels-first operand in place of each channels-last one.
    for (size_t position = 0; position + 1 < chain.size(); ++position) {
      LayerGraph::Step& writer = steps[chain[position].step];
      const LayerGraph::OperandInfo old = graph->operands[static_cast<size_t>(writer.outputs[0])];
      std::vector<int> shape = old.annotated_shape;
      if (shape.size() == 4) shape = {shape[0], shape[3], shape[1], shape[2]};  // NHWC -> NCHW
      const int renamed = graph->AddOperand(old.name + ".channels_first", shape);
      graph->operands[static_cast<size_t>(writer.outputs[0])].fused_into = writer.description;
      writer.outputs[0] = renamed;
      steps[chain[position + 1].step].inputs[0] = renamed;
    }
    steps[first].removed = true;
    steps[last].removed = true;
    ++rewritten;
  }
  graph->DropRemovedSteps();
  return rewritten;
}

}  // namespace lumen
