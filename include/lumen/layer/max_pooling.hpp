// nn.MaxPool2d: the maximum over each sliding window.
#ifndef LUMEN_LAYER_MAX_POOLING_HPP_
#define LUMEN_LAYER_MAX_POOLING_HPP_

#include <vector>

#include "lumen/kernel/max_pooling_kernels.hpp"
#include "lumen/layer/layer.hpp"
#include "lumen/layer/window.hpp"

namespace lumen {

// Max pooling with stride, padding (which never wins: it counts as -infinity), dilation, ceil_mode.
class MaxPooling : public Layer {
 public:
  // Reads the nn.MaxPool2d parameters; return_indices must be False.
  explicit MaxPooling(const RuntimeOperator& op);
  // Checks the output size the window and ceil_mode give.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Pools each channel of each sample (separably when dilation is 1).
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 private:
  Window2d window_;
  bool ceil_mode_ = false;
  PoolingPlane plane_;
  std::vector<float> workspace_;  // per channel: input_w x output_h, for the separable kernel
};

}  // namespace lumen

#endif  // LUMEN_LAYER_MAX_POOLING_HPP_
