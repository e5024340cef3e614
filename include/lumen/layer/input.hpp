// pnnx.Input: a graph input. RuntimeGraph::Forward copies the user's batch into its operand.
#ifndef LUMEN_LAYER_INPUT_HPP_
#define LUMEN_LAYER_INPUT_HPP_

#include "lumen/layer/layer.hpp"

namespace lumen {

// Marks where the user's data enters; it computes nothing itself.
class Input : public Layer {
 public:
  // Builds the layer; pnnx.Input has no parameters.
  explicit Input(const RuntimeOperator& op) : Layer(op) {}
  // Checks there is no input and one output.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Does nothing: the graph has already written the input batch into the output operand.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_INPUT_HPP_
