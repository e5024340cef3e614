// nn.AvgPool2d: the mean over each sliding window.
#ifndef LUMEN_LAYER_AVERAGE_POOLING_HPP_
#define LUMEN_LAYER_AVERAGE_POOLING_HPP_

#include "lumen/layer/layer.hpp"
#include "lumen/layer/window.hpp"

namespace lumen {

// Average pooling with stride, padding, ceil_mode, count_include_pad and divisor_override.
class AveragePooling : public Layer {
 public:
  // Reads the nn.AvgPool2d parameters.
  explicit AveragePooling(const RuntimeOperator& op);
  // Checks the output size the window and ceil_mode give.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Pools each channel of each sample.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 private:
  Window2d window_;
  bool ceil_mode_ = false;
  bool count_include_pad_ = true;
  int divisor_override_ = 0;  // 0: none
};

}  // namespace lumen

#endif  // LUMEN_LAYER_AVERAGE_POOLING_HPP_
