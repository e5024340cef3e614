// ViewLayer: the base of the layers that only change a tensor's shape (reshape, flatten, squeeze,
// unsqueeze): they differ in how they check shapes, and all copy elements in row-major order.
#ifndef LUMEN_LAYER_VIEW_LAYER_HPP_
#define LUMEN_LAYER_VIEW_LAYER_HPP_

#include "lumen/layer/layer.hpp"

namespace lumen {

// A layer whose output holds the input's elements, in the same row-major order, in a new shape.
class ViewLayer : public Layer {
 public:
  using Layer::Layer;
  // Copies every sample into its output shape (what PyTorch's view gives).
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 protected:
  // Throws unless `expected` equals the graph's output shape.
  void CheckOutput(const Shape& input, const Shape& expected, const Shape& output) const;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_VIEW_LAYER_HPP_
