// torch.clone / Tensor.clone: a copy of the tensor. memory_format only changes PyTorch's strides,
// never the values or the logical shape, so every format gives the same copy here.
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"

namespace lumen {

// Copies its input unchanged.
class Clone : public ViewLayer {
 public:
  using ViewLayer::ViewLayer;

  // The input's shape.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    return {input_shapes[0]};
  }
};

LUMEN_REGISTER_LAYER(Clone, "torch.clone", "Tensor.clone");

}  // namespace lumen
