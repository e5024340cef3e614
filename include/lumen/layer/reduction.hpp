// torch.mean / torch.sum over one or more dimensions (or all of them), with or without keepdim.
#ifndef LUMEN_LAYER_REDUCTION_HPP_
#define LUMEN_LAYER_REDUCTION_HPP_

#include <memory>
#include <vector>

#include "lumen/layer/layer.hpp"

namespace lumen {

// Sums (and for mean divides) over the reduced dimensions, any of them, the batch (dim 0)
// included. Each output element is accumulated in double precision by one task, so the work
// spreads over threads without two tasks adding into the same place.
class Reduction : public Layer {
 public:
  // Reads dim (an int, a list, or absent/None for every dimension) and keepdim; the op type
  // decides sum or mean.
  explicit Reduction(const LayerConfig& config);
  // The input's shape without the reduced dimensions (or with them as 1 under keepdim).
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Plans the walk over input and output memory for these shapes.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Reduces every output element.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  // For each dimension of `input`, whether it is reduced; throws lumen::Error naming the layer
  // when a dim is out of range or listed twice.
  std::vector<bool> ReducedAxes(const Shape& input) const;

  bool mean_ = false;
  bool all_dims_ = false;  // no dim given: reduce everything
  std::vector<int> dims_;
  bool keepdim_ = false;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_REDUCTION_HPP_
