// GELU written out with erf, as one layer (ONNX below opset 20).
//
// Matches the chain torch.onnx.export writes for nn.GELU() (the exact, erf form), which the ONNX
// reader maps onto pnnx.Expression layers:
//
//   u = x / sqrt(2) (or x * 1/sqrt(2)) -> e = erf(u) -> a = e + 1 -> m = x * a -> y = m * 0.5
//
// and puts one nn.GELU in place of the last step, reading x: one pass instead of five, which the
// activation fusion then moves into the layer before it (an nn.Linear), as in the PNNX graph.
// The expressions are read through Layer::ElementwiseExpressionTree, never as text.
//
// Leaves alone: a chain whose intermediate operands anything else reads or the caller sees (x
// itself is read twice, by the first and the fourth step); other numbers than sqrt(2) (to float
// precision), 1 and 0.5; the tanh approximation (its own chain, not matched yet).
#include <cmath>
#include <vector>

#include "layer/layer_registry.hpp"
#include "passes/expression_matching.hpp"
#include "passes/passes.hpp"

namespace lumen {
namespace {

using Step = LayerGraph::Step;

// Whether `number` is `expected` to float precision (the exporter writes sqrt(2) rounded).
bool Near(float number, double expected) {
  return std::fabs(number - expected) <= 1e-6 * std::fabs(expected);
}

// Whether `step` divides x by sqrt(2) or multiplies it by 1/sqrt(2); fills `*x`.
bool DividesBySquareRootOfTwo(const Step& step, int* x) {
  float number = 0.0f;
  return (IsCallOfOperandAndNumber(step, ExpressionFunction::kDiv, false, x, &number) &&
          Near(number, std::sqrt(2.0))) ||
         (IsCallOfOperandAndNumber(step, ExpressionFunction::kMul, true, x, &number) &&
          Near(number, 1.0 / std::sqrt(2.0)));
}

// Whether `step` computes function(a, number) or function(number, a) with that number.
bool AppliesNumber(const Step& step, ExpressionFunction function, int a, double expected) {
  int operand = -1;
  float number = 0.0f;
  return IsCallOfOperandAndNumber(step, function, true, &operand, &number) && operand == a &&
         Near(number, expected);
}

}  // namespace

int FuseWrittenOutGelus(LayerGraph* graph) {
  std::vector<Step>& steps = graph->steps;
  const std::vector<int> sole_readers = graph->SoleReaders();
  const auto next = [&](int step) {
    return graph->NextStep(sole_readers, static_cast<size_t>(step));
  };
  const auto output = [&](int step) { return steps[static_cast<size_t>(step)].outputs[0]; };
  int rewritten = 0;
  for (size_t first = 0; first < steps.size(); ++first) {
    int x = -1;
    if (steps[first].removed || !DividesBySquareRootOfTwo(steps[first], &x)) continue;
    const int divide = static_cast<int>(first);
    const int erf = next(divide);
    if (erf < 0 || !IsCallOfOperand(steps[static_cast<size_t>(erf)], ExpressionFunction::kErf,
                                    output(divide))) {
      continue;
    }
    const int add = next(erf);
    if (add < 0 || !AppliesNumber(steps[static_cast<size_t>(add)], ExpressionFunction::kAdd,
                                  output(erf), 1.0)) {
      continue;
    }
    const int multiply = next(add);
    if (multiply < 0 || !IsCallOfOperands(steps[static_cast<size_t>(multiply)],
                                          ExpressionFunction::kMul, x, output(add), true)) {
      continue;
    }
    const int half = next(multiply);
    if (half < 0 || !AppliesNumber(steps[static_cast<size_t>(half)], ExpressionFunction::kMul,
                                   output(multiply), 0.5)) {
      continue;
    }
    Step& last = steps[static_cast<size_t>(half)];
    Node node;
    node.type = "nn.GELU";
    node.name = last.name;
    node.input_names = {graph->operands[static_cast<size_t>(x)].name};
    node.output_names = {graph->operands[static_cast<size_t>(last.outputs[0])].name};
    last.ReplaceLayer(LayerRegistry::Create(LayerConfig(node)));
    last.inputs = {x};
    for (int index : {divide, erf, add, multiply}) {
      graph->AbsorbStep(static_cast<size_t>(index), static_cast<size_t>(half));
    }
    ++rewritten;
  }
  graph->DropRemovedSteps();
  return rewritten;
}

}  // namespace lumen
