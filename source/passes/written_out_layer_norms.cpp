// LayerNorm written out as arithmetic, as one layer (ONNX below opset 17).
//
// Matches the chain torch.onnx.export writes for nn.LayerNorm below opset 17, which the ONNX
// reader maps onto torch.mean and pnnx.Expression layers:
//
//   m = mean(x, dims, keepdim) -> d = x - m -> s = d^2 (pow(d,2) or d*d) -> v = mean(s, dims,
//   keepdim) -> e = v + eps -> r = sqrt(e) -> n = d / r -> w = n * weight -> y = w + bias
//
// and puts one nn.LayerNorm (normalized_shape = the weight's shape, the stored weight and bias)
// in place of the last step, reading x and writing y: one pass over the data instead of nine, and
// ConvNeXt's channels-last blocks then run channels-first (channels_first_blocks.cpp). The layers
// say what they compute through Layer's hooks: MeanOverDimensions (a mean and its dims),
// ElementwiseExpressionTree (the parsed expression, never its text) and ConstantValue (a weight
// stored with the model); no op type is named here.
//
// Leaves alone: a chain whose intermediate operands anything else reads or the caller sees (d is
// read by exactly the square and the division, every other one by its next step only); means
// over dimensions that are not the trailing ones the weight covers, or without keepdim; an eps
// that is not a number in the expression, a weight or bias that is not a stored constant, or a
// bias of another shape than the weight; a chain without the weight and the bias.
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "layer/layer_registry.hpp"
#include "passes/expression_matching.hpp"
#include "passes/passes.hpp"

namespace lumen {
namespace {

using Step = LayerGraph::Step;

// Who reads each operand: the steps (one entry per read) and whether the caller does.
struct Readers {
  std::vector<std::vector<int>> steps;
  std::vector<bool> graph_output;

  explicit Readers(const LayerGraph& graph)
      : steps(graph.operands.size()), graph_output(graph.operands.size(), false) {
    for (size_t index = 0; index < graph.steps.size(); ++index) {
      for (int input : graph.steps[index].inputs) {
        steps[static_cast<size_t>(input)].push_back(static_cast<int>(index));
      }
    }
    for (int output : graph.outputs) graph_output[static_cast<size_t>(output)] = true;
  }

