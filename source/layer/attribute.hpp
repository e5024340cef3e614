// pnnx.Attribute: a constant tensor stored in the .pnnx.bin (a grid, a learned scale, ...) that
// the graph uses as an operand.
#ifndef LUMEN_LAYER_ATTRIBUTE_HPP_
#define LUMEN_LAYER_ATTRIBUTE_HPP_

#include <vector>

#include "layer/layer.hpp"

namespace lumen {

// Produces its `@data` weight as an operand, whatever the shapes of the model's inputs.
class ConstantOperand : public Layer {
 public:
  // Reads the `@data` weight and checks its shape.
  explicit ConstantOperand(const LayerConfig& config);
  // No inputs; the output has the weight's shape.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Writes the constant into the output. It is written on every run, so the output's memory may
  // be shared with other operands between runs.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  Shape shape_;
  Tensor constant_;  // the weight, in storage order
};

}  // namespace lumen

#endif  // LUMEN_LAYER_ATTRIBUTE_HPP_
