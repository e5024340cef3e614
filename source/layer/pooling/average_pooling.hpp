// nn.AvgPool2d and nn.AvgPool1d: the mean over each sliding window.
#ifndef LUMEN_LAYER_POOLING_AVERAGE_POOLING_HPP_
#define LUMEN_LAYER_POOLING_AVERAGE_POOLING_HPP_

#include <vector>

#include "layer/layer.hpp"
#include "math/window.hpp"

namespace lumen {

// Average pooling with stride, padding, ceil_mode, count_include_pad and divisor_override, over
// every plane of a (C,H,W) or (N,C,H,W) input. The 1-D form pools a (C,L) or (N,C,L) input along
// L: each sample's C x L plane with a window of height 1.
class AveragePooling : public Layer {
 public:
  // Reads the nn.AvgPool2d parameters.
  explicit AveragePooling(const LayerConfig& config);
  // The input with its plane pooled (PyTorch's size formula, computed in 64 bits).
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Averages every window of every plane.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  bool one_dimensional_ = false;  // nn.AvgPool1d / F.avg_pool1d
  Window2d window_;
  bool ceil_mode_ = false;
  bool count_include_pad_ = true;
  int divisor_override_ = 0;  // 0: none
};

}  // namespace lumen

#endif  // LUMEN_LAYER_POOLING_AVERAGE_POOLING_HPP_
