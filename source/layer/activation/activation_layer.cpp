#include "layer/activation/activation_layer.hpp"

namespace lumen {

Shapes ActivationLayer::OutputShapes(const Shapes& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  return {input_shapes[0]};
}

void ActivationLayer::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                              const ForwardContext& context) const {
  // LESSON 06 BEGIN: apply the activation to every element of the input
  ApplyActivation(activation_, inputs[0]->data(), outputs[0]->data(), inputs[0]->size(),
                  context.compute);
  // LESSON 06 END
}

}  // namespace lumen
