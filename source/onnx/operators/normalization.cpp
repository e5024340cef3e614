// ONNX BatchNormalization, LayerNormalization and InstanceNormalization onto nn.BatchNorm2d (or a
// per-channel expression for other ranks), nn.LayerNorm and nn.InstanceNorm1d/2d/3d.
#include <cmath>

#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

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
    // lumen.BatchNorm is the module for any rank, when the rank is known only at run time.
    Node node = MakeNode(rank == 4 ? "nn.BatchNorm2d" : "lumen.BatchNorm", {RuntimeInput(0)},
                         {OutputName(0)});
    node.params["num_features"] = Parameter::FromInt(static_cast<int>(channels));
    node.params["eps"] = Parameter::FromFloat(epsilon);
    node.params["affine"] = Parameter::FromBool(true);
    node.attributes["weight"] = ToAttribute(scale, Where());
    node.attributes["bias"] = ToAttribute(bias, Where());
    node.attributes["running_mean"] = ToAttribute(mean, Where());
    node.attributes["running_var"] = ToAttribute(variance, Where());
    EmitOutput(std::move(node));
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

// LayerNormalization (opset 17; what torch.onnx.export writes for nn.LayerNorm from opset 17 on):
// the axes from `axis` on are normalised. A negative axis with a scale of one extent per
// normalised axis (what torch exports) is nn.LayerNorm with the scale's shape as normalized_shape.
// Any other axis or scale runs ONNX's definition op by op on the input flattened from `axis` on:
// D = X - mean(X), X' = D / sqrt(mean(D * D) + epsilon), back to X's shape, times the scale plus
// the bias (both broadcasting), so no rank is needed when loading. stash_type (the precision of
// the mean and variance) is not read: Lumen accumulates them in double.
void GraphBuilder::MapLayerNormalization() {
  for (int output = 1; output < node().output_size(); ++output) {
    if (!node().output(output).empty()) {
      Fail("the Mean and InvStdDev outputs of LayerNormalization are not supported");
    }
  }
  const ConstantTensor& scale = ConstantInput(1, "scale");
  const int64_t axis = Int("axis", -1);
  const float epsilon = Float("epsilon", 1e-5f);
  const ConstantTensor* bias = HasInput(2) ? &ConstantInput(2, "bias") : nullptr;
  const std::string output = OutputName(0);
  if (axis < 0 && static_cast<int64_t>(scale.dims.size()) == -axis &&
      (bias == nullptr || bias->dims == scale.dims)) {
    std::vector<int> normalized_shape;
    for (int64_t extent : scale.dims) normalized_shape.push_back(ClampToInt(extent));
    Node node = MakeNode("nn.LayerNorm", {RuntimeInput(0)}, {output});
    node.params["normalized_shape"] = Parameter::FromIntArray(normalized_shape);
    node.params["eps"] = Parameter::FromFloat(epsilon);
    node.params["elementwise_affine"] = Parameter::FromBool(true);
    node.attributes["weight"] = ToAttribute(scale, Where());
    if (bias != nullptr) node.attributes["bias"] = ToAttribute(*bias, Where());
    Emit(std::move(node));
    SetRuntimeOutput(0, output);
    return;
  }
  const std::string input = RuntimeInput(0);
  const auto mean = [&](const std::string& value) {
    const std::string result = NewOperandName(output);
    Node node = MakeNode("torch.mean", {value}, {result});
    node.params["dim"] = Parameter::FromIntArray({-1});
    node.params["keepdim"] = Parameter::FromBool(true);
    Emit(std::move(node));
    return result;
  };
  const std::string flat = NewOperandName(output);
  Node flatten = MakeNode("torch.flatten", {input}, {flat});
  flatten.params["start_dim"] = Parameter::FromInt(ClampToInt(axis));
  Emit(std::move(flatten));
  // Each name is taken right before its node is emitted (a name is free until then).
  const std::string flat_mean = mean(flat);
  const std::string centered = NewOperandName(output);
  EmitExpressionOf("sub(@0,@1)", {flat, flat_mean}, centered);
  const std::string squares = NewOperandName(output);
  EmitExpressionOf("mul(@0,@0)", {centered}, squares);
  const std::string variance = mean(squares);
  const std::string normalized = NewOperandName(output);
  EmitExpressionOf(Concat("div(@0,sqrt(add(@1,", NumberText(epsilon), ")))"), {centered, variance},
                   normalized);
  const std::string reshaped = NewOperandName(output);
  Emit(MakeNode("Tensor.reshape_as", {normalized, input}, {reshaped}));
  if (bias != nullptr) {
    EmitExpressionOf("add(mul(@0,@1),@2)", {reshaped, RuntimeInput(1), RuntimeInput(2)}, output);
  } else {
    EmitExpressionOf("mul(@0,@1)", {reshaped, RuntimeInput(1)}, output);
  }
  SetRuntimeOutput(0, output);
}

// InstanceNormalization: nn.InstanceNorm1d/2d/3d by the input's rank (lumen.InstanceNorm, the
// module for any rank, when the rank is known only at run time), scale and B as its affine
// weight and bias. GroupNorm exports as Reshape (N,G,-1) -> this with ones and zeros -> Reshape
// -> Mul -> Add, which these layers then compute as PyTorch does.
void GraphBuilder::MapInstanceNormalization() {
  const int rank = InputRank(0);
  if (rank >= 0 && (rank < 3 || rank > 5)) {
    Fail(Concat("a rank-", rank, " input is not supported (only 3 to 5)"));
  }
  const ConstantTensor& scale = ConstantInput(1, "scale");
  const ConstantTensor& bias = ConstantInput(2, "bias B");
  if (scale.dims.size() != 1 || bias.dims != scale.dims) {
    Fail(Concat("scale ", scale.Describe(), " and B ", bias.Describe(),
                " must be vectors of one value per channel"));
  }
  const std::vector<int64_t> dims = InputDims(0);
  if (dims.size() > 1 && dims[1] >= 0 && dims[1] != scale.dims[0]) {
    Fail(Concat("scale ", scale.Describe(), " has not one value per channel of the input ",
                DimsToString(dims)));
  }
  const std::string type =
      rank < 0 ? std::string("lumen.InstanceNorm") : Concat("nn.InstanceNorm", rank - 2, "d");
  Node node = MakeNode(type, {RuntimeInput(0)}, {OutputName(0)});
  node.params["num_features"] = Parameter::FromInt(ClampToInt(scale.dims[0]));
  node.params["eps"] = Parameter::FromFloat(Float("epsilon", 1e-5f));
  node.params["affine"] = Parameter::FromBool(true);
  node.params["track_running_stats"] = Parameter::FromBool(false);
  node.attributes["weight"] = ToAttribute(scale, Where());
  node.attributes["bias"] = ToAttribute(bias, Where());
  EmitOutput(std::move(node));
}

}  // namespace onnx
}  // namespace lumen
