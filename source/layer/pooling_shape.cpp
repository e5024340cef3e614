#include "lumen/layer/pooling_shape.hpp"

#include "lumen/base/error.hpp"

namespace lumen {

void CheckFeatureMapInput(const Layer& layer, const std::vector<Shape>& input_shapes,
                          const std::vector<Shape>& output_shapes) {
  if (input_shapes.size() != 1 || output_shapes.size() != 1 || input_shapes[0].size() != 4) {
    throw Error(Concat(layer.description(), ": expected one (N,C,H,W) input and one output"));
  }
}

void CheckPoolingShapes(const Layer& layer, const std::vector<Shape>& input_shapes,
                        const std::vector<Shape>& output_shapes, int output_h, int output_w) {
  CheckFeatureMapInput(layer, input_shapes, output_shapes);
  const Shape& input = input_shapes[0];
  const Shape expected{input[0], input[1], static_cast<uint32_t>(std::max(output_h, 0)),
                       static_cast<uint32_t>(std::max(output_w, 0))};
  if (output_h < 1 || output_w < 1 || output_shapes[0] != expected) {
    throw Error(Concat(layer.description(), ": input ", ShapeToString(input), " gives output ",
                       ShapeToString(expected), " but the graph says ",
                       ShapeToString(output_shapes[0])));
  }
}

}  // namespace lumen
