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
      {"Add", "add"}, {"Sub", "sub"}, {"Mul", "mul"}, {"Div", "div"},
      {"Pow", "pow"}, {"Max", "max"}, {"Min", "min"}, {"Sum", "add"},
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
  EmitExpression(pattern, inputs);
}

void GraphBuilder::MapCast() {
  const int64_t to = Int("to", kFloat);
  if (!IsFloatingType(static_cast<int32_t>(to))) {
    Fail(Concat("a Cast to ", ElementTypeName(static_cast<int32_t>(to)),
                " of a value computed at run time is not supported (Lumen computes in float)"));
  }
  SetRuntimeOutput(0, RuntimeInput(0));
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
  if (axes.empty()) {
    // Every axis: listed explicitly, so that keepdim applies to them all.
    const int rank = RequireInputRank(0, "to reduce over every axis");
    for (int i = 0; i < rank; ++i) axes.push_back(i);
  }
  node.params["dim"] = Parameter::FromIntArray(ToInts(axes));
  node.params["keepdim"] = Parameter::FromBool(keep);
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

std::vector<int64_t> GraphBuilder::ReduceAxes() {
  std::vector<int64_t> axes = HasInput(1) ? ConstantInput(1, "axes").Integers() : Ints("axes", {});
  const int rank = InputRank(0);
  if (axes.empty()) {
    const int every = RequireInputRank(0, "to reduce over every axis");
    for (int i = 0; i < every; ++i) axes.push_back(i);
  }
  if (rank >= 0) {
    for (int64_t& axis : axes) {
      if (axis < -rank || axis >= rank) Fail(Concat("axis ", axis, " is outside rank ", rank));
      if (axis < 0) axis += rank;
    }
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) Fail("an axis is repeated");
  return axes;
}

// ReduceMax / ReduceMin: torch.max / torch.min along one dim at a time (ties and NaN as PyTorch,
// which exports amax/amin and max(dim) values so).
void GraphBuilder::MapReduceExtremum() {
  if (Int("noop_with_empty_axes", 0) != 0) Fail("noop_with_empty_axes=1 is not supported");
  std::vector<int64_t> axes = ReduceAxes();
  const bool keep = Int("keepdims", 1) != 0;
  if (axes.size() > 1 && !keep && axes.front() < 0) {
    RequireInputRank(0, "for several negative axes without keepdims");
  }
  // Without keepdims, removing the highest axis first keeps the others' indices.
  std::reverse(axes.begin(), axes.end());
  const std::string type = node().op_type() == "ReduceMax" ? "torch.max" : "torch.min";
  std::string input = RuntimeInput(0);
  for (size_t i = 0; i < axes.size(); ++i) {
    const std::string output = i + 1 == axes.size() ? OutputName(0) : NewOperandName(OutputName(0));
    Node node = MakeNode(type, {input}, {output});
    node.params["dim"] = Parameter::FromInt(ClampToInt(axes[i]));
    node.params["keepdim"] = Parameter::FromBool(keep);
    Emit(std::move(node));
    input = output;
  }
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
