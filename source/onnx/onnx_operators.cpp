// The mapping of each ONNX op onto the Lumen node type with the same semantics: the same layers,
// with their fast algorithms, run a model whichever format it came from.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <map>

#include "lumen/error.hpp"
#include "onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

namespace {

// An int64 from the file as an int parameter, clamped (slice bounds such as INT64_MAX mean "to
// the end", which INT_MAX means as well).
int ClampToInt(int64_t value) {
  return static_cast<int>(std::clamp<int64_t>(value, INT_MIN, INT_MAX));
}

std::vector<int> ToInts(const std::vector<int64_t>& values) {
  std::vector<int> result;
  for (int64_t value : values) result.push_back(ClampToInt(value));
  return result;
}

// "(2,2)"-style text of doubles with every digit, for parameters read as doubles (Upsample).
std::string DoubleListText(const std::vector<double>& values) {
  std::string text = "(";
  for (size_t i = 0; i < values.size(); ++i) {
    char number[40];
    std::snprintf(number, sizeof(number), "%.17g", values[i]);
    text += Concat(i ? "," : "", number);
  }
  return text + ")";
}

// Unary element-wise ops and the expression each is.
const std::map<std::string, std::string>& UnaryExpressions() {
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

// Binary element-wise ops and their expression functions.
const std::map<std::string, std::string>& BinaryFunctions() {
  static const std::map<std::string, std::string> functions = {
      {"Add", "add"}, {"Sub", "sub"}, {"Mul", "mul"}, {"Div", "div"},
      {"Pow", "pow"}, {"Max", "max"}, {"Min", "min"}, {"Sum", "add"},
  };
  return functions;
}

// Ops that become one Lumen node type with no parameters.
const std::map<std::string, std::string>& PlainActivations() {
  static const std::map<std::string, std::string> types = {
      {"Relu", "nn.ReLU"},
      {"Sigmoid", "nn.Sigmoid"},
      {"Tanh", "nn.Tanh"},
      {"HardSwish", "nn.Hardswish"},
  };
  return types;
}

// Ops whose output is their input at run time.
bool IsPassThrough(const std::string& op) { return op == "Identity" || op == "Dropout"; }

}  // namespace

const std::set<std::string>& GraphBuilder::SupportedOps() {
  static const std::set<std::string> ops = [] {
    std::set<std::string> names = {
        // mapped onto layers
        "Conv", "ConvTranspose", "Gemm", "MatMul", "BatchNormalization", "LayerNormalization",
        "MaxPool", "AveragePool", "GlobalAveragePool", "Flatten", "Reshape", "Transpose", "Squeeze",
        "Unsqueeze", "Softmax", "Slice", "Split", "Gather", "ReduceMean", "ReduceSum", "Resize",
        "Concat", "Clip", "LeakyRelu", "Elu", "HardSigmoid", "PRelu", "Einsum", "Expand", "Cast",
        "Identity", "Dropout", "LSTM", "GRU", "RNN", "Pad", "Tile", "DepthToSpace", "SpaceToDepth",
        "InstanceNormalization", "ReduceMax", "ReduceMin", "ReduceL2", "ArgMax", "ArgMin",
        // evaluated when loading (shape arithmetic)
        "Constant", "ConstantOfShape", "Shape", "Size", "Range", "Where", "Equal", "Less",
        "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Not", "Mod"};
    for (const auto& entry : UnaryExpressions()) names.insert(entry.first);
    for (const auto& entry : BinaryFunctions()) names.insert(entry.first);
    for (const auto& entry : PlainActivations()) names.insert(entry.first);
    return names;
  }();
  return ops;
}

void GraphBuilder::MapOperator() {
  const std::string& op = node().op_type();
  if (IsPassThrough(op)) {
    if (op == "Dropout" && node().output_size() > 1 && !node().output(1).empty()) {
      // The mask output of an inference-mode Dropout is all ones; nothing reads it in practice.
      Fail("the mask output of Dropout is not supported");
    }
    SetRuntimeOutput(0, RuntimeInput(0));
    return;
  }
  if (const auto plain = PlainActivations().find(op); plain != PlainActivations().end()) {
    Emit(MakeNode(plain->second, {RuntimeInput(0)}, {OutputName(0)}));
    SetRuntimeOutput(0, OutputName(0));
    return;
  }
  if (const auto unary = UnaryExpressions().find(op); unary != UnaryExpressions().end()) {
    EmitExpression(unary->second, {0});
    return;
  }
  if (BinaryFunctions().count(op)) return MapElementwise();
  if (op == "Conv") return MapConvolution();
  if (op == "ConvTranspose") return MapTransposedConvolution();
  if (op == "Gemm") return MapGemm();
  if (op == "MatMul") return MapMatMul();
  if (op == "BatchNormalization") return MapBatchNormalization();
  if (op == "LayerNormalization") return MapLayerNormalization();
  if (op == "MaxPool" || op == "AveragePool") return MapPooling();
  if (op == "GlobalAveragePool") return MapGlobalAveragePool();
  if (op == "Flatten") return MapFlatten();
  if (op == "Reshape") return MapReshape();
  if (op == "Transpose") return MapTranspose();
  if (op == "Squeeze") return MapSqueeze();
  if (op == "Unsqueeze") return MapUnsqueeze();
  if (op == "Softmax") return MapSoftmax();
  if (op == "Slice") return MapSlice();
  if (op == "Split") return MapSplit();
  if (op == "Gather") return MapGather();
  if (op == "ReduceMean" || op == "ReduceSum") return MapReduce();
  if (op == "Resize") return MapResize();
  if (op == "Clip") return MapClip();
  if (op == "Expand") return MapExpand();
  if (op == "LSTM" || op == "GRU" || op == "RNN") return MapRecurrent();
  if (op == "Pad") return MapPad();
  if (op == "Tile") return MapTile();
  if (op == "DepthToSpace") return MapDepthToSpace();
  if (op == "SpaceToDepth") return MapSpaceToDepth();
  if (op == "InstanceNormalization") return MapInstanceNormalization();
  if (op == "ReduceMax" || op == "ReduceMin") return MapReduceExtremum();
  if (op == "ReduceL2") return MapReduceL2();
  if (op == "ArgMax" || op == "ArgMin") return MapArgExtremum();
  if (op == "Concat") {
    std::vector<std::string> inputs;
    for (size_t i = 0; i < InputCount(); ++i) inputs.push_back(RuntimeInput(i));
    Node node = MakeNode("torch.cat", inputs, {OutputName(0)});
    node.params["dim"] = Parameter::FromInt(ClampToInt(Int("axis", 0)));
    Emit(std::move(node));
    SetRuntimeOutput(0, OutputName(0));
    return;
  }
  if (op == "LeakyRelu" || op == "Elu") {
    Node node =
        MakeNode(op == "Elu" ? "nn.ELU" : "nn.LeakyReLU", {RuntimeInput(0)}, {OutputName(0)});
    if (op == "Elu") {
      node.params["alpha"] = Parameter::FromFloat(Float("alpha", 1.0f));
    } else {
      node.params["negative_slope"] = Parameter::FromFloat(Float("alpha", 0.01f));
    }
    Emit(std::move(node));
    SetRuntimeOutput(0, OutputName(0));
    return;
  }
  if (op == "HardSigmoid") {
    const float alpha = Float("alpha", 0.2f);
    const float beta = Float("beta", 0.5f);
    if (alpha == 1.0f / 6.0f && beta == 0.5f) {  // PyTorch's hardsigmoid, as it exports it
      Emit(MakeNode("nn.Hardsigmoid", {RuntimeInput(0)}, {OutputName(0)}));
      SetRuntimeOutput(0, OutputName(0));
    } else {
      EmitExpression(
          Concat("max(min(add(mul({0},", NumberText(alpha), "),", NumberText(beta), "),1),0)"),
          {0});
    }
    return;
  }
  if (op == "PRelu") {
    EmitExpression("add(max({0},0),mul({1},min({0},0)))", {0, 1});
    return;
  }
  if (op == "Einsum") {
    std::vector<std::string> inputs;
    for (size_t i = 0; i < InputCount(); ++i) inputs.push_back(RuntimeInput(i));
    Node node = MakeNode("torch.einsum", inputs, {OutputName(0)});
    node.params["equation"] = Parameter::FromString(String("equation", ""));
    Emit(std::move(node));
    SetRuntimeOutput(0, OutputName(0));
    return;
  }
  if (op == "Cast") {
    const int64_t to = Int("to", kFloat);
    if (!IsFloatingType(static_cast<int32_t>(to))) {
      Fail(Concat("a Cast to ", ElementTypeName(static_cast<int32_t>(to)),
                  " of a value computed at run time is not supported (Lumen computes in float)"));
    }
    SetRuntimeOutput(0, RuntimeInput(0));
    return;
  }
  Fail(Concat(op,
              " of values computed at run time is not supported (Lumen evaluates it only "
              "on values known when loading)"));
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

void GraphBuilder::MapClip() {
  // Clip's bounds are inputs since opset 11 (the oldest Lumen reads).
  const bool has_min = HasInput(1);
  const bool has_max = HasInput(2);
  const double low = has_min ? ConstantInput(1, "min").At(0) : -INFINITY;
  const double high = has_max ? ConstantInput(2, "max").At(0) : INFINITY;
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

void GraphBuilder::MapConvolution() {
  const ConstantTensor& weight = ConstantInput(1, "weight");
  const size_t spatial = weight.dims.size() < 2 ? 0 : weight.dims.size() - 2;
  if (spatial != 1 && spatial != 2) {
    Fail(Concat("only 1-D and 2-D convolutions are supported, the weight is ", weight.Describe()));
  }
  const auto pairs = [&](const std::string& name, int64_t fallback) {
    std::vector<int64_t> values = Ints(name, std::vector<int64_t>(spatial, fallback));
    if (values.size() != spatial) Fail(Concat(name, " must have ", spatial, " values"));
    if (spatial == 1) values.insert(values.begin(), fallback == 0 ? 0 : 1);
    return ToInts(values);
  };
  std::vector<int64_t> kernel(weight.dims.begin() + 2, weight.dims.end());
  if (Ints("kernel_shape", kernel) != kernel) Fail("kernel_shape disagrees with the weight");
  if (spatial == 1) kernel.insert(kernel.begin(), 1);
  const std::string auto_pad = String("auto_pad", "NOTSET");
  std::vector<int64_t> pads = Ints("pads", std::vector<int64_t>(2 * spatial, 0));
  if (pads.size() != 2 * spatial) Fail(Concat("pads must have ", 2 * spatial, " values"));
  for (size_t i = 0; i < spatial; ++i) {
    if (pads[i] != pads[i + spatial]) {
      Fail(Concat("asymmetric pads ", DimsToString(pads), " are not supported"));
    }
  }
  if (auto_pad != "NOTSET" && auto_pad != "VALID") {
    Fail(Concat("auto_pad ", auto_pad, " is not supported (only explicit pads)"));
  }
  if (auto_pad == "VALID") std::fill(pads.begin(), pads.end(), 0);
  std::vector<int64_t> padding(pads.begin(), pads.begin() + static_cast<long>(spatial));
  if (spatial == 1) padding.insert(padding.begin(), 0);
  const int64_t groups = Int("group", 1);
  ConstantTensor weight_2d = weight;
  weight_2d.dims = {weight.dims[0], weight.dims[1], kernel[0], kernel[1]};

  std::string input = RuntimeInput(0);
  const std::string output = OutputName(0);
  std::string convolution_output = output;
  if (spatial == 1) {  // (N,C,L) -> (N,C,1,L), the 2-D convolution, and back
    const std::string unsqueezed = NewOperandName(output);
    Node unsqueeze = MakeNode("torch.unsqueeze", {input}, {unsqueezed});
    unsqueeze.params["dim"] = Parameter::FromInt(-2);
    Emit(std::move(unsqueeze));
    input = unsqueezed;
    convolution_output = NewOperandName(output);
  }
  Node node = MakeNode("nn.Conv2d", {input}, {convolution_output});
  node.params["in_channels"] = Parameter::FromInt(ClampToInt(weight.dims[1] * groups));
  node.params["out_channels"] = Parameter::FromInt(ClampToInt(weight.dims[0]));
  node.params["kernel_size"] = Parameter::FromIntArray(ToInts(kernel));
  node.params["stride"] = Parameter::FromIntArray(pairs("strides", 1));
  node.params["padding"] = Parameter::FromIntArray(ToInts(padding));
  node.params["dilation"] = Parameter::FromIntArray(pairs("dilations", 1));
  node.params["groups"] = Parameter::FromInt(ClampToInt(groups));
  node.params["bias"] = Parameter::FromBool(HasInput(2));
  node.attributes["weight"] = ToAttribute(weight_2d, Where());
  if (HasInput(2)) node.attributes["bias"] = ToAttribute(ConstantInput(2, "bias"), Where());
  Emit(std::move(node));
  if (spatial == 1) {
    Node squeeze = MakeNode("torch.squeeze", {convolution_output}, {output});
    squeeze.params["dim"] = Parameter::FromInt(-2);
    Emit(std::move(squeeze));
  }
  SetRuntimeOutput(0, output);
}

void GraphBuilder::MapTransposedConvolution() {
  const ConstantTensor& weight = ConstantInput(1, "weight");
  if (weight.dims.size() != 4) {
    Fail(Concat("only 2-D transposed convolutions are supported, the weight is ",
                weight.Describe()));
  }
  if (FindAttribute(node(), "output_shape") != nullptr) {
    Fail("output_shape is not supported (give pads and output_padding)");
  }
  const std::string auto_pad = String("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID") {
    Fail(Concat("auto_pad ", auto_pad, " is not supported (only explicit pads)"));
  }
  std::vector<int64_t> pads = Ints("pads", {0, 0, 0, 0});
  if (auto_pad == "VALID") pads = {0, 0, 0, 0};
  if (pads.size() != 4 || pads[0] != pads[2] || pads[1] != pads[3]) {
    Fail(Concat("pads ", DimsToString(pads), " are not supported (only symmetric 2-D pads)"));
  }
  const int64_t groups = Int("group", 1);
  const std::vector<int64_t> kernel(weight.dims.begin() + 2, weight.dims.end());
  if (Ints("kernel_shape", kernel) != kernel) Fail("kernel_shape disagrees with the weight");
  Node node = MakeNode("nn.ConvTranspose2d", {RuntimeInput(0)}, {OutputName(0)});
  node.params["in_channels"] = Parameter::FromInt(ClampToInt(weight.dims[0]));
  node.params["out_channels"] = Parameter::FromInt(ClampToInt(weight.dims[1] * groups));
  node.params["kernel_size"] = Parameter::FromIntArray(ToInts(kernel));
  node.params["stride"] = Parameter::FromIntArray(ToInts(Ints("strides", {1, 1})));
  node.params["padding"] = Parameter::FromIntArray({ClampToInt(pads[0]), ClampToInt(pads[1])});
  node.params["output_padding"] = Parameter::FromIntArray(ToInts(Ints("output_padding", {0, 0})));
  node.params["dilation"] = Parameter::FromIntArray(ToInts(Ints("dilations", {1, 1})));
  node.params["groups"] = Parameter::FromInt(ClampToInt(groups));
  node.params["bias"] = Parameter::FromBool(HasInput(2));
  node.attributes["weight"] = ToAttribute(weight, Where());
  if (HasInput(2)) node.attributes["bias"] = ToAttribute(ConstantInput(2, "bias"), Where());
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

namespace {

// The (N,K) weight of a linear layer from a (K,N) matrix: its transpose.
ConstantTensor Transposed(const ConstantTensor& matrix) {
  const size_t rows = static_cast<size_t>(matrix.dims[0]);
  const size_t columns = static_cast<size_t>(matrix.dims[1]);
  ConstantTensor result;
  result.type = kFloat;
  result.dims = {matrix.dims[1], matrix.dims[0]};
  const std::vector<float> values = matrix.Floats();
  result.floats.resize(values.size());
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < columns; ++c) result.floats[c * rows + r] = values[r * columns + c];
  }
  return result;
}

}  // namespace

void GraphBuilder::MapGemm() {
  // Y = alpha * A' B' + beta * C: with a known B and C this is nn.Linear.
  if (Int("transA", 0) != 0) Fail("transA=1 is not supported");
  const ConstantTensor& b = ConstantInput(1, "matrix B");
  if (b.dims.size() != 2) Fail(Concat("B must be a matrix, got ", b.Describe()));
  ConstantTensor weight = Int("transB", 0) != 0 ? b : Transposed(b);  // (N,K)
  weight.floats = weight.Floats();
  weight.integers.clear();
  weight.type = kFloat;
  const float alpha = Float("alpha", 1.0f);
  const float beta = Float("beta", 1.0f);
  for (float& value : weight.floats) value *= alpha;
  const int64_t out_features = weight.dims[0];
  Node node = MakeNode("nn.Linear", {RuntimeInput(0)}, {OutputName(0)});
  node.params["in_features"] = Parameter::FromInt(ClampToInt(weight.dims[1]));
  node.params["out_features"] = Parameter::FromInt(ClampToInt(out_features));
  node.params["bias"] = Parameter::FromBool(HasInput(2));
  node.attributes["weight"] = ToAttribute(weight, Where());
  if (HasInput(2)) {
    const ConstantTensor& c = ConstantInput(2, "bias C");
    // C broadcasts to (M,N): a bias must be the same for every row.
    const bool per_column = c.size() == static_cast<size_t>(out_features) &&
                            (c.dims.size() == 1 || (c.dims.size() == 2 && c.dims[0] == 1));
    if (!per_column && c.size() != 1) {
      Fail(Concat("C of shape ", DimsToString(c.dims),
                  " is not supported (only (N), (1,N) or "
                  "a scalar)"));
    }
    ConstantTensor bias = ConstantTensor::FromDoubles(
        kFloat, {out_features}, std::vector<double>(static_cast<size_t>(out_features), 0.0));
    for (size_t i = 0; i < bias.floats.size(); ++i) {
      bias.floats[i] = beta * static_cast<float>(c.At(per_column ? i : 0));
    }
    node.attributes["bias"] = ToAttribute(bias, Where());
  }
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

void GraphBuilder::MapMatMul() {
  if (IsConstantInput(1) && constants_.at(node().input(1)).dims.size() == 2) {
    // x @ W with a known (K,N) W is a linear layer with weight W^T.
    const ConstantTensor weight = Transposed(ConstantInput(1, "matrix"));
    Node node = MakeNode("nn.Linear", {RuntimeInput(0)}, {OutputName(0)});
    node.params["in_features"] = Parameter::FromInt(ClampToInt(weight.dims[1]));
    node.params["out_features"] = Parameter::FromInt(ClampToInt(weight.dims[0]));
    node.params["bias"] = Parameter::FromBool(false);
    node.attributes["weight"] = ToAttribute(weight, Where());
    Emit(std::move(node));
  } else {
    Emit(MakeNode("torch.matmul", {RuntimeInput(0), RuntimeInput(1)}, {OutputName(0)}));
  }
  SetRuntimeOutput(0, OutputName(0));
}

// LayerNormalization (opset 17; what torch.onnx.export writes for nn.LayerNorm from opset 17 on):
// nn.LayerNorm over the axes from `axis` on. Its normalized_shape is the scale's shape, which
// ONNX requires to match those axes (torch exports exactly them).
void GraphBuilder::MapLayerNormalization() {
  for (int output = 1; output < node().output_size(); ++output) {
    if (!node().output(output).empty()) {
      Fail("the Mean and InvStdDev outputs of LayerNormalization are not supported");
    }
  }
  const ConstantTensor& scale = ConstantInput(1, "scale");
  const int rank = InputRank(0);
  int64_t axis = Int("axis", -1);
  if (rank >= 0) {
    if (axis < -rank || axis >= rank) Fail(Concat("axis ", axis, " is outside rank ", rank));
    if (axis < 0) axis += rank;
    if (static_cast<int64_t>(scale.dims.size()) != rank - axis) {
      Fail(Concat("the scale ", scale.Describe(), " must have the shape of the axes from ", axis,
                  " on"));
    }
  } else if (axis >= 0) {
    Fail("a non-negative axis needs the input's rank, which the model does not declare");
  } else if (static_cast<int64_t>(scale.dims.size()) != -axis) {
    Fail(Concat("the scale ", scale.Describe(), " must have one axis per normalised axis"));
  }
  std::vector<int> normalized_shape;
  for (int64_t extent : scale.dims) normalized_shape.push_back(ClampToInt(extent));
  Node node = MakeNode("nn.LayerNorm", {RuntimeInput(0)}, {OutputName(0)});
  node.params["normalized_shape"] = Parameter::FromIntArray(normalized_shape);
  node.params["eps"] = Parameter::FromFloat(Float("epsilon", 1e-5f));
  node.params["elementwise_affine"] = Parameter::FromBool(true);
  node.attributes["weight"] = ToAttribute(scale, Where());
  if (HasInput(2)) {
    const ConstantTensor& bias = ConstantInput(2, "bias");
    if (bias.dims != scale.dims) {
      Fail(Concat("the bias ", bias.Describe(), " must have the scale's shape ", scale.Describe()));
    }
    node.attributes["bias"] = ToAttribute(bias, Where());
  }
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

void GraphBuilder::MapBatchNormalization() {
  if (Int("training_mode", 0) != 0) Fail("training_mode=1 is not supported (inference only)");
  const ConstantTensor& scale = ConstantInput(1, "scale");
  const ConstantTensor& bias = ConstantInput(2, "bias");
  const ConstantTensor& mean = ConstantInput(3, "running mean");
  const ConstantTensor& variance = ConstantInput(4, "running variance");
  const float epsilon = Float("epsilon", 1e-5f);
  const size_t channels = scale.size();
  if (bias.size() != channels || mean.size() != channels || variance.size() != channels) {
    Fail("scale, bias, mean and variance must have one value per channel");
  }
  const int rank = InputRank(0);
  if (rank == 4 || rank < 0) {
    Node node = MakeNode("nn.BatchNorm2d", {RuntimeInput(0)}, {OutputName(0)});
    node.params["num_features"] = Parameter::FromInt(static_cast<int>(channels));
    node.params["eps"] = Parameter::FromFloat(epsilon);
    node.params["affine"] = Parameter::FromBool(true);
    node.attributes["weight"] = ToAttribute(scale, Where());
    node.attributes["bias"] = ToAttribute(bias, Where());
    node.attributes["running_mean"] = ToAttribute(mean, Where());
    node.attributes["running_var"] = ToAttribute(variance, Where());
    Emit(std::move(node));
    SetRuntimeOutput(0, OutputName(0));
    return;
  }
  // Other ranks (BatchNorm1d: (N,C) or (N,C,L)): x * s + t with per-channel s and t shaped to
  // broadcast along axis 1.
  if (rank < 2) Fail("the input must have a channel axis");
  std::vector<int64_t> dims = {static_cast<int64_t>(channels)};
  dims.resize(static_cast<size_t>(rank - 1), 1);
  std::vector<double> multiplier(channels);
  std::vector<double> shift(channels);
  for (size_t c = 0; c < channels; ++c) {
    const double s = scale.At(c) / std::sqrt(variance.At(c) + static_cast<double>(epsilon));
    multiplier[c] = s;
    shift[c] = bias.At(c) - mean.At(c) * s;
  }
  const std::string scale_operand = NewOperandName(OutputName(0));
  Node scale_node = MakeNode("pnnx.Attribute", {}, {scale_operand});
  scale_node.attributes["data"] =
      ToAttribute(ConstantTensor::FromDoubles(kFloat, dims, multiplier), Where());
  Emit(std::move(scale_node));
  const std::string shift_operand = NewOperandName(OutputName(0));
  Node shift_node = MakeNode("pnnx.Attribute", {}, {shift_operand});
  shift_node.attributes["data"] =
      ToAttribute(ConstantTensor::FromDoubles(kFloat, dims, shift), Where());
  Emit(std::move(shift_node));
  EmitExpressionOf("add(mul(@0,@1),@2)", {RuntimeInput(0), scale_operand, shift_operand},
                   OutputName(0));
  SetRuntimeOutput(0, OutputName(0));
}

void GraphBuilder::MapPooling() {
  const bool max = node().op_type() == "MaxPool";
  const std::vector<int64_t> kernel = Ints("kernel_shape", {});
  const size_t spatial = kernel.size();
  if (spatial != 1 && spatial != 2) Fail("only 1-D and 2-D pooling is supported");
  if (max && node().output_size() > 1 && !node().output(1).empty()) {
    Fail("the Indices output of MaxPool is not supported");
  }
  const std::string auto_pad = String("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID") {
    Fail(Concat("auto_pad ", auto_pad, " is not supported (only explicit pads)"));
  }
  std::vector<int64_t> pads = Ints("pads", std::vector<int64_t>(2 * spatial, 0));
  if (auto_pad == "VALID") pads.assign(2 * spatial, 0);
  if (pads.size() != 2 * spatial) Fail(Concat("pads must have ", 2 * spatial, " values"));
  for (size_t i = 0; i < spatial; ++i) {
    if (pads[i] != pads[i + spatial]) {
      Fail(Concat("pads ", DimsToString(pads), " are not supported (only symmetric)"));
    }
  }
  const std::vector<int64_t> strides = Ints("strides", std::vector<int64_t>(spatial, 1));
  const std::vector<int64_t> dilations = Ints("dilations", std::vector<int64_t>(spatial, 1));
  if (strides.size() != spatial || dilations.size() != spatial) {
    Fail(Concat("strides and dilations must have ", spatial, " values"));
  }
  const char* type = spatial == 1 ? (max ? "nn.MaxPool1d" : "nn.AvgPool1d")
                                  : (max ? "nn.MaxPool2d" : "nn.AvgPool2d");
  Node node = MakeNode(type, {RuntimeInput(0)}, {OutputName(0)});
  node.params["kernel_size"] = Parameter::FromIntArray(ToInts(kernel));
  // ONNX's strides default to 1, PyTorch's to the kernel: always written out.
  node.params["stride"] = Parameter::FromIntArray(ToInts(strides));
  node.params["padding"] = Parameter::FromIntArray(
      ToInts(std::vector<int64_t>(pads.begin(), pads.begin() + static_cast<long>(spatial))));
  node.params["ceil_mode"] = Parameter::FromBool(Int("ceil_mode", 0) != 0);
  if (max) {
    node.params["dilation"] = Parameter::FromIntArray(ToInts(dilations));
    node.params["return_indices"] = Parameter::FromBool(false);
  } else {
    for (int64_t dilation : dilations) {
      if (dilation != 1) Fail("dilations of AveragePool are not supported");
    }
    node.params["count_include_pad"] = Parameter::FromBool(Int("count_include_pad", 0) != 0);
  }
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

void GraphBuilder::MapGlobalAveragePool() {
  const int rank = InputRank(0);
  if (rank >= 0 && rank != 4) Fail("only 2-D global pooling (an (N,C,H,W) input) is supported");
  Node node = MakeNode("nn.AdaptiveAvgPool2d", {RuntimeInput(0)}, {OutputName(0)});
  node.params["output_size"] = Parameter::FromIntArray({1, 1});
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

void GraphBuilder::MapFlatten() {
  // ONNX's Flatten always gives a matrix: (d0*...*d(axis-1), rest).
  int64_t axis = Int("axis", 1);
  if (axis < 0) axis += RequireInputRank(0, "for a negative axis");
  const std::string input = RuntimeInput(0);
  const std::string output = OutputName(0);
  if (axis == 0) {
    Node node = MakeNode("Tensor.reshape", {input}, {output});
    node.params["shape"] = Parameter::FromIntArray({1, -1});
    Emit(std::move(node));
  } else if (axis == 1) {
    Node node = MakeNode("torch.flatten", {input}, {output});
    node.params["start_dim"] = Parameter::FromInt(1);
    node.params["end_dim"] = Parameter::FromInt(-1);
    Emit(std::move(node));
  } else {
    const std::string front = NewOperandName(output);
    Node first = MakeNode("torch.flatten", {input}, {front});
    first.params["start_dim"] = Parameter::FromInt(0);
    first.params["end_dim"] = Parameter::FromInt(ClampToInt(axis - 1));
    Emit(std::move(first));
    // The rest may be no axes at all (axis == rank): then the second extent is 1.
    Node second = MakeNode("Tensor.reshape", {front}, {output});
    second.params["shape"] = Parameter::FromIntArray({0, -1});
    const std::vector<int64_t> dims = InputDims(0);
    int64_t outer = 1;
    bool known = static_cast<int64_t>(dims.size()) >= axis;
    for (int64_t i = 0; known && i < axis; ++i) {
      known = dims[static_cast<size_t>(i)] >= 0;
      outer *= known ? dims[static_cast<size_t>(i)] : 1;
    }
    if (!known) Fail(Concat("Flatten at axis ", axis, " needs the input's declared shape"));
    second.params["shape"] = Parameter::FromIntArray({ClampToInt(outer), -1});
    Emit(std::move(second));
  }
  SetRuntimeOutput(0, output);
}

void GraphBuilder::MapReshape() {
  std::vector<int64_t> shape = ConstantInput(1, "shape").Integers();
  const bool allow_zero = Int("allowzero", 0) != 0;
  if (!allow_zero) {
    const std::vector<int64_t> dims = InputDims(0);
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] != 0) continue;
      // 0 copies the input's extent: known from the file's declared shape.
      if (i >= dims.size() || dims[i] < 0) {
        Fail(Concat("shape ", DimsToString(shape), " copies extent ", i,
                    " of the input, whose shape the file does not declare"));
      }
      shape[i] = dims[i];
    }
  }
  Node node = MakeNode("Tensor.reshape", {RuntimeInput(0)}, {OutputName(0)});
  node.params["shape"] = Parameter::FromIntArray(ToInts(shape));
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

void GraphBuilder::MapTranspose() {
  std::vector<int64_t> permutation = Ints("perm", {});
  if (permutation.empty()) {
    const int rank = RequireInputRank(0, "for Transpose without perm");
    for (int i = rank; i-- > 0;) permutation.push_back(i);
  }
  Node node = MakeNode("torch.permute", {RuntimeInput(0)}, {OutputName(0)});
  node.params["dims"] = Parameter::FromIntArray(ToInts(permutation));
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

void GraphBuilder::MapSqueeze() {
  std::vector<int64_t> axes = HasInput(1) ? ConstantInput(1, "axes").Integers() : Ints("axes", {});
  Node node = MakeNode("torch.squeeze", {RuntimeInput(0)}, {OutputName(0)});
  if (!axes.empty()) node.params["dim"] = Parameter::FromIntArray(ToInts(axes));
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

void GraphBuilder::MapUnsqueeze() {
  std::vector<int64_t> axes = HasInput(1) ? ConstantInput(1, "axes").Integers() : Ints("axes", {});
  if (axes.empty()) Fail("no axes given");
  if (axes.size() > 1) {
    // Axes index the output: made non-negative, inserting them in increasing order is exact.
    const bool negative = std::any_of(axes.begin(), axes.end(), [](int64_t a) { return a < 0; });
    if (negative) {
      const int64_t rank =
          RequireInputRank(0, "for several negative axes") + static_cast<int64_t>(axes.size());
      for (int64_t& axis : axes) axis = axis < 0 ? axis + rank : axis;
    }
    std::sort(axes.begin(), axes.end());
  }
  std::string input = RuntimeInput(0);
  for (size_t i = 0; i < axes.size(); ++i) {
    const std::string output = i + 1 == axes.size() ? OutputName(0) : NewOperandName(OutputName(0));
    Node node = MakeNode("torch.unsqueeze", {input}, {output});
    node.params["dim"] = Parameter::FromInt(ClampToInt(axes[i]));
    Emit(std::move(node));
    input = output;
  }
  SetRuntimeOutput(0, OutputName(0));
}

void GraphBuilder::MapSoftmax() {
  int64_t axis = Int("axis", opset_ >= 13 ? -1 : 1);
  if (opset_ < 13) {
    // Before opset 13, Softmax flattens the input to a matrix at `axis`: the same as PyTorch's
    // softmax only when `axis` is the last axis.
    const int rank = RequireInputRank(0, "for Softmax before opset 13");
    if (axis != -1 && axis != rank - 1) {
      Fail(Concat("Softmax over axes ", axis, " to the last (opset ", opset_,
                  " semantics) is not supported; only the last axis"));
    }
  }
  Node node = MakeNode("nn.Softmax", {RuntimeInput(0)}, {OutputName(0)});
  node.params["dim"] = Parameter::FromInt(ClampToInt(axis));
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

void GraphBuilder::MapSlice() {
  const std::vector<int64_t> starts = ConstantInput(1, "starts").Integers();
  const std::vector<int64_t> ends = ConstantInput(2, "ends").Integers();
  std::vector<int64_t> axes;
  if (HasInput(3)) {
    axes = ConstantInput(3, "axes").Integers();
  } else {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  std::vector<int64_t> steps =
      HasInput(4) ? ConstantInput(4, "steps").Integers() : std::vector<int64_t>(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    Fail("starts, ends, axes and steps differ in length");
  }
  for (int64_t step : steps) {
    if (step < 1) Fail(Concat("step ", step, " is not supported (only positive steps)"));
  }
  Node node = MakeNode("Tensor.slice", {RuntimeInput(0)}, {OutputName(0)});
  node.params["dims"] = Parameter::FromIntArray(ToInts(axes));
  node.params["starts"] = Parameter::FromIntArray(ToInts(starts));
  node.params["ends"] = Parameter::FromIntArray(ToInts(ends));
  node.params["steps"] = Parameter::FromIntArray(ToInts(steps));
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

void GraphBuilder::MapSplit() {
  std::vector<int64_t> sizes;
  if (HasInput(1)) {
    sizes = ConstantInput(1, "split").Integers();
  } else {
    sizes = Ints("split", {});
  }
  std::vector<std::string> outputs;
  for (int i = 0; i < node().output_size(); ++i) {
    // Unused outputs still take their piece: give them names of their own.
    outputs.push_back(node().output(i).empty() ? NewOperandName(Concat(node_name_, ":", i))
                                               : node().output(i));
  }
  Node node = MakeNode("torch.split", {RuntimeInput(0)}, outputs);
  node.params["dim"] = Parameter::FromInt(ClampToInt(Int("axis", 0)));
  if (sizes.empty()) {
    node.params["chunks"] = Parameter::FromInt(static_cast<int>(outputs.size()));
    node.type = "torch.chunk";
  } else {
    node.params["split_size_or_sections"] = Parameter::FromIntArray(ToInts(sizes));
  }
  Emit(std::move(node));
  for (size_t i = 0; i < outputs.size(); ++i) SetRuntimeOutput(i, outputs[i]);
}

void GraphBuilder::MapGather() {
  // Known indices from a run-time value. One index is Tensor.select (it drops the axis), a list
  // is torch.index_select; both check the range against the extent the data has at run time, so
  // an index past the end is an error naming the node, never an empty result.
  const ConstantTensor& indices = ConstantInput(1, "indices");
  if (indices.dims.size() > 1) Fail("indices of rank above 1 are not supported");
  const int64_t axis = Int("axis", 0);
  std::vector<int64_t> picked = indices.Integers();
  if (indices.dims.empty()) {
    Node select = MakeNode("Tensor.select", {RuntimeInput(0)}, {OutputName(0)});
    select.params["dim"] = Parameter::FromInt(ClampToInt(axis));
    select.params["index"] = Parameter::FromInt(ClampToInt(picked.at(0)));
    Emit(std::move(select));
    SetRuntimeOutput(0, OutputName(0));
    return;
  }
  // Made first so that it carries the ONNX node's own name into messages.
  Node gather = MakeNode("torch.index_select", {}, {OutputName(0)});
  gather.params["dim"] = Parameter::FromInt(ClampToInt(axis));
  // ONNX counts negative indices from the end; torch.index_select does not, so they are made
  // non-negative here, which needs the extent.
  std::string index_operand;
  if (std::any_of(picked.begin(), picked.end(), [](int64_t index) { return index < 0; })) {
    const std::vector<int64_t> dims = InputDims(0);
    const size_t normalized_axis =
        static_cast<size_t>(axis < 0 ? axis + RequireInputRank(0, "for a negative axis") : axis);
    if (normalized_axis >= dims.size() || dims[normalized_axis] < 0) {
      Fail("negative indices need the input's declared shape");
    }
    for (int64_t& index : picked) index += index < 0 ? dims[normalized_axis] : 0;
    index_operand = NewOperandName(Concat(OutputName(0), ":indices"));
    Node constant = MakeNode("pnnx.Attribute", {}, {index_operand});
    constant.attributes["data"] =
        ToAttribute(ConstantTensor::FromIntegers(picked), Concat(Where(), ": indices"));
    Emit(std::move(constant));
  } else {
    index_operand = RuntimeInput(1);
  }
  gather.input_names = {RuntimeInput(0), index_operand};
  Emit(std::move(gather));
  SetRuntimeOutput(0, OutputName(0));
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

void GraphBuilder::MapResize() {
  const std::string mode = String("mode", "nearest");
  const std::string transform = String("coordinate_transformation_mode", "half_pixel");
  Node node = MakeNode("nn.Upsample", {RuntimeInput(0)}, {OutputName(0)});
  if (mode == "nearest") {
    // PyTorch's nearest: source index floor(dst * in / out).
    const std::string rounding = String("nearest_mode", "round_prefer_floor");
    if (transform != "asymmetric" || rounding != "floor") {
      Fail(Concat("nearest resizing with coordinate_transformation_mode '", transform,
                  "' and nearest_mode '", rounding,
                  "' is not supported (only PyTorch's: asymmetric, floor)"));
    }
    node.params["mode"] = Parameter::FromString("nearest");
  } else if (mode == "linear") {
    if (transform == "align_corners") {
      node.params["align_corners"] = Parameter::FromBool(true);
    } else if (transform == "pytorch_half_pixel" || transform == "half_pixel") {
      node.params["align_corners"] = Parameter::FromBool(false);
    } else {
      Fail(Concat("linear resizing with coordinate_transformation_mode '", transform,
                  "' is not supported"));
    }
    node.params["mode"] = Parameter::FromString("bilinear");
  } else {
    Fail(Concat("mode '", mode, "' is not supported (only nearest and linear)"));
  }
  // Inputs: X, roi, scales, sizes (roi and one of scales / sizes may be omitted).
  const bool has_sizes = HasInput(3) && ConstantInput(3, "sizes").size() > 0;
  const bool has_scales = HasInput(2) && ConstantInput(2, "scales").size() > 0;
  if (has_sizes) {
    const std::vector<int64_t> sizes = ConstantInput(3, "sizes").Integers();
    if (sizes.size() != 4) Fail("only 2-D resizing of (N,C,H,W) is supported");
    node.params["size"] = Parameter::FromIntArray({ClampToInt(sizes[2]), ClampToInt(sizes[3])});
  } else if (has_scales) {
    const ConstantTensor& scales = ConstantInput(2, "scales");
    if (scales.size() != 4 || scales.At(0) != 1.0 || scales.At(1) != 1.0) {
      Fail(Concat("scales ", scales.Describe(), " are not supported (only (1,1,h,w))"));
    }
    node.params["scale_factor"] = Parameter::Parse(DoubleListText({scales.At(2), scales.At(3)}));
  } else {
    Fail("neither scales nor sizes is given");
  }
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

void GraphBuilder::MapExpand() {
  // ONNX's Expand broadcasts both ways: a target extent of 1 keeps the input's extent, which
  // Tensor.expand writes as -1; new leading axes take the target's extents.
  const std::vector<int64_t> shape = ConstantInput(1, "shape").Integers();
  const int rank = RequireInputRank(0, "for Expand");
  const size_t output_rank = std::max(shape.size(), static_cast<size_t>(rank));
  std::vector<int> sizes;
  for (size_t axis = 0; axis < output_rank; ++axis) {
    const bool in_shape = axis + shape.size() >= output_rank;
    const bool in_input = axis + static_cast<size_t>(rank) >= output_rank;
    const int64_t target = in_shape ? shape[axis + shape.size() - output_rank] : 1;
    if (target < 0) Fail(Concat("shape ", DimsToString(shape), " has a negative extent"));
    sizes.push_back(in_input && target == 1 ? -1 : ClampToInt(target));
  }
  Node node = MakeNode("Tensor.expand", {RuntimeInput(0)}, {OutputName(0)});
  node.params["sizes"] = Parameter::FromIntArray(sizes);
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

// InstanceNormalization: nn.InstanceNorm1d/2d/3d by the input's rank, scale and B as its affine
// weight and bias. GroupNorm exports as Reshape (N,G,-1) -> this with ones and zeros -> Reshape
// -> Mul -> Add, which these layers then compute as PyTorch does.
void GraphBuilder::MapInstanceNormalization() {
  const int rank = RequireInputRank(0, "to pick the instance norm's dimensions");
  if (rank < 3 || rank > 5) Fail(Concat("a rank-", rank, " input is not supported (only 3 to 5)"));
  const ConstantTensor& scale = ConstantInput(1, "scale");
  const ConstantTensor& bias = ConstantInput(2, "bias B");
  if (scale.dims.size() != 1 || bias.dims != scale.dims) {
    Fail(Concat("scale ", scale.Describe(), " and B ", bias.Describe(),
                " must be vectors of one value per channel"));
  }
  const std::vector<int64_t> dims = InputDims(0);
  if (dims[1] >= 0 && dims[1] != scale.dims[0]) {
    Fail(Concat("scale ", scale.Describe(), " has not one value per channel of the input ",
                DimsToString(dims)));
  }
  Node node =
      MakeNode(Concat("nn.InstanceNorm", rank - 2, "d"), {RuntimeInput(0)}, {OutputName(0)});
  node.params["num_features"] = Parameter::FromInt(ClampToInt(scale.dims[0]));
  node.params["eps"] = Parameter::FromFloat(Float("epsilon", 1e-5f));
  node.params["affine"] = Parameter::FromBool(true);
  node.params["track_running_stats"] = Parameter::FromBool(false);
  node.attributes["weight"] = ToAttribute(scale, Where());
  node.attributes["bias"] = ToAttribute(bias, Where());
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
