// pnnx.Output: a graph output. RuntimeGraph::Forward returns the batches of its input operands.
#ifndef LUMEN_LAYER_OUTPUT_HPP_
#define LUMEN_LAYER_OUTPUT_HPP_

#include "lumen/layer/layer.hpp"

namespace lumen {

// Marks which operands leave the graph; it computes nothing itself.
class Output : public Layer {
 public:
  // Builds the layer; pnnx.Output has no parameters.
  explicit Output(const RuntimeOperator& op) : Layer(op) {}
  // Checks there is at least one input and no output.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Does nothing: the graph reads the results straight from the input operands.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_OUTPUT_HPP_
