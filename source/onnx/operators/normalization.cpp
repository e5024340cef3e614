// ONNX BatchNormalization, LayerNormalization and InstanceNormalization onto nn.BatchNorm2d (or a
// per-channel expression for other ranks; F.batch_norm for statistics given as graph inputs),
// nn.LayerNorm and nn.InstanceNorm1d/2d/3d; MeanVarianceNormalization onto its definition.
#include <cmath>

#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

GraphBuilder::CenteredStatistics GraphBuilder::EmitCenteredStatistics(
    const std::string& input, const std::vector<int>& dims) {
  const std::string base = OutputName(0);
  // Each name is taken right before its node is emitted (a name is free until then).
  const auto mean = [&](const std::string& value) {
    const std::string result = NewOperandName(base);
    Node node = MakeNode("torch.mean", {value}, {result});
    node.params["dim"] = Parameter::FromIntArray(dims);
    node.params["keepdim"] = Parameter::FromBool(true);
    Emit(std::move(node));
    return result;
  };
  CenteredStatistics statistics;
  statistics.mean = mean(input);
  statistics.centered = NewOperandName(base);
  EmitExpressionOf("sub(@0,@1)", {input, statistics.mean}, statistics.centered);
  const std::string squares = NewOperandName(base);
  EmitExpressionOf("mul(@0,@0)", {statistics.centered}, squares);
  statistics.variance = mean(squares);
  return statistics;
}

std::string GraphBuilder::EmitTrailingUnitAxes(const std::string& operand, int64_t count,
                                               const std::string& result_name) {
  std::string result = operand;
  for (int64_t left = count; left > 0; --left) {
    const std::string unsqueezed = left == 1 && !result_name.empty()
                                       ? result_name
                                       : NewOperandName(Concat(OutputName(0), ":unsqueezed"));
    Node unsqueeze = MakeNode("torch.unsqueeze", {result}, {unsqueezed});
    unsqueeze.params["dim"] = Parameter::FromInt(-1);
    Emit(std::move(unsqueeze));
    result = unsqueezed;
  }
  return result;
}

Node GraphBuilder::MakeNormalizationNode(const std::string& type,
                                         const std::vector<std::string>& inputs) {
  Node node = MakeNode(type, inputs, {OutputName(0)});
  node.params["eps"] = Parameter::FromFloat(Float("epsilon", 1e-5f));
  return node;
}