  // The one step reading `operand`, once, when the caller does not see it; -1 otherwise.
  int Sole(int operand) const {
    const size_t index = static_cast<size_t>(operand);
    return steps[index].size() == 1 && !graph_output[index] ? steps[index][0] : -1;
  }
};

// Whether `step` squares the operand a: pow(a, 2) or a * a.
bool IsSquareOf(const Step& step, int a) {
  int operand = -1;
  float exponent = 0.0f;
  return IsCallOfOperands(step, ExpressionFunction::kMul, a, a, false) ||
         (IsCallOfOperandAndNumber(step, ExpressionFunction::kPow, false, &operand, &exponent) &&
          operand == a && exponent == 2.0f);
}

// Whether `step` adds a number written in its expression to the operand a (either order); if so,
// the number goes to `*number`.
bool AddsANumber(const Step& step, int a, float* number) {
  int operand = -1;
  return IsCallOfOperandAndNumber(step, ExpressionFunction::kAdd, true, &operand, number) &&
         operand == a;
}

// Whether `step` computes function(a, c) or function(c, a) of the operand a and an operand c a
// step computes as a stored constant; if so, c's producer goes to `*constant_step`.
bool AppliesAConstant(const LayerGraph& graph, const Step& step, ExpressionFunction function, int a,
                      int* constant_step) {
  const ExpressionNode* call = ExpressionCall(step, function);
  if (call == nullptr || call->arguments.size() != 2) return false;
  for (size_t side = 0; side < 2; ++side) {
    const int other = ArgumentOperand(step, call->arguments[1 - side]);
    if (ArgumentOperand(step, call->arguments[side]) != a || other < 0 || other == a) continue;
    const int producer = graph.operands[static_cast<size_t>(other)].producer;
    if (producer >= 0 &&
        graph.steps[static_cast<size_t>(producer)].layer->ConstantValue() != nullptr) {
      *constant_step = producer;
      return true;
    }
  }
  return false;
}

// Whether `step` is a mean of the operand a over `*dims` with keepdim; fills `*dims`.
bool IsMeanOf(const Step& step, int a, std::vector<int>* dims) {
  bool keepdim = false;
  return step.inputs.size() == 1 && step.outputs.size() == 1 && step.inputs[0] == a &&
         step.layer->MeanOverDimensions(dims, &keepdim) && keepdim;
}

// Whether `dims`, of an input of rank `rank` (0 when unknown), are exactly the last `count`.
bool AreTheTrailingDims(std::vector<int> dims, size_t count, size_t rank) {
  if (dims.size() != count) return false;
  std::vector<bool> named(count, false);
  for (int dim : dims) {
    if (dim >= 0 && rank > 0) dim -= static_cast<int>(rank);
    if (dim >= 0 || dim < -static_cast<int>(count)) return false;
    if (named[static_cast<size_t>(dim + static_cast<int>(count))]) return false;
    named[static_cast<size_t>(dim + static_cast<int>(count))] = true;
  }
  return true;
}

// The shape of a weight over the last normalized dimensions: `value`'s extents without leading
// 1s beyond `count`.
Shape WeightShape(const Tensor& value, size_t count) {
  Shape shape = value.shape();
  while (shape.size() > count && shape.front() == 1) shape.erase(shape.begin());
  return shape;
}

// A stored weight as a model file would hold it.
Attribute FloatAttribute(const Tensor& value, const Shape& shape) {
  Attribute attribute;
  attribute.type = DataType::kFloat32;
  for (uint32_t extent : shape) attribute.shape.push_back(static_cast<int>(extent));
  const std::vector<float> values = value.ToRowMajor();
  attribute.data.resize(values.size() * sizeof(float));
  std::memcpy(attribute.data.data(), values.data(), attribute.data.size());
  return attribute;
}

// One matched chain: its steps in order (mean .. bias add), the constants' steps, and what the
// LayerNorm takes.
struct Chain {
  std::vector<int> steps;
  int weight_step = -1;
  int bias_step = -1;
  std::vector<int> dims;
  float eps = 0.0f;
};

// Follows the chain from the mean at `first`; true if the whole chain is there as described at
// the top of this file.
bool MatchChain(const LayerGraph& graph, const Readers& readers, int first, Chain* chain) {
  const auto step = [&](int index) -> const Step& {
    return graph.steps[static_cast<size_t>(index)];
  };
  const auto output = [&](int index) { return step(index).outputs[0]; };
  const Step& mean = step(first);
  if (mean.inputs.size() != 1) return false;
  const int x = mean.inputs[0];
  if (!IsMeanOf(mean, x, &chain->dims)) return false;
  const int subtract = readers.Sole(output(first));
  if (subtract < 0 ||
      !IsCallOfOperands(step(subtract), ExpressionFunction::kSub, x, output(first), false)) {
    return false;
  }
  // d is read by the square and the division, and by nothing else.
  const int centred = output(subtract);
  const std::vector<int>& centred_readers = readers.steps[static_cast<size_t>(centred)];
  if (readers.graph_output[static_cast<size_t>(centred)] || centred_readers.size() != 2) {
    return false;
  }
  int square = centred_readers[0];
  int divide = centred_readers[1];
  if (!IsSquareOf(step(square), centred)) std::swap(square, divide);
  if (square == divide || !IsSquareOf(step(square), centred)) return false;
  const int variance = readers.Sole(output(square));
  std::vector<int> variance_dims;
  if (variance < 0 || !IsMeanOf(step(variance), output(square), &variance_dims) ||
      variance_dims != chain->dims) {
    return false;
  }
  const int add_eps = readers.Sole(output(variance));
  if (add_eps < 0 || !AddsANumber(step(add_eps), output(variance), &chain->eps)) return false;
  const int root = readers.Sole(output(add_eps));
  if (root < 0 || !IsCallOfOperand(step(root), ExpressionFunction::kSqrt, output(add_eps)))
    return false;
  if (readers.Sole(output(root)) != divide ||
      !IsCallOfOperands(step(divide), ExpressionFunction::kDiv, centred, output(root), false)) {
    return false;
  }
  const int scale = readers.Sole(output(divide));
  if (scale < 0 || !AppliesAConstant(graph, step(scale), ExpressionFunction::kMul, output(divide),
                                     &chain->weight_step)) {
    return false;
  }
  const int shift = readers.Sole(output(scale));
  if (shift < 0 || !AppliesAConstant(graph, step(shift), ExpressionFunction::kAdd, output(scale),
                                     &chain->bias_step)) {
    return false;
  }
  chain->steps = {first, subtract, square, variance, add_eps, root, divide, scale, shift};
  return true;
}

// The nn.LayerNorm computing `chain` (named after its last step), or null when the weight and
// bias do not fit the reduced dimensions of x (annotated with `x_shape`, empty when unknown).
std::unique_ptr<Layer> LayerNormOf(const LayerGraph& graph, const Chain& chain,
                                   const std::vector<int>& x_shape) {
  const Tensor& weight =
      *graph.steps[static_cast<size_t>(chain.weight_step)].layer->ConstantValue();
  const Tensor& bias = *graph.steps[static_cast<size_t>(chain.bias_step)].layer->ConstantValue();
  const size_t count = chain.dims.size();
  const Shape normalized = WeightShape(weight, count);
  if (normalized.size() != count || WeightShape(bias, count) != normalized) return nullptr;
  if (!AreTheTrailingDims(chain.dims, count, x_shape.size())) return nullptr;
  // Where the file annotates x, its trailing extents must be the weight's (no broadcasting).
  if (x_shape.size() >= count) {
    for (size_t index = 0; index < count; ++index) {
      const int extent = x_shape[x_shape.size() - count + index];
      if (extent >= 0 && static_cast<uint32_t>(extent) != normalized[index]) return nullptr;
    }
  }
  const Step& last = graph.steps[static_cast<size_t>(chain.steps.back())];
  Node node;
  node.type = "nn.LayerNorm";
  node.name = last.name;
  node.input_names = {
      graph
          .operands[static_cast<size_t>(graph.steps[static_cast<size_t>(chain.steps[0])].inputs[0])]
          .name};
  node.output_names = {graph.operands[static_cast<size_t>(last.outputs[0])].name};
  std::vector<int> extents;
  for (uint32_t extent : normalized) extents.push_back(static_cast<int>(extent));
  node.params["normalized_shape"] = Parameter::FromIntArray(extents);
  node.params["eps"] = Parameter::FromFloat(chain.eps);
  node.params["elementwise_affine"] = Parameter::FromBool(true);
  node.attributes["weight"] = FloatAttribute(weight, normalized);
  node.attributes["bias"] = FloatAttribute(bias, normalized);
  return LayerRegistry::Create(LayerConfig(node));
}

}  // namespace

int FuseWrittenOutLayerNorms(LayerGraph* graph) {
  const Readers readers(*graph);
  int rewritten = 0;
  for (size_t first = 0; first < graph->steps.size(); ++first) {
    Chain chain;
    if (graph->steps[first].removed ||
        !MatchChain(*graph, readers, static_cast<int>(first), &chain))
      continue;
    const int x = graph->steps[first].inputs[0];
    std::unique_ptr<Layer> layer =
        LayerNormOf(*graph, chain, graph->operands[static_cast<size_t>(x)].annotated_shape);
    if (!layer) continue;
    Step& last = graph->steps[static_cast<size_t>(chain.steps.back())];
    last.ReplaceLayer(std::move(layer));
    last.inputs = {x};
    for (size_t position = 0; position + 1 < chain.steps.size(); ++position) {
      graph->AbsorbStep(static_cast<size_t>(chain.steps[position]),
                        static_cast<size_t>(chain.steps.back()));
    }
    // The stored weight and bias are the LayerNorm's now; their steps go if nothing else reads
    // them.
    for (int constant : {chain.weight_step, chain.bias_step}) {
      Step& step = graph->steps[static_cast<size_t>(constant)];
      if (step.outputs.size() == 1 && readers.Sole(step.outputs[0]) >= 0) {
        graph->AbsorbConstant(static_cast<size_t>(constant),
                              static_cast<size_t>(chain.steps.back()));
      }
    }
    ++rewritten;
  }
  graph->DropRemovedSteps();
  return rewritten;
}

}  // namespace lumen
