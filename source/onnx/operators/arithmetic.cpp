// ONNX element-wise arithmetic onto pnnx.Expression (broadcasting), reductions onto torch.sum /
// torch.mean / torch.amax / torch.amin / torch.prod / torch.logsumexp (with expressions around
// them), CumSum onto torch.cumsum, TopK onto torch.topk, and Cast of a run-time value (Lumen
// computes in float).
#include <algorithm>
#include <cctype>
#include <map>

#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

const std::map<std::string, std::string>& GraphBuilder::UnaryExpressions() {
  static const std::map<std::string, std::string> expressions = [] {
    std::map<std::string, std::string> table = {
        {"Not", "logical_not({0})"},
        // softplus(x) = log(1 + e^x), written so that it neither overflows nor loses the small
        // values: max(x, 0) + log1p(e^-|x|).
        {"Softplus", "add(max({0},0),log1p(exp(neg(abs({0})))))"},
        {"Softsign", "div({0},add(abs({0}),1))"},
        {"Mish", "mul({0},tanh(add(max({0},0),log1p(exp(neg(abs({0})))))))"},
    };
    // Most unary ops are the expression function of the same name in lower case (Abs: abs).
    for (std::string op : {"Abs",   "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceil",
                           "Cos",   "Cosh", "Erf",   "Exp",  "Floor", "Log",  "Neg",   "Reciprocal",
                           "Round", "Sign", "Sin",   "Sinh", "Sqrt",  "Tan"}) {
      std::string function = op;
      for (char& letter : function) letter = static_cast<char>(std::tolower(letter));
      table[op] = function + "({0})";
    }
    return table;
  }();
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
      // Lumen holds booleans as 0/1 floats; any nonzero value is true.
      {"And", "logical_and"},
      {"Or", "logical_or"},
      {"Xor", "logical_xor"},
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
  if (to == kString) {
    Fail("a Cast to STRING is not supported (Lumen computes in float)");
  } else if (to == kBool) {
    EmitExpression("ne({0},0)", {0});
  } else if (!IsFloatingType(to) && !IsIntegerInput(0)) {
    EmitExpression("trunc({0})", {0});
  } else {
    SetRuntimeOutput(0, RuntimeInput(0));
  }
}

namespace {

// A Reduce* op as Lumen computes it: an element-wise expression of the input (@0) first, a
// reduction layer, then an element-wise expression of its result (empty: none).
struct ReduceRecipe {
  const char* before;
  const char* layer;
  const char* after;
};

// Every Reduce* op the reader maps. ReduceMax and ReduceMin go to torch.amax / torch.amin, whose
// values are those of torch.max(dim) (a NaN wins, as in PyTorch); ReduceL2 is sqrt(sum(x*x)), as
// F.normalize exports it (followed by Clip, Expand and Div, which the reader maps one by one).
const std::map<std::string, ReduceRecipe>& ReduceRecipes() {
  static const std::map<std::string, ReduceRecipe> recipes = {
      {"ReduceSum", {"", "torch.sum", ""}},
      {"ReduceMean", {"", "torch.mean", ""}},
      {"ReduceMax", {"", "torch.amax", ""}},
      {"ReduceMin", {"", "torch.amin", ""}},
      {"ReduceProd", {"", "torch.prod", ""}},
      {"ReduceLogSumExp", {"", "torch.logsumexp", ""}},
      {"ReduceLogSum", {"", "torch.sum", "log(@0)"}},
      {"ReduceSumSquare", {"mul(@0,@0)", "torch.sum", ""}},
      {"ReduceL1", {"abs(@0)", "torch.sum", ""}},
      {"ReduceL2", {"mul(@0,@0)", "torch.sum", "sqrt(@0)"}},
  };
  return recipes;
}

}  // namespace

std::vector<std::string> GraphBuilder::ReduceOps() {
  std::vector<std::string> ops;
  for (const auto& entry : ReduceRecipes()) ops.push_back(entry.first);
  return ops;
}

// Reduce*: the axes come from the axes attribute or, from opset 13 (ReduceSum) or 18 (the
// others), the axes input. No axes means every axis, which the layer reduces without being told
// the rank (its dim is left out), or, with noop_with_empty_axes, none: then only the
// element-wise parts apply (a reduction over no axis leaves each element alone).
void GraphBuilder::MapReduction() {
  const ReduceRecipe& recipe = ReduceRecipes().at(node().op_type());
  const std::vector<int64_t> axes =
      HasInput(1) ? ConstantInput(1, "axes").Integers() : Ints("axes", {});
  const bool reduce = !axes.empty() || Int("noop_with_empty_axes", 0) == 0;
  const std::string output = OutputName(0);
  // The steps that run, each into a new operand but the last, which writes the output.
  const int steps = (*recipe.before ? 1 : 0) + (reduce ? 1 : 0) + (*recipe.after ? 1 : 0);
  int done = 0;
  std::string value = RuntimeInput(0);
  const auto next = [&]() {
    ++done;
    return done == steps ? output : NewOperandName(output);
  };
  if (steps == 0) {  // a plain reduction over no axis
    EmitExpressionOf("identity(@0)", {value}, output);
    SetRuntimeOutput(0, output);
    return;
  }
  if (*recipe.before) {
    const std::string result = next();
    EmitExpressionOf(recipe.before, {value}, result);
    value = result;
  }
  if (reduce) {
    const std::string result = next();
    Node node = MakeNode(recipe.layer, {value}, {result});
    if (!axes.empty()) node.params["dim"] = Parameter::FromIntArray(ToInts(axes));
    node.params["keepdim"] = Parameter::FromBool(Int("keepdims", 1) != 0);
    Emit(std::move(node));
    value = result;
  }
  if (*recipe.after) EmitExpressionOf(recipe.after, {value}, next());
  SetRuntimeOutput(0, output);
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
  EmitOutput(std::move(node));
}

