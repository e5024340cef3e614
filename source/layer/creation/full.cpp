// Tensors of one value: torch.full / zeros / ones / empty and Tensor.new_full / new_zeros /
// new_ones / new_empty (of a given size), torch.full_like / zeros_like / ones_like / empty_like
// and Tensor.fill (of the input's shape). pnnx folds most of them into constants when the shapes
// are known at export; these layers run the ones it leaves in the graph. (ONNX's ConstantOfShape,
// whose shape is an operand's values, is lumen.ConstantOfShape, constant_of_shape.cpp.)
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {

// Writes one value into every element of an output whose shape is the `size` parameter or the
// shape of input 0. The value is a parameter (value / fill_value), an operand (a one-element
// tensor read at run time) or implied by the op (zeros 0, ones 1; empty's values are undefined in
// PyTorch and 0 here). An integer or bool dtype rounds the value as PyTorch would store it, since
// Lumen holds every tensor as floats.
class Full : public Layer {
 public:
  // Reads size (for the sized forms), the value or the input holding it, and dtype.
  explicit Full(const LayerConfig& config);
  // `size`, or the shape of input 0; checks the value operand holds one element.
  Shapes OutputShapes(const Shapes&) const override;
  // Fills the output.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

 private:
  // The value as a tensor of dtype_ holds it.
  float Stored(float value) const;

  bool sized_ = false;  // shape from `size`, not from input 0
  Shape size_;
  int value_input_ = -1;  // the input holding the value, or -1 when value_ is it
  float value_ = 0.0f;
  enum class Rounding { kNone, kInteger, kBool } rounding_ = Rounding::kNone;
};

Full::Full(const LayerConfig& config) : Layer(config) {
  const std::string& type = config.type();
  sized_ = type == "torch.full" || type == "torch.zeros" || type == "torch.ones" ||
           type == "torch.empty" || type.rfind("Tensor.new_", 0) == 0;
  if (sized_) {
    if (config.InputIndexOfRole("size") >= 0 || !config.HasParam("size")) {
      Fail(
          "size must be a list of extents in the model file (a size computed at run time is "
          "not supported)");
    }
    const Parameter& size = config.Param("size");
    const std::vector<int> extents = size.type() == Parameter::Type::kInt
                                         ? std::vector<int>{size.AsInt()}
                                         : config.IntArrayParam("size");
    for (int extent : extents) {
      if (extent < 0) Fail(Concat("size has a negative extent ", extent));
      size_.push_back(static_cast<uint32_t>(extent));
    }
  }
  const bool ones = type.find("ones") != std::string::npos;
  const bool valued = type == "Tensor.fill" || type.find("full") != std::string::npos;
  if (ones) value_ = 1.0f;
  if (valued) {
    const std::string key = type == "Tensor.fill" ? "value" : "fill_value";
    value_input_ = config.InputIndexOfRole(key);
    if (value_input_ < 0) {
      if (!config.HasParam(key)) Fail(Concat("no ", key, " parameter or operand"));
      value_ = config.FloatParam(key);
    }
  }
  const std::string dtype = config.HasParam("dtype") && !config.Param("dtype").IsNone()
                                ? config.StringParam("dtype")
                                : "";
  if (dtype == "torch.bool") {
    rounding_ = Rounding::kBool;
  } else if (dtype == "torch.uint8" || dtype == "torch.int8" || dtype == "torch.short" ||
             dtype == "torch.int" || dtype == "torch.long") {
    rounding_ = Rounding::kInteger;
  }
}

Shapes Full::OutputShapes(const Shapes& input_shapes) const {
  const size_t expected =
      (sized_ && Layer::type().rfind("Tensor.", 0) != 0 ? 0 : 1) + (value_input_ >= 0 ? 1 : 0);
  CheckInputCount(input_shapes, expected);
  if (value_input_ >= 0) {
    const Shape& value = input_shapes[static_cast<size_t>(value_input_)];
    if (ShapeElementCount(value) != 1) {
      Fail(Concat("the value operand must hold one element, got shape ", ShapeToString(value)));
    }
  }
  if (sized_) {
    ShapeElementCount(size_);  // throws on a rank above kMaxRank or a count that overflows
    return {size_};
  }
  return {input_shapes[0]};
}

float Full::Stored(float value) const {
  switch (rounding_) {
    case Rounding::kNone:
      return value;
    case Rounding::kInteger:
      return std::trunc(value);
    case Rounding::kBool:
      return value != 0.0f ? 1.0f : 0.0f;
  }
  return value;
}

void Full::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                   const ForwardContext& /*context*/) const {
  const float value =
      value_input_ >= 0 ? inputs[static_cast<size_t>(value_input_)]->data()[0] : value_;
  outputs[0]->Fill(Stored(value));
}

LUMEN_REGISTER_LAYER(Full, "torch.full", "torch.zeros", "torch.ones", "torch.empty",
                     "Tensor.new_full", "Tensor.new_zeros", "Tensor.new_ones", "Tensor.new_empty",
                     "torch.full_like", "torch.zeros_like", "torch.ones_like", "torch.empty_like",
                     "Tensor.fill");

}  // namespace lumen
