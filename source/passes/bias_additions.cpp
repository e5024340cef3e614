// A bias added after a layer, into that layer (ONNX's MatMul + Add).
//
// Matches a layer whose one output is read only by an addition of a stored constant vector,
// y = x + b or b + x with b of rank 1 (an nn.Linear exported as MatMul then Add, which the ONNX
// reader maps onto nn.Linear without bias and a pnnx.Expression), and asks the layer to add b
// itself (Layer::FuseBias): the addition's step goes, and an activation after it can then fuse
// into the layer too (activation_fusion.cpp), as in the PNNX graph of the same model.
//
// Leaves alone: an output something else reads or the caller sees; an addend that is not a stored
// constant (ConstantValue) or not of rank 1 (a (1, C) bias would change a rank-1 output's shape);
// a layer that declines (nn.Linear declines a second bias, a bias after its activation, or one of
// another length than its out_features).
#include <vector>

#include "layer/arithmetic/expression_parser.hpp"
#include "passes/passes.hpp"

namespace lumen {
namespace {

using Step = LayerGraph::Step;

// If `step` computes a + c or c + a of the operand a and an operand c that a step computes as a
// stored constant of rank 1: c's producer; -1 otherwise.
int AddedVector(const LayerGraph& graph, const Step& step, int a) {
  if (step.outputs.size() != 1) return -1;
  const ExpressionNode* root = step.layer->ElementwiseExpressionTree();
  if (root == nullptr || root->kind != ExpressionNode::Kind::kCall ||
      root->function != ExpressionFunction::kAdd || root->arguments.size() != 2) {
    return -1;
  }
  for (size_t side = 0; side < 2; ++side) {
    const ExpressionNode& mine = root->arguments[side];
    const ExpressionNode& other = root->arguments[1 - side];
    if (mine.kind != ExpressionNode::Kind::kInput || other.kind != ExpressionNode::Kind::kInput) {
      return -1;
    }
    const size_t my_input = static_cast<size_t>(mine.input_index);
    const size_t other_input = static_cast<size_t>(other.input_index);
    if (my_input >= step.inputs.size() || other_input >= step.inputs.size() ||
        step.inputs[my_input] != a || step.inputs[other_input] == a) {
      continue;
    }
    const int producer = graph.operands[static_cast<size_t>(step.inputs[other_input])].producer;
    if (producer < 0) return -1;
    const Tensor* value = graph.steps[static_cast<size_t>(producer)].layer->ConstantValue();
    return value != nullptr && value->shape().size() == 1 ? producer : -1;
  }
  return -1;
}

}  // namespace

int FuseBiasAdditions(LayerGraph* graph) {
  return graph->FoldSoleReaders(
      [graph](size_t step, size_t reader, const std::vector<int>& sole_readers) {
        std::vector<Step>& steps = graph->steps;
        const int constant = AddedVector(*graph, steps[reader], steps[step].outputs[0]);
        if (constant < 0) return false;
        Step& bias_step = steps[static_cast<size_t>(constant)];
        if (!steps[step].layer->FuseBias(bias_step.layer->ConstantValue()->ToRowMajor())) {
          return false;
        }
        // The constant is the layer's now; its step goes if nothing else reads it.
        if (sole_readers[static_cast<size_t>(bias_step.outputs[0])] == static_cast<int>(reader)) {
          graph->AbsorbConstant(static_cast<size_t>(constant), step);
        }
        return true;
      });
}

}  // namespace lumen
