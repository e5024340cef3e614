// torch.flatten: merge dimensions start_dim..end_dim into one, keeping the row-major order.
#ifndef LUMEN_LAYER_FLATTEN_HPP_
#define LUMEN_LAYER_FLATTEN_HPP_

#include "lumen/layer/view_layer.hpp"

namespace lumen {

// Flattens a range of dimensions (negative indices count from the end, as in PyTorch).
class Flatten : public ViewLayer {
 public:
  // Reads start_dim and end_dim.
  explicit Flatten(const RuntimeOperator& op);
  // Resolves the dimensions against the input rank and checks the output shape.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;

 private:
  int start_dim_ = 0;
  int end_dim_ = -1;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_FLATTEN_HPP_
