// Tensor.slice: x[..., start:end:step, ...] along one or several dimensions.
#ifndef LUMEN_LAYER_LAYOUT_SLICE_HPP_
#define LUMEN_LAYER_LAYOUT_SLICE_HPP_

#include <memory>
#include <vector>

#include "layer/layer.hpp"
#include "lumen/tensor.hpp"

namespace lumen {

// Basic slicing with Python's rules: negative indices count from the end, out-of-range bounds
// clamp (pnnx writes an open end as 2147483647), and the step is positive. Dimensions are of the
// whole tensor (0 is the batch). Several slices apply one after another, as chained indexing
// would, so a dimension may be sliced twice.
class Slice : public Layer {
 public:
  // Reads dim/start/end/step, or the list forms dims/starts/ends/steps.
  explicit Slice(const LayerConfig& config);
  // The input's shape with each sliced dimension's extent.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Computes where the first element is and the step of each dimension in the input's memory.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Gathers the slice.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  // What slicing an input of this shape gives: the output shape, the memory offset of its first
  // element and each dimension's memory step in the input.
  struct Plan {
    Shape shape;
    std::ptrdiff_t offset = 0;
    std::vector<std::ptrdiff_t> strides;
  };
  // Resolves every slice against the input shape.
  Plan MakePlan(const Shape& input) const;

  std::vector<int> dims_, starts_, ends_, steps_;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_LAYOUT_SLICE_HPP_
