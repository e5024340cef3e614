// nn.AdaptiveAvgPool2d: average pooling to a fixed output size, whatever the input size.
#ifndef LUMEN_LAYER_ADAPTIVE_AVERAGE_POOLING_HPP_
#define LUMEN_LAYER_ADAPTIVE_AVERAGE_POOLING_HPP_

#include "lumen/layer/layer.hpp"

namespace lumen {

// Output cell (i, j) averages input rows [floor(i*H/OH), ceil((i+1)*H/OH)) and the same for
// columns.
class AdaptiveAveragePooling : public Layer {
 public:
  // Reads output_size (a pair, an int, or None entries meaning "keep the input size").
  explicit AdaptiveAveragePooling(const RuntimeOperator& op);
  // Resolves the output size against the input and checks the graph's output shape.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Pools each channel of each sample.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 private:
  int requested_h_ = 0;  // from output_size; 0 (None): same as the input
  int requested_w_ = 0;
  int output_h_ = 0;  // resolved against the input by Prepare
  int output_w_ = 0;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_ADAPTIVE_AVERAGE_POOLING_HPP_
