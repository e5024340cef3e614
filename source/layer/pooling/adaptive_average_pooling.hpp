// nn.AdaptiveAvgPool2d: average pooling to a fixed output size, whatever the input size.
#ifndef LUMEN_LAYER_POOLING_ADAPTIVE_AVERAGE_POOLING_HPP_
#define LUMEN_LAYER_POOLING_ADAPTIVE_AVERAGE_POOLING_HPP_

#include <vector>

#include "layer/layer.hpp"

namespace lumen {

// Output cell (i, j) averages input rows [floor(i*H/OH), ceil((i+1)*H/OH)) and the same for
// columns, over every plane of a (C,H,W) or (N,C,H,W) input.
class AdaptiveAveragePooling : public Layer {
 public:
  // Reads output_size (a pair, an int, or None entries meaning "keep the input size").
  explicit AdaptiveAveragePooling(const LayerConfig& config);
  // The input with its plane resized to output_size (None entries resolved against the input).
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Averages each output cell's bin of every plane.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  int requested_h_ = 0;  // from output_size; 0 (None): same as the input
  int requested_w_ = 0;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_POOLING_ADAPTIVE_AVERAGE_POOLING_HPP_
