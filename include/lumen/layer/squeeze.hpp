// torch.squeeze: remove dimensions of extent 1 (one given dim, a list, or all of them).
#ifndef LUMEN_LAYER_SQUEEZE_HPP_
#define LUMEN_LAYER_SQUEEZE_HPP_

#include <vector>

#include "lumen/layer/view_layer.hpp"

namespace lumen {

// Squeeze with PyTorch's rule: a named dimension whose extent is not 1 is left alone.
class Squeeze : public ViewLayer {
 public:
  // Reads dim (an int, a list, or absent for "every extent-1 dimension but the batch").
  explicit Squeeze(const RuntimeOperator& op);
  // Computes the squeezed shape and checks the graph's output shape.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;

 private:
  std::vector<int> dims_;  // empty: all
};

}  // namespace lumen

#endif  // LUMEN_LAYER_SQUEEZE_HPP_
