#include "lumen/layer/pooling_shape.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "lumen/base/error.hpp"

namespace lumen {

PlaneSize FeatureMapPlane(const Layer& layer, const std::vector<Shape>& input_shapes) {
  if (input_shapes.size() != 1) {
    throw Error(Concat(layer.description(), ": expected 1 input(s), got ", input_shapes.size()));
  }
  const Shape& input = input_shapes[0];
  const size_t rank = input.size();
  constexpr uint32_t kIntMax = std::numeric_limits<int>::max();
  if ((rank != 3 && rank != 4) || input[rank - 2] == 0 || input[rank - 1] == 0 ||
      input[rank - 2] > kIntMax || input[rank - 1] > kIntMax) {
    throw Error(Concat(layer.description(), ": expected a (C,H,W) or (N,C,H,W) input with ",
                       "non-empty H and W, got ", ShapeToString(input)));
  }
  return PlaneSize{static_cast<int>(input[rank - 2]), static_cast<int>(input[rank - 1])};
}

Shape PooledShape(const Layer& layer, const Shape& input, int output_h, int output_w) {
  Shape output = input;
  output[output.size() - 2] = static_cast<uint32_t>(std::max(output_h, 0));
  output[output.size() - 1] = static_cast<uint32_t>(std::max(output_w, 0));
  if (output_h < 1 || output_w < 1) {
    throw Error(Concat(layer.description(), ": input ", ShapeToString(input),
                       " is too small for the window: the output would be ",
                       ShapeToString(output)));
  }
  return output;
}

}  // namespace lumen
