// MaskedChoice: the shared element-by-element choice of torch.where and Tensor.masked_fill.
#include "layer/indexing/masked_choice.hpp"

#include <memory>
#include <string>
#include <vector>

#include "layer/indexing/coordinates.hpp"
#include "lumen/error.hpp"
#include "tensor/broadcast.hpp"

namespace lumen {
namespace {

// Per session: each operand's strides over the output (empty for a number), the output's own.
struct MaskedChoiceState : LayerState {
  std::vector<size_t> strides[3];
  std::vector<size_t> output_strides;
};

// The operand with `role`'s name among the inputs, or the number in the parameter of that name,
// or the role's default input; throws lumen::Error naming the layer when there is none.
ChoiceSource ReadSource(const LayerConfig& config, ChoiceRole role) {
  const int input = config.InputIndexOfRole(role.name);
  if (input >= 0) return {input, 0.0f};
  if (config.HasParam(role.name)) return {-1, config.FloatParam(role.name)};
  if (role.default_input < static_cast<int>(config.input_count())) {
    return {role.default_input, 0.0f};
  }
  throw Error(
      Concat(config.Describe(), ": has neither an operand nor a parameter '", role.name, "'"));
}

}  // namespace

MaskedChoice::MaskedChoice(const LayerConfig& config, ChoiceRole condition, ChoiceRole chosen,
                           ChoiceRole otherwise)
    : Layer(config),
      sources_{ReadSource(config, condition), ReadSource(config, chosen),
               ReadSource(config, otherwise)},
      input_count_(config.input_count()) {
  for (const ChoiceSource& source : sources_) {
    if (source.input >= static_cast<int>(input_count_)) {
      Fail(Concat("expects an operand at input ", source.input, ", the operator has ", input_count_,
                  " input(s)"));
    }
  }
}

Shapes MaskedChoice::OutputShapes(const Shapes& input_shapes) const {
  CheckInputCount(input_shapes, input_count_);
  Shape output;
  bool first = true;
  for (const ChoiceSource& source : sources_) {
    if (source.input < 0) continue;
    const Shape& shape = input_shapes[static_cast<size_t>(source.input)];
    try {
      output = first ? shape : BroadcastShapes(output, shape);
    } catch (const Error& error) {
      Fail(error.what());
    }
    first = false;
  }
  CheckOutputShape(input_shapes, output);
  return {output};
}

StatePointer MaskedChoice::Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                                   const PrepareContext& /*context*/) const {
  auto state = std::make_unique<MaskedChoiceState>();
  for (size_t i = 0; i < 3; ++i) {
    if (sources_[i].input < 0) continue;
    state->strides[i] =
        BroadcastStrides(input_shapes[static_cast<size_t>(sources_[i].input)], output_shapes[0]);
  }
  state->output_strides = StorageStrides(output_shapes[0]);
  return state;
}

void MaskedChoice::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                           const ForwardContext& context) const {
  const MaskedChoiceState& state = context.state_as<MaskedChoiceState>();
  // The value of source i at these output coordinates.
  const auto value = [&](size_t i, const Coordinates& coordinates) {
    const ChoiceSource& source = sources_[i];
    if (source.input < 0) return source.number;
    return inputs[static_cast<size_t>(source.input)]
        ->data()[StorageOffsetOf(coordinates, state.strides[i])];
  };
  float* result = outputs[0]->data();
  ForEachCoordinate(outputs[0]->shape(), [&](const Coordinates& coordinates) {
    result[StorageOffsetOf(coordinates, state.output_strides)] =
        value(0, coordinates) != 0.0f ? value(1, coordinates) : value(2, coordinates);
  });
}

}  // namespace lumen
