#include "lumen/layer/output.hpp"

#include "lumen/base/error.hpp"
#include "lumen/layer/layer_registry.hpp"

namespace lumen {

void Output::Prepare(const std::vector<Shape>& input_shapes,
                     const std::vector<Shape>& output_shapes) {
  if (input_shapes.empty() || !output_shapes.empty()) {
    Fail(Concat("expected one or more inputs and no output, got ", input_shapes.size(), " and ",
                output_shapes.size()));
  }
}

void Output::Forward(const std::vector<const TensorBatch*>& /*inputs*/,
                     const std::vector<TensorBatch*>& /*outputs*/) {}

LUMEN_REGISTER_LAYER(Output, "pnnx.Output");

}  // namespace lumen
