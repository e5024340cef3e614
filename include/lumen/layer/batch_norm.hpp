// nn.BatchNorm2d in inference mode: a per-channel scale and shift from the running statistics.
#ifndef LUMEN_LAYER_BATCH_NORM_HPP_
#define LUMEN_LAYER_BATCH_NORM_HPP_

#include <vector>

#include "lumen/layer/layer.hpp"

namespace lumen {

// y = (x - running_mean) / sqrt(running_var + eps) * weight + bias, folded once into y = x*a + b.
class BatchNorm : public Layer {
 public:
  // Reads eps, num_features, affine and the four weight vectors, and folds them.
  explicit BatchNorm(const RuntimeOperator& op);
  // Checks an (N, num_features, H, W) input and an output of the same shape.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Scales and shifts every channel.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 private:
  std::vector<float> scale_;  // weight / sqrt(var + eps), per channel
  std::vector<float> shift_;  // bias - mean * scale, per channel
};

}  // namespace lumen

#endif  // LUMEN_LAYER_BATCH_NORM_HPP_
