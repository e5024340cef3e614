#include "layer/normalization/normalization.hpp"

#include <algorithm>
#include <utility>

#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

void NormalizationState::ReserveScratch(const PrepareContext& context) const {
  if (context.workspace != nullptr) {
    context.workspace->Reserve(ScratchSlot::kFirst, NormalizationScratchSize(groups));
  }
}

void NormalizationState::LayOutChannelGroups(size_t batch, size_t group_count, size_t per_group,
                                             size_t positions, bool planes) {
  if (planes) {
    groups = {batch * group_count, per_group * positions, 1, 1};
    affine.outer_period = group_count;
    affine.outer_step = per_group;
    affine.extent_block = positions;
    affine.extent_step = 1;
  } else {
    groups = {batch, positions, group_count * per_group, per_group};
    affine.lane_step = 1;
  }
}

NormalizationLayer::NormalizationLayer(const LayerConfig& config, const NormalizationSpec& spec,
                                       AffineParameters affine)
    : Layer(config), spec_(spec), affine_(std::move(affine)) {}

StatePointer NormalizationLayer::Prepare(const Shapes& input_shapes,
                                         const Shapes& /*output_shapes*/,
                                         const PrepareContext& context) const {
  std::unique_ptr<NormalizationState> state = NewState();
  LayOutGroups(input_shapes[0], state.get());
  state->ReserveScratch(context);
  return state;
}

std::unique_ptr<NormalizationState> NormalizationLayer::NewState() const {
  return std::make_unique<NormalizationState>();
}

void NormalizationLayer::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                                 const ForwardContext& context) const {
  const NormalizationState& state = context.state_as<NormalizationState>();
  NormalizationAffine affine = state.affine;
  affine.weight = affine_.weight.data(inputs);
  affine.bias = affine_.bias.data(inputs);
  NormalizeGroups(inputs[0]->data(), outputs[0]->data(), state.groups, spec_, affine,
                  context.compute);
}

size_t AffineParameters::InputCount() const {
  return 1 + (weight.input() >= 0 ? 1 : 0) + (bias.input() >= 0 ? 1 : 0);
}

void AffineParameters::CheckOperandShapes(const Layer& layer,
                                          const std::vector<Shape>& input_shapes,
                                          const Shape& shape) const {
  for (const WeightParameter* parameter : {&weight, &bias}) {
    const int index = parameter->input();
    if (index >= 0 && input_shapes[static_cast<size_t>(index)] != shape) {
      throw Error(Concat(layer.description(), ": ", parameter == &weight ? "weight" : "bias",
                         " must have shape ", ShapeToString(shape), ", got ",
                         ShapeToString(input_shapes[static_cast<size_t>(index)])));
    }
  }
}

AffineParameters FunctionAffineArguments(const LayerConfig& config) {
  size_t next_input = 1;
  AffineParameters affine;
  affine.weight = WeightParameter::FromFunctionArgument(config, "weight", &next_input);
  affine.bias = WeightParameter::FromFunctionArgument(config, "bias", &next_input);
  return affine;
}

Shape NormalizedShapeParam(const LayerConfig& config) {
  const Parameter& parameter = config.Param("normalized_shape");
  std::vector<int> extents;
  if (parameter.type() == Parameter::Type::kInt) {
    extents = {parameter.AsInt()};
  } else {
    extents = config.IntArrayParam("normalized_shape");
  }
  if (extents.empty()) {
    throw Error(Concat(config.Describe(), ": normalized_shape must not be empty"));
  }
  Shape shape;
  for (int extent : extents) {
    if (extent < 1) {
      throw Error(
          Concat(config.Describe(), ": normalized_shape ", parameter.text(), " must be positive"));
    }
    shape.push_back(static_cast<uint32_t>(extent));
  }
  return shape;
}

float EpsParam(const LayerConfig& config, float fallback, float none_value) {
  if (!config.HasParam("eps")) return fallback;
  if (config.Param("eps").IsNone()) return none_value;
  const float eps = config.FloatParam("eps");
  if (!(eps >= 0.0f)) throw Error(Concat(config.Describe(), ": eps must be >= 0, got ", eps));
  return eps;
}

NormalizationGroups TrailingGroups(const Shape& shape, size_t trailing) {
  NormalizationGroups groups;
  const size_t rank = shape.size();
  if (trailing == 1 && rank >= 2) {
    // The last dimension is the column index of each fcube slice, rows() apart in memory.
    const AxisSplit split = SplitAroundAxis(shape, rank - 1);
    groups.outer = split.outer;
    groups.extent = split.extent;
    groups.inner = split.inner;
    return groups;
  }
  // The trailing block holds both swapped dimensions (or the only one): contiguous.
  size_t block = 1;
  for (size_t d = rank - trailing; d < rank; ++d) block *= shape[d];
  groups.extent = block;
  groups.outer = block == 0 ? 0 : ShapeElementCount(shape) / block;
  groups.inner = 1;
  return groups;
}

TrailingNormalization::TrailingNormalization(const LayerConfig& config, Shape normalized_shape,
                                             const NormalizationSpec& spec, AffineParameters affine)
    : NormalizationLayer(config, spec, std::move(affine)),
      normalized_shape_(std::move(normalized_shape)) {}

Shape TrailingNormalization::AffineShape(const Shape& input) const {
  const size_t trailing = normalized_shape_.size();
  if (input.size() < trailing || !std::equal(normalized_shape_.begin(), normalized_shape_.end(),
                                             input.end() - static_cast<std::ptrdiff_t>(trailing))) {
    Fail(Concat("expected an input whose last dimensions are normalized_shape ",
                ShapeToString(normalized_shape_), ", got ", ShapeToString(input)));
  }
  return normalized_shape_;
}

void TrailingNormalization::LayOutGroups(const Shape& input, NormalizationState* state) const {
  state->groups = TrailingGroups(input, normalized_shape_.size());
  // Element e of a group has weight e: the weights are stored in the group's memory order.
  state->affine.extent_step = 1;
}

// nn.LayerNorm's weight and bias are stored with the model when elementwise_affine is True (newer
// PyTorch may drop the bias alone, bias=False); F.layer_norm's are operands or None.
AffineParameters LayerNormAffine(const LayerConfig& config, const Shape& normalized_shape) {
  if (config.type() == "F.layer_norm") return FunctionAffineArguments(config);
  AffineParameters affine;
  if (!config.BoolParam("elementwise_affine", true)) return affine;
  affine.weight = WeightParameter::FromAttribute(config, "weight", normalized_shape);
  if (config.HasAttribute("bias")) {
    affine.bias = WeightParameter::FromAttribute(config, "bias", normalized_shape);
  }
  return affine;
}

}  // namespace lumen
