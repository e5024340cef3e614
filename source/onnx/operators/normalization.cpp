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
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

}  // namespace onnx
}  // namespace lumen
