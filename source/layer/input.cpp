#include "lumen/layer/input.hpp"

#include "lumen/layer/layer_registry.hpp"

namespace lumen {

void Input::Prepare(const std::vector<Shape>& input_shapes,
                    const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 0, 1);
}

void Input::Forward(const std::vector<const TensorBatch*>& /*inputs*/,
                    const std::vector<TensorBatch*>& /*outputs*/) {}

LUMEN_REGISTER_LAYER(Input, "pnnx.Input");

}  // namespace lumen
