#include "passes/passes.hpp"

namespace lumen {

void RunGraphPasses(LayerGraph* graph) {
  // The written-out forms ONNX exports first, so that the layers they make (LayerNorm, GELU, a
  // Linear with its bias) take part in the rewrites below as the PNNX graph's layers do.
  FuseWrittenOutLayerNorms(graph);
  FuseWrittenOutGelus(graph);
  FuseAttention(graph);
  // Before the activation fusion: nn.Linear takes a bias only while it has no activation.
  FuseBiasAdditions(graph);
  // Before the activation fusion, so that the SiLU it makes of x * sigmoid(x) can fuse into the
  // convolution before it.
  FuseGatedActivations(graph);
  // Before fusion, so that a GELU fuses into the 1x1 convolution this makes of an nn.Linear.
  RewriteChannelsLastBlocks(graph);
  FuseActivations(graph);
  // Last: the passes above match single permutes and reshapes, which a chain would hide.
  JoinViewChains(graph);
}

}  // namespace lumen
