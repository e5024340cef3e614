// Attention written out as products and a softmax, as one layer (ONNX transformers).
//
// Matches the chain torch.onnx.export writes for the middle of an attention (nn.MultiheadAttention
// through F.multi_head_attention_forward, or attention written by hand):
//
//   [Q = Q' * c or Q' / c] -> s = Q @ t -> [s * c, or s / c, c a number] -> p = softmax(s, dim=-1)
//   -> y = p @ V
//
// and puts one lumen.ScaledDotProductAttention (layer/attention/scaled_dot_product_attention.cpp)
// reading Q, K (when t is K with its last two dimensions swapped, else t itself, K^T, which the
// layer transposes as it reads it) and V in place of the last product: the kernel
// nn.MultiheadAttention runs on (packed products, a vectorised softmax, no scores tensor, no
// transposed copy of K). The layers say what they are through Layer's hooks: DimensionOrder (the
// transpose), MultipliesMatrices (the products), ElementwiseExpressionTree (the scale),
// SoftmaxAlong (the softmax).
//
// Leaves alone: a chain whose intermediate operands (t, s, the scaled s, p) anything else reads or
// the caller sees (a scale of Q alone is absorbed only when the product is Q's one reader); a
// softmax along another dimension than the last (or named by a positive dim, whose rank the pass
// does not know); a scale that is an operand rather than a number; a mask added to the scores
// (not fused yet: the chain then stops at the addition).
#include <memory>
#include <vector>

#include "layer/layer_registry.hpp"
#include "passes/expression_matching.hpp"
#include "passes/passes.hpp"

