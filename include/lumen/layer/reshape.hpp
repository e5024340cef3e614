// Tensor.reshape / Tensor.view: the same elements in a new shape (one -1 extent is inferred).
#ifndef LUMEN_LAYER_RESHAPE_HPP_
#define LUMEN_LAYER_RESHAPE_HPP_

#include <vector>

#include "lumen/layer/view_layer.hpp"

namespace lumen {

// Reshape with PyTorch's row-major semantics; the batch dimension must stay where it is.
class Reshape : public ViewLayer {
 public:
  // Reads shape (the full target shape, batch first, possibly with one -1).
  explicit Reshape(const RuntimeOperator& op);
  // Resolves -1, checks the element count, the batch, and the graph's output shape.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;

 private:
  std::vector<int> shape_;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_RESHAPE_HPP_
