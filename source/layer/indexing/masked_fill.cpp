// Tensor.masked_fill(mask, value): the input with `value` wherever the mask is True. The mask
// broadcasts to the input, whose shape the result keeps (PyTorch refuses a mask that would
// enlarge it).
#include <vector>

#include "layer/indexing/masked_choice.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// A MaskedChoice over ($mask, value, $input); value is a number or a rank-0 operand.
class MaskedFill : public MaskedChoice {
 public:
  // Finds the input, the mask and the value.
  explicit MaskedFill(const LayerConfig& config)
      : MaskedChoice(config, {"mask", 1}, {"value", 2}, {"input", 0}) {}

 protected:
  // The result must have the input's shape.
  void CheckOutputShape(const std::vector<Shape>& input_shapes,
                        const Shape& output) const override {
    if (output != input_shapes[0]) {
      Fail(Concat("the mask and value (", ShapeToString(input_shapes[1]),
                  ") must broadcast to the input's shape ", ShapeToString(input_shapes[0]),
                  " without enlarging it, got ", ShapeToString(output)));
    }
  }
};

}  // namespace

LUMEN_REGISTER_LAYER(MaskedFill, "Tensor.masked_fill");

}  // namespace lumen
