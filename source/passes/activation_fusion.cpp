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
  return graph->FoldSoleReaders([graph](size_t step, size_t reader_index, const std::vector<int>&) {
    const LayerGraph::Step& reader = graph->steps[reader_index];
    if (reader.inputs.size() != 1 || reader.outputs.size() != 1) return false;
    const Activation* activation = reader.layer->ElementwiseActivation();
    return activation != nullptr && graph->steps[step].layer->FuseActivation(*activation);
  });
}

}  // namespace lumen
