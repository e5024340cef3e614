#include "layer/attribute.hpp"

#include <algorithm>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {

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

std::vector<Shape> ConstantOperand::OutputShapes(const std::vector<Shape>& input_shapes) const {
  CheckInputCount(input_shapes, 0);
  return {shape_};
}

void ConstantOperand::Forward(const std::vector<const Tensor*>& /*inputs*/,
                              const std::vector<Tensor*>& outputs,
                              const ForwardContext& /*context*/) const {
  std::copy(constant_.data(), constant_.data() + constant_.size(), outputs[0]->data());
}

LUMEN_REGISTER_LAYER(ConstantOperand, "pnnx.Attribute");

}  // namespace lumen
