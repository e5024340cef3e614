// ViewLayer: the base of the layers that only change a tensor's shape (reshape and view, flatten,
// squeeze, unsqueeze): they differ in how they compute the output shape, and all copy the
// elements in row-major order.
#ifndef LUMEN_LAYER_VIEW_LAYER_HPP_
#define LUMEN_LAYER_VIEW_LAYER_HPP_

#include "base/thread_pool.hpp"
#include "layer/layer.hpp"

namespace lumen {

// A layer whose one output holds its one input's elements, in the same row-major order, in a new
// shape. Subclasses say only how the shape changes (ViewShape); the checks and the copy are shared.
class ViewLayer : public Layer {
 public:
  using Layer::Layer;
  // Checks that there is one input and returns its ViewShape.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Copies the input into the output's shape (what PyTorch's view gives).
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 protected:
  // The output's shape for an input of shape `input`; throws lumen::Error (through Fail) when the
  // layer cannot view it so. The default keeps the shape (a plain copy).
  virtual Shape ViewShape(const Shape& input) const { return input; }
};

// Copies `source` into `target` in row-major order, as PyTorch's view/reshape would, spread over
// `pool` (may be null) when there is enough work. The element counts must match. Allocates
// nothing.
void CopyRowMajorOrder(const Tensor& source, Tensor* target, ThreadPool* pool);

}  // namespace lumen

#endif  // LUMEN_LAYER_VIEW_LAYER_HPP_
