// Activation fusion: a layer applies the activation that follows it.
//
// Matches a step with one output whose only reader is an elementwise activation
// (Layer::ElementwiseActivation: ReLU, SiLU, GELU, ... in any spelling) of one input and one
// output, and offers that activation to the step's layer (Layer::FuseActivation). A layer that
// accepts (nn.Conv2d, nn.Linear) applies it while its output is still in cache and writes straight
// into the activation's output operand; the activation's step disappears, saving a full read and
// write of the tensor. The pass only asks; each layer decides, so no layer is named here.
//
// Leaves alone: an output that a second step reads, or that is a graph output (the value before
// the activation must still exist); a layer that declines (most do, and one that has fused an
// activation already declines a second); a step of several outputs.
#include <vector>

#include "passes/passes.hpp"

namespace lumen {

int FuseActivations(LayerGraph* graph) {
  const std::vector<int> sole_readers = graph->SoleReaders();
  int fused = 0;
  for (size_t index = 0; index < graph->steps.size(); ++index) {
    LayerGraph::Step& step = graph->steps[index];
    const int reader_index = graph->NextStep(sole_readers, index);
    if (step.removed || reader_index < 0) continue;
    const LayerGraph::Step& reader = graph->steps[static_cast<size_t>(reader_index)];
    if (reader.inputs.size() != 1 || reader.outputs.size() != 1) continue;
    const Activation* activation = reader.layer->ElementwiseActivation();
    if (activation == nullptr || !step.layer->FuseActivation(*activation)) continue;
    graph->AbsorbSoleReader(index, static_cast<size_t>(reader_index));
    ++fused;
  }
  graph->DropRemovedSteps();
  return fused;
}

}  // namespace lumen
