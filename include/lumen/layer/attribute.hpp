// pnnx.Attribute: a constant tensor stored in the .pnnx.bin (a grid, a learned scale, ...).
#ifndef LUMEN_LAYER_ATTRIBUTE_HPP_
#define LUMEN_LAYER_ATTRIBUTE_HPP_

#include <vector>

#include "lumen/layer/layer.hpp"

namespace lumen {

// Produces its `@data` weight as an operand.
class Attribute : public Layer {
 public:
  // Reads the `@data` weight.
  explicit Attribute(const RuntimeOperator& op);
  // Checks that the output operand has the weight's shape.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Writes the constant into the output. It is written on every run, so the output's memory may
  // be shared with other operands between runs.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 private:
  std::vector<int> shape_;
  std::vector<float> values_;  // row-major
};

}  // namespace lumen

#endif  // LUMEN_LAYER_ATTRIBUTE_HPP_
