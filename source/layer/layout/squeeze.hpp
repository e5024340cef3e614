// torch.squeeze: remove dimensions of extent 1 (one given dim, a list, or all of them).
#ifndef LUMEN_LAYER_LAYOUT_SQUEEZE_HPP_
#define LUMEN_LAYER_LAYOUT_SQUEEZE_HPP_

#include <vector>

#include "layer/view_layer.hpp"

namespace lumen {

// Squeeze with PyTorch's rules: without dim every extent-1 dimension goes (the batch too, when it
// is 1: it is a dimension like any other); a named dimension whose extent is not 1 is left alone.
class Squeeze : public ViewLayer {
 public:
  // Reads dim: an int, a list, or absent / None for "every extent-1 dimension".
  explicit Squeeze(const LayerConfig& config);
  // The input's shape without the squeezed dimensions.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;

 private:
  bool all_ = true;
  std::vector<int> dims_;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_LAYOUT_SQUEEZE_HPP_
