// A graph rewrite for ConvNeXt-style blocks, which switch to channels-last around their per-pixel
// layers: permute(0,2,3,1) -> nn.LayerNorm(C) -> nn.Linear -> GELU -> nn.Linear ->
// permute(0,3,1,2). Each of those layers treats every pixel alike, so the same chain can run on the
// channels-first tensor directly: nn.Linear on channels-last is a 1x1 nn.Conv2d on channels-first,
// LayerNorm over the last dimension is lumen.ChannelLayerNorm over dimension 1, and elementwise
// activations do not care. The rewrite drops both permutes (two copies of the map) and lets the
// convolution read the map in place, where nn.Linear had to gather the channels-last slices into
// one matrix first.
//
// A chain qualifies when it starts with Tensor.permute dims=(0,2,3,1), ends with Tensor.permute
// dims=(0,3,1,2), and every operand between is read by exactly one node and is not a graph output
// (so nothing else sees the changed layout). The operands inside the chain are renamed
// `<name>.channels_first`: they hold a different layout than the file's operand of that name.
#ifndef LUMEN_GRAPH_CHANNELS_FIRST_BLOCKS_HPP_
#define LUMEN_GRAPH_CHANNELS_FIRST_BLOCKS_HPP_

#include "graph/graph.hpp"

namespace lumen {

// Rewrites every qualifying chain of `graph` in place; returns how many it rewrote.
int RewriteChannelsLastBlocks(Graph* graph);

}  // namespace lumen

#endif  // LUMEN_GRAPH_CHANNELS_FIRST_BLOCKS_HPP_
