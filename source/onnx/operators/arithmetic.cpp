// ONNX element-wise arithmetic onto pnnx.Expression (broadcasting), reductions onto torch.mean /
// torch.sum / torch.max / torch.min, and Cast of a run-time value (Lumen computes in float).
#include <algorithm>

#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

const std::map<std::string, std::string>& GraphBuilder::UnaryExpressions() {
  static const std::map<std::string, std::string> expressions = {
      {"Abs", "abs({0})"},
      {"Acos", "acos({0})"},
      {"Asin", "asin({0})"},
      {"Atan", "atan({0})"},
      {"Ceil", "ceil({0})"},
      {"Cos", "cos({0})"},
      {"Cosh", "cosh({0})"},
      {"Erf", "erf({0})"},
      {"Exp", "exp({0})"},
      {"Floor", "floor({0})"},
      {"Log", "log({0})"},
      {"Neg", "neg({0})"},
      {"Reciprocal", "reciprocal({0})"},
      {"Round", "round({0})"},
      {"Sign", "sign({0})"},
      {"Sin", "sin({0})"},
      {"Sinh", "sinh({0})"},
      {"Sqrt", "sqrt({0})"},
      {"Tan", "tan({0})"},
      // softplus(x) = log(1 + e^x), written so that it neither overflows nor loses the small
      // values: max(x, 0) + log1p(e^-|x|).
      {"Softplus", "add(max({0},0),log1p(exp(neg(abs({0})))))"},
      {"Softsign", "div({0},add(abs({0}),1))"},
      {"Mish", "mul({0},tanh(add(max({0},0),log1p(exp(neg(abs({0})))))))"},
  };
  return expressions;
}

const std::map<std::string, std::string>& GraphBuilder::BinaryFunctions() {
  static const std::map<std::string, std::string> functions = {
      {"Add", "add"},
      {"Sub", "sub"},
      {"Mul", "mul"},
      {"Div", "div"},
      {"Pow", "pow"},
      {"Max", "max"},
      {"Min", "min"},
      {"Sum", "add"},
      // comparisons: 1 where true, 0 where false
      {"Equal", "eq"},
      {"Less", "lt"},
      {"Greater", "gt"},
      {"LessOrEqual", "le"},
      {"GreaterOrEqual", "ge"},
  };
  return functions;
}

void GraphBuilder::MapUnaryExpression() {
  EmitExpression(UnaryExpressions().at(node().op_type()), {0});
}

void GraphBuilder::MapElementwise() {
  const std::string& function = BinaryFunctions().at(node().op_type());
  if (InputCount() == 0) Fail("no inputs");
  std::string pattern = "{0}";
  std::vector<size_t> inputs = {0};
  for (size_t i = 1; i < InputCount(); ++i) {  // Max, Min and Sum take any number of inputs
    pattern = Concat(function, "(", pattern, ",{", i, "})");
    inputs.push_back(i);
  }
  if (InputCount() == 1) pattern = "identity({0})";
  // Integer division truncates (shape arithmetic: x.size(2) // 2 exports as an int64 Div).
  if (node().op_type() == "Div" && IsIntegerInput(0)) pattern = Concat("trunc(", pattern, ")");
  EmitExpression(pattern, inputs);
}

// Cast: Lumen holds every type as floats, so a Cast only rounds: toward zero into an integer type
// (from a floating one), to 0 or 1 into bool; into a floating type it is nothing.
void GraphBuilder::MapCast() {
  const int32_t to = static_cast<int32_t>(Int("to", kFloat));
  if (to == kBool) {
    EmitExpression("ne({0},0)", {0});
  } else if (!IsFloatingType(to) && !IsIntegerInput(0)) {
    EmitExpression("trunc({0})", {0});
  } else {
    SetRuntimeOutput(0, RuntimeInput(0));
  }
}

void GraphBuilder::MapReduce() {
  std::vector<int64_t> axes = HasInput(1) ? ConstantInput(1, "axes").Integers() : Ints("axes", {});
  const bool keep = Int("keepdims", 1) != 0;
  if (axes.empty() && Int("noop_with_empty_axes", 0) != 0) {
    SetRuntimeOutput(0, RuntimeInput(0));
    return;
  }
  const std::string type = node().op_type() == "ReduceMean" ? "torch.mean" : "torch.sum";
  Node node = MakeNode(type, {RuntimeInput(0)}, {OutputName(0)});
  // No axes: an empty list, which the layer reads as every axis (keepdim applying to them all).
  node.params["dim"] = Parameter::FromIntArray(ToInts(axes));
  node.params["keepdim"] = Parameter::FromBool(keep);
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

std::vector<int64_t> GraphBuilder::ReduceAxes() {
  // Negative axes and repeats are the layer's to resolve, against the rank it is given.
  return HasInput(1) ? ConstantInput(1, "axes").Integers() : Ints("axes", {});
}

// ReduceMax / ReduceMin: torch.amax / torch.amin over the axes (every axis when none are given),
// what PyTorch exports them from.
void GraphBuilder::MapReduceExtremum() {
  if (Int("noop_with_empty_axes", 0) != 0) Fail("noop_with_empty_axes=1 is not supported");
  const std::string type = node().op_type() == "ReduceMax" ? "torch.amax" : "torch.amin";
  Node node = MakeNode(type, {RuntimeInput(0)}, {OutputName(0)});
  node.params["dim"] = Parameter::FromIntArray(ToInts(ReduceAxes()));
  node.params["keepdim"] = Parameter::FromBool(Int("keepdims", 1) != 0);
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

// ReduceL2: sqrt(sum(x*x)) over the axes, as three layers (F.normalize exports it, followed by
// Clip, Expand and Div, which the reader maps one by one).
void GraphBuilder::MapReduceL2() {
  if (Int("noop_with_empty_axes", 0) != 0) Fail("noop_with_empty_axes=1 is not supported");
  const std::vector<int64_t> axes = ReduceAxes();
  const std::string squares = NewOperandName(OutputName(0));
  EmitExpressionOf("mul(@0,@0)", {RuntimeInput(0)}, squares);
  const std::string sum = NewOperandName(OutputName(0));
  Node node = MakeNode("torch.sum", {squares}, {sum});
  node.params["dim"] = Parameter::FromIntArray(ToInts(axes));
  node.params["keepdim"] = Parameter::FromBool(Int("keepdims", 1) != 0);
  Emit(std::move(node));
  EmitExpressionOf("sqrt(@0)", {sum}, OutputName(0));
  SetRuntimeOutput(0, OutputName(0));
}

// ArgMax / ArgMin: the index output of torch.max / torch.min along the axis, as a float (exact
// below 2^24; a later Cast to float is then nothing). Ties go to the first index, as ONNX's
// default select_last_index=0 says.
void GraphBuilder::MapArgExtremum() {
  if (Int("select_last_index", 0) != 0) Fail("select_last_index=1 is not supported");
  const std::string type = node().op_type() == "ArgMax" ? "torch.max" : "torch.min";
  const std::string values = NewOperandName(Concat(OutputName(0), ":values"));
  Node node = MakeNode(type, {RuntimeInput(0)}, {values, OutputName(0)});
  node.params["dim"] = Parameter::FromInt(ClampToInt(Int("axis", 0)));
  node.params["keepdim"] = Parameter::FromBool(Int("keepdims", 1) != 0);
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

}  // namespace onnx
}  // namespace lumen
