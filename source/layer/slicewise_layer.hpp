// SlicewiseLayer: the base of layers that compute every slice of their one input along one
// dimension into an output of the input's shape (the softmax family, cumulative scans). Shape
// inference and locating the dimension in memory are the same for all of them.
#ifndef LUMEN_LAYER_SLICEWISE_LAYER_HPP_
#define LUMEN_LAYER_SLICEWISE_LAYER_HPP_

#include <algorithm>
#include <memory>
#include <vector>

#include "layer/layer.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// Per session, for a layer working along one dimension: an operand seen as (outer, extent,
// inner) blocks around it.
struct AxisSplitState : LayerState {
  AxisSplit split{0, 0, 0};
};

// A layer working along one dimension of its one input (see the top of this file).
class SlicewiseLayer : public Layer {
 public:
  // The input's shape, after checking the dimension against its rank.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& input = input_shapes[0];
    SlicedAxis(input.size());
    return {input};
  }

  // Locates the dimension in memory: the input seen as (outer, extent, inner) blocks around it
  // (all 0 for an empty input, which has nothing to compute; one element for a rank-0 one).
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& /*output_shapes*/,
                       const PrepareContext& /*context*/) const override {
    auto state = std::make_unique<AxisSplitState>();
    const Shape& input = input_shapes[0];
    if (ShapeElementCount(input) == 0) return state;
    state->split =
        input.empty() ? AxisSplit{1, 1, 1} : SplitAroundAxis(input, SlicedAxis(input.size()));
    return state;
  }

 protected:
  using Layer::Layer;

  // The dimension worked along for an input of `rank` (0 for rank 0); throws lumen::Error naming
  // the layer when the layer's dim does not fit the rank.
  virtual size_t SlicedAxis(size_t rank) const = 0;

  // PyTorch's rule for a dim parameter: `dim` converted as Axis does, except that a rank-0 input
  // is a 1-element vector, which accepts dim 0 or -1.
  size_t AxisOrScalar(int dim, size_t rank) const {
    const size_t axis = Axis(dim, std::max<size_t>(rank, 1));
    return rank == 0 ? 0 : axis;
  }

  // The split Prepare made, for Forward.
  static const AxisSplit& SplitOf(const ForwardContext& context) {
    return context.state_as<AxisSplitState>().split;
  }
};

}  // namespace lumen

#endif  // LUMEN_LAYER_SLICEWISE_LAYER_HPP_
