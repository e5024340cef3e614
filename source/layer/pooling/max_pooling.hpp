// nn.MaxPool2d and nn.MaxPool1d: the maximum over each sliding window.
#ifndef LUMEN_LAYER_POOLING_MAX_POOLING_HPP_
#define LUMEN_LAYER_POOLING_MAX_POOLING_HPP_

#include <memory>
#include <vector>

#include "layer/layer.hpp"
#include "math/window.hpp"

namespace lumen {

// Max pooling with stride, padding (which never wins: it counts as -infinity), dilation and
// ceil_mode, over every plane of a (C,H,W) or (N,C,H,W) input. The 1-D form pools a (C,L) or
// (N,C,L) input along L: each sample's C x L plane with a window of height 1.
class MaxPooling : public Layer {
 public:
  // Reads the nn.MaxPool2d (nn.MaxPool1d) parameters; return_indices must be False.
  explicit MaxPooling(const LayerConfig& config);
  // The input with its plane pooled (PyTorch's size formula, computed in 64 bits: a window too
  // large for the input is refused here, before anything runs).
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Reserves the separable kernel's scratch.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Pools every plane (separably when dilation is 1).
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  bool one_dimensional_ = false;  // nn.MaxPool1d / F.max_pool1d
  Window2d window_;
  bool ceil_mode_ = false;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_POOLING_MAX_POOLING_HPP_
