// The graph passes: rewrites of a model's layers that make it faster without changing what it
// computes. The runtime runs them, in the order below, once the layers are built and before it
// sorts them (runtime/runtime_graph.hpp), for models of every format: a pass sees a LayerGraph,
// never a file. ModelOptions::fuse (`lumen_run --no-fuse`) turns them all off, so that every
// operand the file names is computed.
//
// One pass per file, each opening with what it matches and what it leaves alone. A pass asks the
// layers what they compute through Layer's hooks (layer/layer.hpp: ElementwiseActivation,
// MultipliesItsTwoInputs, DimensionOrder, ChannelsFirstForm, FuseActivation, MeanOverDimensions,
// ElementwiseExpressionTree, ConstantValue, MultipliesMatrices, SoftmaxAlong, FuseBias, IsView,
// ViewThrough) and never by op type, so a new layer takes part by answering them, and no list here
// goes out of date.
//
//   1 FuseWrittenOutLayerNorms (written_out_layer_norms.cpp)  mean, x - mean, square, mean, + eps,
//                                                    sqrt, divide, * weight, + bias -> LayerNorm
//   2 FuseWrittenOutGelus (written_out_gelus.cpp)    x * (erf(x / sqrt 2) + 1) * 0.5 -> GELU
//   3 FuseAttention (attention.cpp)                  Q @ K^T -> scale -> softmax -> @ V -> one
//                                                    attention on nn.MultiheadAttention's kernel
//   4 FuseBiasAdditions (bias_additions.cpp)         a layer + a stored vector -> the layer's bias
//   5 FuseGatedActivations (gated_activations.cpp)  x * sigmoid(x) -> SiLU, x * hardsigmoid(x)
//                                                    -> Hardswish
//   6 RewriteChannelsLastBlocks (channels_first_blocks.cpp)  permute -> per-pixel layers ->
//                                                    permute back: the same layers channels-first
//   7 FuseActivations (activation_fusion.cpp)        an activation into the layer before it
//   8 JoinViewChains (view_chains.cpp)               permute/slice/reshape -> ... -> one gather
#ifndef LUMEN_PASSES_PASSES_HPP_
#define LUMEN_PASSES_PASSES_HPP_

#include "passes/layer_graph.hpp"

namespace lumen {

// Runs every pass below on `graph`, in order.
void RunGraphPasses(LayerGraph* graph);

// Each pass rewrites `graph` in place and returns how many places it rewrote.
int FuseWrittenOutLayerNorms(LayerGraph* graph);
int FuseWrittenOutGelus(LayerGraph* graph);
int FuseAttention(LayerGraph* graph);
int FuseBiasAdditions(LayerGraph* graph);
int FuseGatedActivations(LayerGraph* graph);
int RewriteChannelsLastBlocks(LayerGraph* graph);
int FuseActivations(LayerGraph* graph);
int JoinViewChains(LayerGraph* graph);

}  // namespace lumen

#endif  // LUMEN_PASSES_PASSES_HPP_
