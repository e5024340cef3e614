// nn.Softmax / F.softmax: exp(x) / sum(exp(x)) along one dimension, computed stably.
#ifndef LUMEN_LAYER_SOFTMAX_HPP_
#define LUMEN_LAYER_SOFTMAX_HPP_

#include "lumen/layer/layer.hpp"
#include "lumen/tensor/strided.hpp"

namespace lumen {

// Softmax along any dimension but the batch. Subtracting each slice's maximum before exp keeps
// every exponent <= 0, so nothing overflows (softmax is unchanged by a shift).
class Softmax : public Layer {
 public:
  // Reads dim.
  explicit Softmax(const RuntimeOperator& op);
  // Checks output shape == input shape and locates dim in memory.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Normalises every slice along dim.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 private:
  int dim_ = 0;
  AxisSplit split_{};
};

}  // namespace lumen

#endif  // LUMEN_LAYER_SOFTMAX_HPP_
