// Tensor.reshape_as: x.reshape_as(other), x's elements in other's shape (other's values unused).
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"

namespace lumen {

// A reshape whose target shape is its second operand's: it follows that operand's size at run
// time, as PyTorch does.
class ReshapeAs : public ViewLayer {
 public:
  using ViewLayer::ViewLayer;

  // The second input's shape; fails when the element counts differ.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 2);
    const size_t count = ShapeElementCount(input_shapes[0]);
    if (count != ShapeElementCount(input_shapes[1])) {
      Fail(Concat("shape ", ShapeToString(input_shapes[1]), " is invalid for input ",
                  ShapeToString(input_shapes[0]), " of ", count, " element(s)"));
    }
    return {input_shapes[1]};
  }
};

LUMEN_REGISTER_LAYER(ReshapeAs, "Tensor.reshape_as", "Tensor.view_as");

}  // namespace lumen
