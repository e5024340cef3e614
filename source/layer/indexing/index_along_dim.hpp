// IndexAlongDim: the base of torch.gather and torch.scatter_add, whose input 1 is an index of
// input 0's rank holding positions along `dim` of input 0, one per element. Both walk the index
// element by element, so what they prepare is each operand's storage strides.
#ifndef LUMEN_LAYER_INDEXING_INDEX_ALONG_DIM_HPP_
#define LUMEN_LAYER_INDEXING_INDEX_ALONG_DIM_HPP_

#include <memory>
#include <vector>

#include "layer/indexing/coordinates.hpp"
#include "layer/layer.hpp"
#include "lumen/error.hpp"

namespace lumen {

// Per session: the storage strides of every operand (input, index, ...), and the input's extent
// along dim.
struct IndexAlongDimState : LayerState {
  std::vector<std::vector<size_t>> strides;
  size_t extent = 0;
};

// A layer addressing input 0 along dim through the index, input 1 (see the top of this file).
class IndexAlongDim : public Layer {
 public:
  // Computes every operand's strides.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& /*output_shapes*/,
                       const PrepareContext& /*context*/) const override {
    auto state = std::make_unique<IndexAlongDimState>();
    for (const Shape& shape : input_shapes) state->strides.push_back(StorageStrides(shape));
    state->extent = input_shapes[0][Axis(dim_, input_shapes[0].size())];
    return state;
  }

 protected:
  // Reads dim.
  explicit IndexAlongDim(const LayerConfig& config) : Layer(config), dim_(config.IntParam("dim")) {}

  // Checks that the input's extent along dim holds positions float32 represents exactly (index
  // values reach layers as floats); returns dim as an axis of `input`.
  size_t CheckedAxis(const Shape& input) const {
    const size_t axis = Axis(dim_, input.size());
    if (input[axis] > kMaxExactIndex) {
      Fail(Concat("extent ", input[axis], " along dim ", dim_,
                  " is above 2^24: its positions are not exact as float32 index values"));
    }
    return axis;
  }

  // The index value as a position in [0, extent); throws lumen::Error naming the layer otherwise
  // (a negative one too, as in PyTorch).
  size_t CheckedPosition(float value, size_t extent) const {
    size_t position = 0;
    if (value < 0 || !ResolveIndexValue(value, extent, &position)) {
      Fail(Concat("index ", value, " is out of bounds for dim ", dim_, " of extent ", extent));
    }
    return position;
  }

  int dim() const { return dim_; }

 private:
  int dim_;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_INDEXING_INDEX_ALONG_DIM_HPP_