// Mod: fmod=1 is C's fmod (the result has the dividend's sign), fmod=0 (integers only, in ONNX)
// the remainder with the divisor's sign, as Python's % and torch.remainder.
void GraphBuilder::MapMod() {
  EmitExpression(Int("fmod", 0) != 0 ? "fmod({0},{1})" : "remainder({0},{1})", {0, 1});
}

// Mean: the sum of any number of broadcasting inputs, divided by their count.
void GraphBuilder::MapMean() {
  if (InputCount() == 0) Fail("no inputs");
  std::string pattern = "{0}";
  std::vector<size_t> inputs = {0};
  for (size_t i = 1; i < InputCount(); ++i) {
    pattern = Concat("add(", pattern, ",{", i, "})");
    inputs.push_back(i);
  }
  EmitExpression(
      InputCount() == 1 ? "identity({0})" : Concat("div(", pattern, ",", InputCount(), ")"),
      inputs);
}

// CumSum onto torch.cumsum along the known axis. reverse=1 sums from the end (a flip before and
// after); exclusive=1 leaves each element out of its own sum: the inclusive sums shifted by one
// along the axis, a zero first (slice and concatenation, exact where subtracting the element
// would round).
void GraphBuilder::MapCumSum() {
  const std::vector<int64_t> axis = ConstantInput(1, "axis").Integers();
  if (axis.size() != 1) Fail(Concat("the axis must be one value, got ", axis.size()));
  const int dim = ClampToInt(axis[0]);
  const bool exclusive = Int("exclusive", 0) != 0;
  const bool reverse = Int("reverse", 0) != 0;
  const std::string output = OutputName(0);
  const auto flip = [&](const std::string& input, const std::string& result) {
    Node node = MakeNode("torch.flip", {input}, {result});
    node.params["dims"] = Parameter::FromIntArray({dim});
    Emit(std::move(node));
  };
  std::string value = RuntimeInput(0);
  if (reverse) {
    const std::string flipped = NewOperandName(output);
    flip(value, flipped);
    value = flipped;
  }
  const std::string sums = exclusive || reverse ? NewOperandName(output) : output;
  Node cumsum = MakeNode("torch.cumsum", {value}, {sums});
  cumsum.params["dim"] = Parameter::FromInt(dim);
  Emit(std::move(cumsum));
  std::string result = sums;
  if (exclusive) {
    // A zero of the shape of one position along the axis (eq(x,x)*0 is 0 for NaN and inf too),
    // then the sums but the last.
    const std::string first = NewOperandName(output);
    Node head = MakeNode("Tensor.slice", {value}, {first});
    head.params["dim"] = Parameter::FromInt(dim);
    head.params["start"] = Parameter::FromInt(0);
    head.params["end"] = Parameter::FromInt(1);
    Emit(std::move(head));
    const std::string zero = NewOperandName(output);
    EmitExpressionOf("mul(eq(@0,@0),0)", {first}, zero);
    const std::string shifted = NewOperandName(output);
    Node body = MakeNode("Tensor.slice", {sums}, {shifted});
    body.params["dim"] = Parameter::FromInt(dim);
    body.params["start"] = Parameter::FromInt(0);
    body.params["end"] = Parameter::FromInt(-1);
    Emit(std::move(body));
    result = reverse ? NewOperandName(output) : output;
    Node concatenate = MakeNode("torch.cat", {zero, shifted}, {result});
    concatenate.params["dim"] = Parameter::FromInt(dim);
    Emit(std::move(concatenate));
  }
  if (reverse) flip(result, output);
  SetRuntimeOutput(0, output);
}

// TopK onto torch.topk with the known k: values and indices (as floats, exact below 2^24).
// Equal values come in PyTorch's order, which picks the lower index first as ONNX asks.
void GraphBuilder::MapTopK() {
  const std::vector<int64_t> k = ConstantInput(1, "k").Integers();
  if (k.size() != 1) Fail(Concat("k must be one value, got ", k.size()));
  std::vector<std::string> outputs;
  for (int i = 0; i < 2; ++i) {
    // An unused output still gets an operand of its own.
    const bool used = i < node().output_size() && !node().output(i).empty();
    outputs.push_back(used ? node().output(i) : NewOperandName(Concat(node_name_, ":", i)));
  }
  Node node = MakeNode("torch.topk", {RuntimeInput(0)}, outputs);
  node.params["k"] = Parameter::FromInt(ClampToInt(k[0]));
  node.params["dim"] = Parameter::FromInt(ClampToInt(Int("axis", -1)));
  node.params["largest"] = Parameter::FromBool(Int("largest", 1) != 0);
  node.params["sorted"] = Parameter::FromBool(Int("sorted", 1) != 0);
  Emit(std::move(node));
  SetRuntimeOutput(0, outputs[0]);
  SetRuntimeOutput(1, outputs[1]);
}

}  // namespace onnx
}  // namespace lumen
