// Tensor.reshape / Tensor.view / torch.reshape: the same elements in a new shape.
#ifndef LUMEN_LAYER_LAYOUT_RESHAPE_HPP_
#define LUMEN_LAYER_LAYOUT_RESHAPE_HPP_

#include <vector>

#include "layer/view_layer.hpp"

namespace lumen {

// Reshape with PyTorch's row-major semantics. The target is the whole shape, batch included, and
// one extent may be -1 (inferred from the element count). pnnx writes the shape traced at export
// (`shape=(1,3,85,80,80)`), so at another input size a hard-coded extent may no longer fit: the
// layer then fails, as PyTorch would, naming the input and the target shape. (No guessing: a
// traced shape that should have followed the input size is the export's problem; YOLOv5's head
// reshapes inside the Detect op, so it needs no rule here.)
class Reshape : public ViewLayer {
 public:
  // Reads shape (an int list, or a single int for a 1-D target); checks that every extent is -1
  // or non-negative and that at most one is -1.
  explicit Reshape(const LayerConfig& config);
  // The target shape with -1 resolved; fails unless it holds the input's element count.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;

 private:
  std::vector<int> shape_;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_LAYOUT_RESHAPE_HPP_
