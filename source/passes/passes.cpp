#include "passes/passes.hpp"

namespace lumen {

void RunGraphPasses(LayerGraph* graph) {
  // First, so that the SiLU it makes of x * sigmoid(x) can fuse into the convolution before it.
  FuseGatedActivations(graph);
  // Before fusion, so that a GELU fuses into the 1x1 convolution this makes of an nn.Linear.
  RewriteChannelsLastBlocks(graph);
  FuseActivations(graph);
}

}  // namespace lumen
