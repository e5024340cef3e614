// nn.Softmax / F.softmax: exp(x) / sum(exp(x)) along one dimension, computed stably.
#ifndef LUMEN_LAYER_ACTIVATION_SOFTMAX_HPP_
#define LUMEN_LAYER_ACTIVATION_SOFTMAX_HPP_

#include <memory>
#include <vector>

#include "layer/layer.hpp"

namespace lumen {

// Softmax along any dimension, the batch (dim 0) included. Subtracting each slice's maximum
// before exp keeps every exponent <= 0, so nothing overflows (softmax is unchanged by a shift).
class Softmax : public Layer {
 public:
  // Reads dim.
  explicit Softmax(const LayerConfig& config);
  // The input's shape, after checking dim against its rank.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Locates dim in memory for these shapes.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Normalises every slice along dim.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  int dim_ = 0;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_ACTIVATION_SOFTMAX_HPP_
