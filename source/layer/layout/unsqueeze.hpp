// torch.unsqueeze: insert a dimension of extent 1.
#ifndef LUMEN_LAYER_LAYOUT_UNSQUEEZE_HPP_
#define LUMEN_LAYER_LAYOUT_UNSQUEEZE_HPP_

#include <vector>

#include "layer/view_layer.hpp"

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

}  // namespace lumen

#endif  // LUMEN_LAYER_LAYOUT_UNSQUEEZE_HPP_
