// Shape checks shared by the pooling layers.
#ifndef LUMEN_LAYER_POOLING_SHAPE_HPP_
#define LUMEN_LAYER_POOLING_SHAPE_HPP_

#include "lumen/layer/layer.hpp"

namespace lumen {

// Checks that a pooling layer maps an (N, C, H, W) input to (N, C, output_h, output_w); the caller
// computes output_h and output_w from the input's H and W. Throws lumen::Error naming `layer`.
void CheckPoolingShapes(const Layer& layer, const std::vector<Shape>& input_shapes,
                        const std::vector<Shape>& output_shapes, int output_h, int output_w);

// Checks one (N, C, H, W) input and one output; throws lumen::Error naming `layer` otherwise.
void CheckFeatureMapInput(const Layer& layer, const std::vector<Shape>& input_shapes,
                          const std::vector<Shape>& output_shapes);

}  // namespace lumen

#endif  // LUMEN_LAYER_POOLING_SHAPE_HPP_
