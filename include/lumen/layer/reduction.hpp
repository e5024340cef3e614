// torch.mean / torch.sum over one or more dimensions, with or without keepdim.
#ifndef LUMEN_LAYER_REDUCTION_HPP_
#define LUMEN_LAYER_REDUCTION_HPP_

#include <memory>
#include <vector>

#include "lumen/layer/layer.hpp"
#include "lumen/tensor/broadcast.hpp"

namespace lumen {

// Sums (and for mean divides) over the reduced dimensions. The walk is a broadcast in reverse:
// walking the input, each element lands on the output element it broadcasts from.
class Reduction : public Layer {
 public:
  // Reads dim (an int or a list) and keepdim; the op type decides sum or mean.
  explicit Reduction(const RuntimeOperator& op);
  // Checks the dimensions and the graph's output shape; plans the walk.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Reduces each sample, accumulating in double precision.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 private:
  bool mean_ = false;
  std::vector<int> dims_;
  bool keepdim_ = false;
  Shape kept_shape_;  // the output sample shape with reduced dimensions kept as 1
  double scale_ = 1.0;
  std::unique_ptr<BroadcastWalk> walk_;
  std::vector<double> sums_;  // in the kept shape's memory order
  Tensor kept_;               // the result in the kept shape, before dropping dimensions
};

}  // namespace lumen

#endif  // LUMEN_LAYER_REDUCTION_HPP_
