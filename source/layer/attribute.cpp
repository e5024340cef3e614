// pnnx.Attribute: a constant tensor stored in the .pnnx.bin (a grid, a learned scale, ...) that
// the graph uses as an operand.
#include <algorithm>
#include <vector>

#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {

// Produces its `@data` weight as an operand, whatever the shapes of the model's inputs.
class ConstantOperand : public Layer {
 public:
  // Reads the `@data` weight and checks its shape.
  explicit ConstantOperand(const LayerConfig& config);
  // No inputs; the output has the weight's shape.
  Shapes OutputShapes(const Shapes&) const override;
  // Writes the constant into the output. It is written on every run, so the output's memory may
  // be shared with other operands between runs.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;
  // The weight: what a pass may fold into the layer that reads it.
  const Tensor* ConstantValue() const override { return &constant_; }

 private:
  Shape shape_;
  Tensor constant_;  // the weight, in storage order
};

ConstantOperand::ConstantOperand(const LayerConfig& config) : Layer(config) {
  const std::vector<int>& shape = config.GetAttribute("data").shape;
  for (int extent : shape) {
    if (extent < 0) Fail(Concat("the constant has a negative extent ", extent));
    shape_.push_back(static_cast<uint32_t>(extent));
  }
  ShapeElementCount(shape_);  // throws on a rank above kMaxRank or a count that overflows
  // Converted to storage order once, so that every run is one plain copy.
  constant_ = Tensor::FromRowMajor(config.AttributeFloats("data"), shape_);
}

Shapes ConstantOperand::OutputShapes(const Shapes& input_shapes) const {
  CheckInputCount(input_shapes, 0);
  return {shape_};
}

void ConstantOperand::Forward(const InputTensors& /*inputs*/, const OutputTensors& outputs,
                              const ForwardContext& /*context*/) const {
  std::copy(constant_.data(), constant_.data() + constant_.size(), outputs[0]->data());
}

LUMEN_REGISTER_LAYER(ConstantOperand, "pnnx.Attribute");

}  // namespace lumen
