// torch.sum / torch.mean / torch.amax / torch.amin over one or more dimensions (or all of them),
// with or without keepdim.
#ifndef LUMEN_LAYER_ARITHMETIC_REDUCTION_HPP_
#define LUMEN_LAYER_ARITHMETIC_REDUCTION_HPP_

#include <memory>
#include <vector>

#include "layer/layer.hpp"

namespace lumen {

// Sums (and for mean divides), or takes the largest or smallest value, over the reduced
// dimensions, any of them, the batch (dim 0) included. Each output element is accumulated by one
// task (sums in double precision), so the work spreads over threads without two tasks writing
// into the same place. Reducing every dimension gives a rank-0 tensor, as in PyTorch.
class Reduction : public Layer {
 public:
  // What an output element is: the sum, the mean, the largest or the smallest of its inputs.
  enum class Kind { kSum, kMean, kMax, kMin };

  // Reads dim (an int, a list, or absent/None/() for every dimension) and keepdim; the op type
  // decides the kind.
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

  // Runs the planned walk, combining input values with `accumulator` (see reduction.cpp).
  template <typename Accumulator>
  void Reduce(const Accumulator& accumulator, const Tensor& input, Tensor* output,
              const ForwardContext& context) const;

  Kind kind_ = Kind::kSum;
  bool all_dims_ = false;  // no dim given: reduce everything
  std::vector<int> dims_;
  bool keepdim_ = false;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_ARITHMETIC_REDUCTION_HPP_