namespace lumen {
namespace {

using Step = LayerGraph::Step;

// The largest rank at which the pass asks a layer whether it swaps the last two dimensions.
constexpr size_t kMaxTransposeRank = 6;

// Whether `step` only swaps the last two dimensions of its input, at some rank.
bool SwapsTheLastTwoDimensions(const Step& step) {
  if (step.inputs.size() != 1 || step.outputs.size() != 1) return false;
  for (size_t rank = 2; rank <= kMaxTransposeRank; ++rank) {
    std::vector<size_t> swapped(rank);
    for (size_t axis = 0; axis < rank; ++axis) swapped[axis] = axis;
    std::swap(swapped[rank - 2], swapped[rank - 1]);
    if (step.layer->DimensionOrder(rank) == swapped) return true;
  }
  return false;
}

// Whether `step` multiplies one operand by a number written in its expression, or divides it by
// one; if so, the operand goes to `*operand` and the factor of the scores to `*scale`.
bool ScalesByANumber(const Step& step, int* operand, float* scale) {
  float number = 0.0f;
  if (IsCallOfOperandAndNumber(step, ExpressionFunction::kMul, true, operand, &number)) {
    *scale = number;
    return true;
  }
  if (IsCallOfOperandAndNumber(step, ExpressionFunction::kDiv, false, operand, &number) &&
      number != 0.0f) {
    *scale = 1.0f / number;
    return true;
  }
  return false;
}

// One matched chain: its removed steps, Q, K, V and the scale.
struct Chain {
  std::vector<int> removed;
  int q = -1, k = -1, v = -1;
  float scale = 1.0f;
  bool transposed_keys = false;  // k is K^T
};

// Follows the chain back from the product of the probabilities and V at `last`.
bool MatchChain(const LayerGraph& graph, const std::vector<int>& sole_readers, int last,
                Chain* chain) {
  const auto producer = [&](int operand) {
    return graph.operands[static_cast<size_t>(operand)].producer;
  };
  // `operand` is read only by `reader` (once), is not a graph output, and a step writes it.
  const auto feeds_only = [&](int operand, int reader) {
    return sole_readers[static_cast<size_t>(operand)] == reader && producer(operand) >= 0;
  };
  const Step& values = graph.steps[static_cast<size_t>(last)];
  if (!values.layer->MultipliesMatrices() || values.inputs.size() != 2) return false;
  const int softmax = producer(values.inputs[0]);
  if (!feeds_only(values.inputs[0], last)) return false;
  const Step& normalise = graph.steps[static_cast<size_t>(softmax)];
  int dim = 0;
  if (normalise.inputs.size() != 1 || !normalise.layer->SoftmaxAlong(&dim) || dim != -1) {
    return false;
  }
  int scores = normalise.inputs[0];
  if (!feeds_only(scores, softmax)) return false;
  const int scale_step = producer(scores);
  int unscaled = -1;
  if (ScalesByANumber(graph.steps[static_cast<size_t>(scale_step)], &unscaled, &chain->scale)) {
    if (!feeds_only(unscaled, scale_step)) return false;
    chain->removed.push_back(scale_step);
    scores = unscaled;
  }
  const int product = producer(scores);
  const Step& scores_step = graph.steps[static_cast<size_t>(product)];
  if (!scores_step.layer->MultipliesMatrices() || scores_step.inputs.size() != 2) return false;
  // K^T: from a transpose of K the layer takes in its place, or as it is (the layer transposes it).
  const int transposed = scores_step.inputs[1];
  if (feeds_only(transposed, product) &&
      SwapsTheLastTwoDimensions(graph.steps[static_cast<size_t>(producer(transposed))])) {
    chain->k = graph.steps[static_cast<size_t>(producer(transposed))].inputs[0];
    chain->removed.push_back(producer(transposed));
  } else {
    chain->k = transposed;
    chain->transposed_keys = true;
  }
  chain->q = scores_step.inputs[0];
  // Q scaled by a number on its own (the exporter's q / sqrt(d)) is scaled by the kernel instead.
  int unscaled_q = -1;
  float q_scale = 1.0f;
  if (feeds_only(chain->q, product) &&
      ScalesByANumber(graph.steps[static_cast<size_t>(producer(chain->q))], &unscaled_q,
                      &q_scale)) {
    chain->removed.push_back(producer(chain->q));
    chain->q = unscaled_q;
    chain->scale *= q_scale;
  }
  chain->v = values.inputs[1];
  chain->removed.insert(chain->removed.end(), {product, softmax});
  return true;
}

}  // namespace

int FuseAttention(LayerGraph* graph) {
  const std::vector<int> sole_readers = graph->SoleReaders();
  std::vector<bool> touched(graph->steps.size(), false);  // in a chain already rewritten
  int rewritten = 0;
  for (size_t last = 0; last < graph->steps.size(); ++last) {
    Chain chain;
    if (touched[last] || !MatchChain(*graph, sole_readers, static_cast<int>(last), &chain)) {
      continue;
    }
    bool overlaps = false;
    for (int index : chain.removed) overlaps = overlaps || touched[static_cast<size_t>(index)];
    if (overlaps) continue;
    touched[last] = true;
    for (int index : chain.removed) touched[static_cast<size_t>(index)] = true;
    Step& step = graph->steps[last];
    Node node;
    node.type = "lumen.ScaledDotProductAttention";
    node.name = step.name;
    for (int operand : {chain.q, chain.k, chain.v}) {
      node.input_names.push_back(graph->operands[static_cast<size_t>(operand)].name);
    }
    node.output_names = {graph->operands[static_cast<size_t>(step.outputs[0])].name};
    node.params["scale"] = Parameter::FromFloat(chain.scale);
    node.params["transposed_keys"] = Parameter::FromBool(chain.transposed_keys);
    step.ReplaceLayer(LayerRegistry::Create(LayerConfig(node)));
    step.inputs = {chain.q, chain.k, chain.v};
    for (int index : chain.removed) {
      graph->AbsorbStep(static_cast<size_t>(index), last);
    }
    ++rewritten;
  }
  graph->DropRemovedSteps();
  return rewritten;
}

}  // namespace lumen
