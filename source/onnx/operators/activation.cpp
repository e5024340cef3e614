// ONNX activations onto the activation layers PyTorch's own use (nn.ReLU, nn.ReLU6, nn.ELU, ...),
// or onto an expression where PyTorch has no layer of the same parameters (Clip's other bounds,
// HardSigmoid's other slopes, PRelu); Softmax, LogSoftmax and Hardmax onto nn.Softmax,
// nn.LogSoftmax and lumen.Hardmax; ThresholdedRelu onto F.threshold; Selu and Celu onto nn.SELU
// and nn.CELU (Selu's other constants onto an expression); Shrink onto an expression.
#include <cmath>

#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

const std::map<std::string, std::string>& GraphBuilder::PlainActivations() {
  static const std::map<std::string, std::string> types = {{"Relu", "nn.ReLU"},
                                                           {"Sigmoid", "nn.Sigmoid"},
                                                           {"Tanh", "nn.Tanh"},
                                                           {"HardSwish", "nn.Hardswish"}};
  return types;
}

void GraphBuilder::MapPlainActivation() {
  EmitOutput(MakeNode(PlainActivations().at(node().op_type()), {RuntimeInput(0)}, {OutputName(0)}));
}

void GraphBuilder::MapClip() {
  // Clip's bounds are inputs since opset 11, attributes before. A bound given as a graph input
  // (or computed) is an operand of the expression.
  const bool old = NodeOpVersion() < 11;
  const bool has_min = old ? FindAttribute(node(), "min") != nullptr : HasInput(1);
  const bool has_max = old ? FindAttribute(node(), "max") != nullptr : HasInput(2);
  if (!old && ((has_min && !IsConstantInput(1)) || (has_max && !IsConstantInput(2)))) {
    // {k} is the k-th of `inputs`.
    std::string pattern = "{0}";
    std::vector<size_t> inputs = {0};
    for (size_t bound : {1, 2}) {
      if (!(bound == 1 ? has_min : has_max)) continue;
      pattern = Concat(bound == 1 ? "max(" : "min(", pattern, ",{", inputs.size(), "})");
      inputs.push_back(bound);
    }
    EmitExpression(pattern, inputs);
    return;
  }
  double low = -INFINITY;
  double high = INFINITY;
  // A bound input is a scalar: one value (an empty constant once read past its end).
  const auto bound = [&](size_t input, const char* name) {
    const ConstantTensor& value = ConstantInput(input, name);
    if (value.size() != 1) Fail(Concat(name, " ", value.Describe(), " must be one value"));
    return value.At(0);
  };
  if (has_min) low = old ? Float("min", 0.0f) : bound(1, "min");
  if (has_max) high = old ? Float("max", 0.0f) : bound(2, "max");
  if (low == 0.0 && high == 6.0) {
    Emit(MakeNode("nn.ReLU6", {RuntimeInput(0)}, {OutputName(0)}));
  } else if (low == 0.0 && !has_max) {
    Emit(MakeNode("nn.ReLU", {RuntimeInput(0)}, {OutputName(0)}));
  } else {
    std::string expression = "@0";
    if (has_min) expression = Concat("max(", expression, ",", NumberText(low), ")");
    if (has_max) expression = Concat("min(", expression, ",", NumberText(high), ")");
    if (!has_min && !has_max) expression = "identity(@0)";
    EmitExpressionOf(expression, {RuntimeInput(0)}, OutputName(0));
  }
  SetRuntimeOutput(0, OutputName(0));
}

void GraphBuilder::MapLeakyRelu() {
  Node node = MakeNode("nn.LeakyReLU", {RuntimeInput(0)}, {OutputName(0)});
  node.params["negative_slope"] = Parameter::FromFloat(Float("alpha", 0.01f));
  EmitOutput(std::move(node));
}

void GraphBuilder::MapElu() {
  Node node = MakeNode("nn.ELU", {RuntimeInput(0)}, {OutputName(0)});
  node.params["alpha"] = Parameter::FromFloat(Float("alpha", 1.0f));
  EmitOutput(std::move(node));
}

void GraphBuilder::MapHardSigmoid() {
  const float alpha = Float("alpha", 0.2f);
  const float beta = Float("beta", 0.5f);
  if (alpha == 1.0f / 6.0f && beta == 0.5f) {  // PyTorch's hardsigmoid, as it exports it
    EmitOutput(MakeNode("nn.Hardsigmoid", {RuntimeInput(0)}, {OutputName(0)}));
  } else {
    EmitExpression(
        Concat("max(min(add(mul({0},", NumberText(alpha), "),", NumberText(beta), "),1),0)"), {0});
  }
}

