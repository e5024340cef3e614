// torch.flatten: merge dimensions start_dim..end_dim into one, keeping the row-major order.
#ifndef LUMEN_LAYER_LAYOUT_FLATTEN_HPP_
#define LUMEN_LAYER_LAYOUT_FLATTEN_HPP_

#include <vector>

#include "layer/view_layer.hpp"

namespace lumen {

// Flattens a range of dimensions of the whole tensor (the batch is dimension 0 like any other;
// negative indices count from the end, as in PyTorch).
class Flatten : public ViewLayer {
 public:
  // Reads start_dim (default 0) and end_dim (default -1).
  explicit Flatten(const LayerConfig& config);
  // Resolves the dimensions against the input's rank and merges their extents.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;

 private:
  int start_dim_ = 0;
  int end_dim_ = -1;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_LAYOUT_FLATTEN_HPP_
