// nn.Softmax2d: the softmax over the channels of every pixel, i.e. along dim -3 of a (C, H, W) or
// (N, C, H, W) input. The layer is the softmax family's (softmax.hpp).
#include "layer/activation/softmax.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// nn.Softmax along dim -3, for inputs of rank 3 or 4 only (as PyTorch checks).
class Softmax2d : public Softmax {
 public:
  explicit Softmax2d(const LayerConfig& config) : Softmax(config, Function::kSoftmax, -3) {}

  // The input's shape, after checking its rank.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& input = input_shapes[0];
    if (input.size() != 3 && input.size() != 4) {
      Fail(Concat("expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, got shape ",
                  ShapeToString(input)));
    }
    return Softmax::OutputShapes(input_shapes);
  }
};

}  // namespace

LUMEN_REGISTER_LAYER(Softmax2d, "nn.Softmax2d");

}  // namespace lumen
