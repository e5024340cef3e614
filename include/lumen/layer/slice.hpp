// Tensor.slice: x[..., start:end:step, ...] along one or several dimensions.
#ifndef LUMEN_LAYER_SLICE_HPP_
#define LUMEN_LAYER_SLICE_HPP_

#include <vector>

#include "lumen/layer/layer.hpp"

namespace lumen {

// Basic slicing with Python's rules: negative indices count from the end, out-of-range bounds
// clamp (pnnx writes an open end as 2147483647), and the step is positive.
class Slice : public Layer {
 public:
  // Reads dim/start/end/step, or the list forms dims/starts/ends/steps.
  explicit Slice(const RuntimeOperator& op);
  // Resolves the bounds against the input shape and checks the graph's output shape.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Gathers each sample.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 private:
  std::vector<int> dims_, starts_, ends_, steps_;
  std::ptrdiff_t offset_ = 0;            // memory offset of the first element read
  std::vector<std::ptrdiff_t> strides_;  // per output sample dimension, in input memory units
};

}  // namespace lumen

#endif  // LUMEN_LAYER_SLICE_HPP_
