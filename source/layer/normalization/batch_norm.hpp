// nn.BatchNorm2d in inference mode: a per-channel scale and shift from the running statistics.
#ifndef LUMEN_LAYER_NORMALIZATION_BATCH_NORM_HPP_
#define LUMEN_LAYER_NORMALIZATION_BATCH_NORM_HPP_

#include <vector>

#include "layer/layer.hpp"

namespace lumen {

// y = (x - running_mean) / sqrt(running_var + eps) * weight + bias, folded once into y = x*a + b,
// for an (N, num_features, H, W) input of any N, H and W.
class BatchNorm : public Layer {
 public:
  // Reads eps, num_features, affine and the four weight vectors, and folds them.
  explicit BatchNorm(const LayerConfig& config);
  // The input's shape, after checking it is (N, num_features, H, W).
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Scales and shifts every plane by its channel's factors.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  std::vector<float> scale_;  // weight / sqrt(var + eps), per channel
  std::vector<float> shift_;  // bias - mean * scale, per channel
};

}  // namespace lumen

#endif  // LUMEN_LAYER_NORMALIZATION_BATCH_NORM_HPP_
