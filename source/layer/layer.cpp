#include "layer/layer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lumen/error.hpp"

namespace lumen {

Layer::Layer(const LayerConfig& config)
    : type_(config.type()), name_(config.name()), description_(config.Describe()) {}

StatePointer Layer::Prepare(const Shapes& /*input_shapes*/, const Shapes& /*output_shapes*/,
                            const PrepareContext& /*context*/) const {
  return nullptr;
}

Shapes Layer::OutputShapesFromValues(const Shapes& input_shapes,
                                     const InputTensors& /*input_values*/) const {
  return OutputShapes(input_shapes);
}

bool Layer::OutputsFromShapes(const Shapes& /*input_shapes*/,
                              const OutputTensors& /*outputs*/) const {
  return false;
}

std::vector<int64_t> Layer::IntegerValues(const Tensor& values, const std::string& role) const {
  std::vector<int64_t> integers;
  for (float value : values.ToRowMajor()) {
    if (std::isnan(value) || value != std::trunc(value)) {
      Fail(Concat(role, " holds ", value, ", which is not a whole number"));
    }
    // From 2^63 on a float does not convert; such values mean "to the end" (INT64_MAX) or
    // "from the start" (INT64_MIN) in a slice.
    const float limit = 9.2e18f;
    integers.push_back(value >= limit    ? INT64_MAX
                       : value <= -limit ? INT64_MIN
                                         : static_cast<int64_t>(value));
  }
  return integers;
}

std::vector<int64_t> Layer::ShapeOperandValues(const Shapes& input_shapes,
                                               const InputTensors& input_values,
                                               size_t input) const {
  const std::string role = Concat("the shape (input ", input, ")");
  if (input >= input_shapes.size() || input_values.size() <= input || !input_values[input]) {
    Fail(Concat(role, " is missing or not known while planning"));
  }
  if (input_shapes[input].size() != 1) {
    Fail(Concat(role, " must be 1-D, got shape ", ShapeToString(input_shapes[input])));
  }
  return IntegerValues(*input_values[input], role);
}

void Layer::FailWithoutValues() const {
  std::string inputs;
  for (size_t input : ShapeValueInputs()) inputs += Concat(inputs.empty() ? "" : ", ", input);
  Fail(Concat("its output shape depends on the values of input(s) ", inputs,
              ", not known here (a session computes it when it plans)"));
}

bool Layer::FuseActivation(const Activation& /*activation*/) { return false; }

void Layer::CheckInputCount(const Shapes& input_shapes, size_t inputs) const {
  if (input_shapes.size() != inputs) {
    Fail(Concat("expected ", inputs, " input(s), got ", input_shapes.size()));
  }
}

size_t Layer::Axis(int dim, size_t rank) const {
  const int signed_rank = static_cast<int>(rank);
  const int axis = dim < 0 ? dim + signed_rank : dim;
  if (axis < 0 || axis >= signed_rank) {
    Fail(Concat("dim ", dim, " is out of range for a tensor of rank ", rank));
  }
  return static_cast<size_t>(axis);
}

std::vector<bool> Layer::NamedAxes(const std::vector<int>& dims, size_t rank) const {
  std::vector<bool> named(rank, false);
  for (int dim : dims) {
    const size_t axis = Axis(dim, std::max<size_t>(rank, 1));
    if (rank == 0) continue;
    if (named[axis]) Fail(Concat("dim ", dim, " is listed twice"));
    named[axis] = true;
  }
  return named;
}

Shapes Layer::LastDimensionMapped(const Shapes& input_shapes, int in_features,
                                  int out_features) const {
  CheckInputCount(input_shapes, 1);
  const Shape& input = input_shapes[0];
  if (input.empty() || input.back() != static_cast<uint32_t>(in_features)) {
    Fail(Concat("expected an input of shape (...,", in_features, ") (in_features ", in_features,
                "), got ", ShapeToString(input)));
  }
  // The GEMM indexes rows with ints.
  if (input.size() >= 2 && input[input.size() - 2] > std::numeric_limits<int>::max()) {
    Fail(Concat("input ", ShapeToString(input), " has too many rows"));
  }
  Shape output = input;
  output.back() = static_cast<uint32_t>(out_features);
  return {output};
}

void Layer::Fail(const std::string& message) const {
  throw Error(Concat(description_, ": ", message));
}

WeightParameter WeightParameter::FromAttribute(const LayerConfig& config, const std::string& key,
                                               const Shape& shape) {
  const std::vector<int> expected(shape.begin(), shape.end());
  WeightParameter parameter;
  parameter.stored_ = Tensor::FromRowMajor(config.AttributeFloats(key, expected), shape);
  return parameter;
}

WeightParameter WeightParameter::FromInput(size_t index) {
  WeightParameter parameter;
  parameter.input_ = static_cast<int>(index);
  return parameter;
}

WeightParameter WeightParameter::FromFunctionArgument(const LayerConfig& config,
                                                      const std::string& role, size_t* next_input) {
  if (config.HasParam(role) && config.Param(role).IsNone()) return {};
  const int by_role = config.InputIndexOfRole(role);
  if (by_role >= 0) {
    *next_input = std::max(*next_input, static_cast<size_t>(by_role) + 1);
    return FromInput(static_cast<size_t>(by_role));
  }
  if (*next_input < config.input_count()) return FromInput((*next_input)++);
  return {};
}

const Shape& WeightParameter::shape(const Shapes& input_shapes) const {
  return input_ >= 0 ? input_shapes[static_cast<size_t>(input_)] : stored_.shape();
}

const Tensor& WeightParameter::tensor(const InputTensors& inputs) const {
  return input_ >= 0 ? *inputs[static_cast<size_t>(input_)] : stored_;
}

const float* WeightParameter::data(const InputTensors& inputs) const {
  return present() ? tensor(inputs).data() : nullptr;
}

}  // namespace lumen
