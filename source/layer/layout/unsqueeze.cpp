// torch.unsqueeze: insert a dimension of extent 1.
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"

namespace lumen {

// Unsqueeze at `dim` of the output (negative counts from the end of the output, as in PyTorch).
class Unsqueeze : public ViewLayer {
 public:
  // Reads dim.
  explicit Unsqueeze(const LayerConfig& config);
  // The input's shape with an extent 1 inserted at dim.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;

 private:
  int dim_ = 0;
};

Unsqueeze::Unsqueeze(const LayerConfig& config) : ViewLayer(config), dim_(config.IntParam("dim")) {}

std::vector<Shape> Unsqueeze::OutputShapes(const std::vector<Shape>& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const Shape& input = input_shapes[0];
  // The new dimension is a dimension of the output, which has one more than the input.
  const size_t axis = Axis(dim_, input.size() + 1);
  Shape output = input;
  output.insert(output.begin() + static_cast<std::ptrdiff_t>(axis), 1);
  return {output};
}

LUMEN_REGISTER_LAYER(Unsqueeze, "torch.unsqueeze", "Tensor.unsqueeze");

}  // namespace lumen
