// torch.cat: join 1..N tensors along one dimension.
#ifndef LUMEN_LAYER_LAYOUT_CONCATENATE_HPP_
#define LUMEN_LAYER_LAYOUT_CONCATENATE_HPP_

#include <memory>
#include <vector>

#include "layer/layer.hpp"

namespace lumen {

// Concatenation along any dimension of the whole tensors (dim 0, the batch, included).
//
// Around the joined dimension a tensor is (outer, extent, inner) blocks in memory (strided.hpp),
// so the output's block o is input 0's block o, then input 1's, ...: one copy per input and block.
// Every input must have the same rank and the same extents outside dim, as PyTorch requires.
class Concatenate : public Layer {
 public:
  // Reads dim.
  explicit Concatenate(const LayerConfig& config);
  // The first input's shape with the extents along dim summed; fails, naming the expected and the
  // actual shape, when an input's rank or another extent differs.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Computes the block sizes for these shapes.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Copies each input's blocks into place.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  int dim_ = 0;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_LAYOUT_CONCATENATE_HPP_
