// torch.permute / Tensor.permute: reorder dimensions.
#ifndef LUMEN_LAYER_PERMUTE_HPP_
#define LUMEN_LAYER_PERMUTE_HPP_

#include <vector>

#include "lumen/layer/layer.hpp"

namespace lumen {

// Output dimension j is input dimension dims[j]; the batch must stay first. Each output element is
// gathered from the input with the input's memory stride for the dimension it came from.
class Permute : public Layer {
 public:
  // Reads dims (full dimensions, batch first; negative counts from the end).
  explicit Permute(const RuntimeOperator& op);
  // Checks dims is a permutation keeping the batch first, and the graph's output shape.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Gathers each sample.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 protected:
  // For layers that build the permutation themselves (Transpose).
  explicit Permute(const RuntimeOperator& op, std::vector<int> dims) : Layer(op), dims_(dims) {}

  std::vector<int> dims_;

 private:
  std::vector<std::ptrdiff_t> strides_;  // per output sample dimension, in input memory units
};

}  // namespace lumen

#endif  // LUMEN_LAYER_PERMUTE_HPP_
