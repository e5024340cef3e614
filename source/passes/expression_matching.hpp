// What the passes that recognise written-out arithmetic (LayerNorm, GELU, attention's scale, a
// bias) ask of a pnnx.Expression step: its parsed tree (Layer::ElementwiseExpressionTree), read as
// "a call of this function of these operands and numbers". Never the expression's text.
#ifndef LUMEN_PASSES_EXPRESSION_MATCHING_HPP_
#define LUMEN_PASSES_EXPRESSION_MATCHING_HPP_

#include "layer/arithmetic/expression_parser.hpp"
#include "passes/layer_graph.hpp"

namespace lumen {

// The root of `step`'s expression if it is a call of `function` and the step has one output;
// null otherwise.
inline const ExpressionNode* ExpressionCall(const LayerGraph::Step& step,
                                            ExpressionFunction function) {
  if (step.outputs.size() != 1) return nullptr;
  const ExpressionNode* root = step.layer->ElementwiseExpressionTree();
  if (root == nullptr || root->kind != ExpressionNode::Kind::kCall || root->function != function) {
    return nullptr;
  }
  return root;
}

// The graph operand an expression argument names (@k is the step's input k); -1 for a number or
// a call.
inline int ArgumentOperand(const LayerGraph::Step& step, const ExpressionNode& argument) {
  if (argument.kind != ExpressionNode::Kind::kInput) return -1;
  const size_t input = static_cast<size_t>(argument.input_index);
  return input < step.inputs.size() ? step.inputs[input] : -1;
}

// Whether `step` computes function(a) of the operand a.
inline bool IsCallOfOperand(const LayerGraph::Step& step, ExpressionFunction function, int a) {
  const ExpressionNode* call = ExpressionCall(step, function);
  return call != nullptr && call->arguments.size() == 1 &&
         ArgumentOperand(step, call->arguments[0]) == a;
}

// Whether `step` computes function(a, number), or function(number, a) when `either_order`, of an
// operand a and a number written in the expression; if so, fills `*operand` and `*number`.
inline bool IsCallOfOperandAndNumber(const LayerGraph::Step& step, ExpressionFunction function,
                                     bool either_order, int* operand, float* number) {
  const ExpressionNode* call = ExpressionCall(step, function);
  if (call == nullptr || call->arguments.size() != 2) return false;
  for (size_t side = 0; side < (either_order ? 2u : 1u); ++side) {
    const int value = ArgumentOperand(step, call->arguments[side]);
    const ExpressionNode& other = call->arguments[1 - side];
    if (value >= 0 && other.kind == ExpressionNode::Kind::kConstant) {
      *operand = value;
      *number = other.constant;
      return true;
    }
  }
  return false;
}

// Whether `step` computes function(a, b), or function(b, a) when `either_order`, of the operands
// a and b.
inline bool IsCallOfOperands(const LayerGraph::Step& step, ExpressionFunction function, int a,
                             int b, bool either_order) {
  const ExpressionNode* call = ExpressionCall(step, function);
  if (call == nullptr || call->arguments.size() != 2) return false;
  const int first = ArgumentOperand(step, call->arguments[0]);
  const int second = ArgumentOperand(step, call->arguments[1]);
  if (first < 0 || second < 0) return false;
  return (first == a && second == b) || (either_order && first == b && second == a);
}

}  // namespace lumen

#endif  // LUMEN_PASSES_EXPRESSION_MATCHING_HPP_