void GraphBuilder::MapBatchNormalization() {
  if (Int("training_mode", 0) != 0) {
    MapTrainingBatchNormalization();
    return;
  }
  if (!IsConstantInput(1) || !IsConstantInput(2) || !IsConstantInput(3) || !IsConstantInput(4)) {
    // Statistics or affine parameters given as graph inputs (or computed): F.batch_norm reads
    // them as operands (input, running_mean, running_var, weight, bias) and folds them per run.
    EmitOutput(MakeNormalizationNode(
        "F.batch_norm",
        {RuntimeInput(0), RuntimeInput(3), RuntimeInput(4), RuntimeInput(1), RuntimeInput(2)}));
    return;
  }
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

// training_mode=1 (opset 14 on): Y normalises with the batch's own mean and (biased) variance
// over every axis but the channels; the optional outputs 1 and 2 are the running statistics
// moved toward them, input * momentum + batch * (1 - momentum), as ONNX defines them.
void GraphBuilder::MapTrainingBatchNormalization() {
  const int rank = RequireInputRank(0, "for the axes of the batch statistics");
  if (rank < 2) Fail("the input must have a channel axis");
  std::vector<int> axes = {0};
  for (int axis = 2; axis < rank; ++axis) axes.push_back(axis);
  const std::string output = OutputName(0);
  const CenteredStatistics batch = EmitCenteredStatistics(RuntimeInput(0), axes);
  // The scale and bias, (C), get a trailing axis of extent 1 per axis after the channels.
  const std::string scale = EmitTrailingUnitAxes(RuntimeInput(1), rank - 2, "");
  const std::string bias = EmitTrailingUnitAxes(RuntimeInput(2), rank - 2, "");
  const std::string epsilon = NumberText(Float("epsilon", 1e-5f));
  EmitExpressionOf(Concat("add(mul(div(@0,sqrt(add(@1,", epsilon, "))),@2),@3)"),
                   {batch.centered, batch.variance, scale, bias}, output);
  SetRuntimeOutput(0, output);
  const double momentum = Float("momentum", 0.9f);
  for (int index = 1; index <= 2; ++index) {
    if (node().output_size() <= index || node().output(index).empty()) continue;
    const std::string statistic = NewOperandName(OutputName(index));
    Emit(MakeNode("torch.flatten", {index == 1 ? batch.mean : batch.variance}, {statistic}));
    EmitExpressionOf(
        Concat("add(mul(@0,", NumberText(momentum), "),mul(@1,", NumberText(1.0 - momentum), "))"),
        {RuntimeInput(static_cast<size_t>(index) + 2), statistic}, OutputName(index));
    SetRuntimeOutput(static_cast<size_t>(index), OutputName(index));
  }
}

// LayerNormalization (opset 17; what torch.onnx.export writes for nn.LayerNorm from opset 17 on):
// the axes from `axis` on are normalised. A negative axis with a scale of one extent per
// normalised axis (what torch exports) is nn.LayerNorm with the scale's shape as normalized_shape.
// Any other axis or scale runs ONNX's definition op by op on the input flattened from `axis` on:
// D = X - mean(X), X' = D / sqrt(mean(D * D) + epsilon), back to X's shape, times the scale plus
// the bias (both broadcasting, known or operands), so no rank is needed when loading. stash_type
// (the precision of the mean and variance) is not read: Lumen accumulates them in double. The
// optional outputs Mean and InvStdDev (X's shape with extent 1 from `axis` on) come from that
// definition's mean and variance, unsqueezed back to X's rank.
void GraphBuilder::MapLayerNormalization() {
  const auto wanted = [&](int index) {
    return node().output_size() > index && !node().output(index).empty();
  };
  const bool statistics = wanted(1) || wanted(2);
  const int64_t axis = Int("axis", -1);
  const float epsilon = Float("epsilon", 1e-5f);
  const bool has_bias = HasInput(2);
  const std::string output = OutputName(0);
  const bool known = IsConstantInput(1) && (!has_bias || IsConstantInput(2));
  const ConstantTensor* scale = known ? &ConstantInput(1, "scale") : nullptr;
  const ConstantTensor* bias = known && has_bias ? &ConstantInput(2, "bias") : nullptr;
  if (known && !statistics && axis < 0 && static_cast<int64_t>(scale->dims.size()) == -axis &&
      (bias == nullptr || bias->dims == scale->dims)) {
    std::vector<int> normalized_shape;
    for (int64_t extent : scale->dims) normalized_shape.push_back(ClampToInt(extent));
    Node node = MakeNode("nn.LayerNorm", {RuntimeInput(0)}, {output});
    node.params["normalized_shape"] = Parameter::FromIntArray(normalized_shape);
    node.params["eps"] = Parameter::FromFloat(epsilon);
    node.params["elementwise_affine"] = Parameter::FromBool(true);
    node.attributes["weight"] = ToAttribute(*scale, Where());
    if (bias != nullptr) node.attributes["bias"] = ToAttribute(*bias, Where());
    Emit(std::move(node));
    SetRuntimeOutput(0, output);
    return;
  }
  const std::string input = RuntimeInput(0);
  const std::string flat = NewOperandName(output);
  Node flatten = MakeNode("torch.flatten", {input}, {flat});
  flatten.params["start_dim"] = Parameter::FromInt(ClampToInt(axis));
  Emit(std::move(flatten));
  const CenteredStatistics flat_statistics = EmitCenteredStatistics(flat, {-1});
  const std::string& centered = flat_statistics.centered;
  const std::string& variance = flat_statistics.variance;
  const std::string normalized = NewOperandName(output);
  EmitExpressionOf(Concat("div(@0,sqrt(add(@1,", NumberText(epsilon), ")))"), {centered, variance},
                   normalized);
  if (statistics) {
    // The statistics have the flattened input's shape with extent 1 last: X's rank needs as many
    // more axes of extent 1 as X has after `axis`.
    const int rank = RequireInputRank(0, "for the shape of the Mean and InvStdDev outputs");
    const int64_t first = axis < 0 ? axis + rank : axis;
    if (first < 0 || first >= rank) Fail(Concat("axis ", axis, " is out of range for rank ", rank));
    const auto emit_statistic = [&](int index, const std::string& value) {
      SetRuntimeOutput(static_cast<size_t>(index),
                       EmitTrailingUnitAxes(value, rank - first - 1, OutputName(index)));
    };
    if (wanted(1)) emit_statistic(1, flat_statistics.mean);
    if (wanted(2)) {
      const std::string inverse = NewOperandName(output);
      EmitExpressionOf(Concat("div(1,sqrt(add(@0,", NumberText(epsilon), ")))"), {variance},
                       inverse);
      emit_statistic(2, inverse);
    }
  }
  const std::string reshaped = NewOperandName(output);
  Emit(MakeNode("Tensor.reshape_as", {normalized, input}, {reshaped}));
  if (has_bias) {
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
  if (!IsConstantInput(1) || !IsConstantInput(2)) {
    // A scale or bias given as a graph input: F.instance_norm reads them as its weight and bias
    // operands.
    EmitOutput(MakeNormalizationNode("F.instance_norm",
                                     {RuntimeInput(0), RuntimeInput(1), RuntimeInput(2)}));
    return;
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
  Node node = MakeNormalizationNode(type, {RuntimeInput(0)});
  node.params["num_features"] = Parameter::FromInt(ClampToInt(scale.dims[0]));
  node.params["affine"] = Parameter::FromBool(true);
  node.params["track_running_stats"] = Parameter::FromBool(false);
  node.attributes["weight"] = ToAttribute(scale, Where());
  node.attributes["bias"] = ToAttribute(bias, Where());
  EmitOutput(std::move(node));
}

// MeanVarianceNormalization: (X - mean) / (sqrt(variance) + 1e-9) with the mean and the biased
// variance over `axes` (default 0, 2, 3: per channel of an (N,C,H,W) map), as ONNX's function
// body computes it (the variance taken as the mean square of X - mean, which is the same value,
// rounded less).
void GraphBuilder::MapMeanVarianceNormalization() {
  const CenteredStatistics statistics =
      EmitCenteredStatistics(RuntimeInput(0), ToInts(Ints("axes", {0, 2, 3})));
  EmitExpressionOf(Concat("div(@0,add(sqrt(@1),", NumberText(1e-9f), "))"),
                   {statistics.centered, statistics.variance}, OutputName(0));
  SetRuntimeOutput(0, OutputName(0));
}

}  // namespace onnx
}  // namespace lumen