// Selu: gamma * (x > 0 ? x : alpha * (e^x - 1)); nn.SELU with ONNX's default constants, which
// are PyTorch's to every bit.
void GraphBuilder::MapSelu() {
  const float alpha = Float("alpha", 1.67326319217681884765625f);
  const float gamma = Float("gamma", 1.05070102214813232421875f);
  if (alpha == 1.67326319217681884765625f && gamma == 1.05070102214813232421875f) {
    Emit(MakeNode("nn.SELU", {RuntimeInput(0)}, {OutputName(0)}));
    SetRuntimeOutput(0, OutputName(0));
    return;
  }
  EmitExpression(Concat("mul(", NumberText(gamma), ",add(max({0},0),mul(", NumberText(alpha),
                        ",sub(exp(min({0},0)),1))))"),
                 {0});
}

// Celu: max(0, x) + min(0, alpha * (e^(x / alpha) - 1)), nn.CELU's definition.
void GraphBuilder::MapCelu() {
  Node node = MakeNode("nn.CELU", {RuntimeInput(0)}, {OutputName(0)});
  node.params["alpha"] = Parameter::FromFloat(Float("alpha", 1.0f));
  EmitOutput(std::move(node));
}

// Shrink: x + bias below -lambd, x - bias above lambd, 0 between (nn.Hardshrink is bias 0,
// nn.Softshrink bias = lambd; ONNX allows any bias).
void GraphBuilder::MapShrink() {
  const std::string lambd = NumberText(Float("lambd", 0.5f));
  const std::string bias = NumberText(Float("bias", 0.0f));
  EmitExpression(Concat("add(mul(lt({0},neg(", lambd, ")),add({0},", bias, ")),mul(gt({0},", lambd,
                        "),sub({0},", bias, ")))"),
                 {0});
}

// PRelu: max(x, 0) + slope * min(x, 0), the slope broadcasting as ONNX says.
void GraphBuilder::MapPRelu() { EmitExpression("add(max({0},0),mul({1},min({0},0)))", {0, 1}); }

// Softmax, LogSoftmax and Hardmax onto nn.Softmax, nn.LogSoftmax and lumen.Hardmax along `axis`.
// Before opset 13 these ops work on the input flattened into a matrix at `axis` (default 1): the
// layer then runs on the last dim of the input flattened from `axis` on, and the result takes
// the input's shape back, which needs no rank when loading.
void GraphBuilder::MapSoftmax() {
  static const std::map<std::string, std::string> types = {
      {"Softmax", "nn.Softmax"}, {"LogSoftmax", "nn.LogSoftmax"}, {"Hardmax", "lumen.Hardmax"}};
  const std::string& type = types.at(node().op_type());
  const int axis = ClampToInt(Int("axis", opset_ >= 13 ? -1 : 1));
  const int rank = InputRank(0);
  if (opset_ >= 13 || axis == -1 || (rank >= 0 && axis == rank - 1)) {
    Node node = MakeNode(type, {RuntimeInput(0)}, {OutputName(0)});
    node.params["dim"] = Parameter::FromInt(axis);
    EmitOutput(std::move(node));
    return;
  }
  // Before opset 13, these ops normalise over every axis from `axis` on together (the input
  // flattened to a matrix there): flatten those axes, run the layer on the last, and reshape back
  // to the input's shape.
  const std::string input = RuntimeInput(0);
  const std::string flat = NewOperandName(OutputName(0));
  EmitFlatten(input, axis, -1, flat);
  const std::string normalised = NewOperandName(OutputName(0));
  Node layer = MakeNode(type, {flat}, {normalised});
  layer.params["dim"] = Parameter::FromInt(-1);
  Emit(std::move(layer));
  const std::string shape = NewOperandName(OutputName(0));
  Emit(MakeNode("lumen.Shape", {input}, {shape}));
  EmitOutput(MakeNode("lumen.Reshape", {normalised, shape}, {OutputName(0)}));
}

// ThresholdedRelu: x where x > alpha, else 0; F.threshold with the same rule.
void GraphBuilder::MapThresholdedRelu() {
  Node node = MakeNode("F.threshold", {RuntimeInput(0)}, {OutputName(0)});
  node.params["threshold"] = Parameter::FromFloat(Float("alpha", 1.0f));
  node.params["value"] = Parameter::FromFloat(0.0f);
  EmitOutput(std::move(node));
}

}  // namespace onnx
}  // namespace lumen
