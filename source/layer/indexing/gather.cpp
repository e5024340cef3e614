// torch.gather(input, dim, index): out[i][j][k] = input[i][index[i][j][k]][k] for dim 1 (and so
// on for any rank and dim): the output has the index's shape.
#include <memory>
#include <vector>

#include "layer/indexing/coordinates.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// Per session: the storage strides of the input and of the index (the output's are the index's).
struct GatherState : LayerState {
  std::vector<size_t> input_strides;
  std::vector<size_t> index_strides;
  size_t extent = 0;  // the input's extent along dim
};

}  // namespace

// As PyTorch requires, the index has the input's rank and no larger extent outside dim; its
// values are positions in [0, extent) along dim (a negative one is an error, as in PyTorch),
// checked at run time since they are data.
class Gather : public Layer {
 public:
  // Reads dim.
  explicit Gather(const LayerConfig& config) : Layer(config), dim_(config.IntParam("dim")) {}

  // The index's shape.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override {
    CheckInputCount(input_shapes, 2);
    const Shape& input = input_shapes[0];
    const Shape& index = input_shapes[1];
    const size_t axis = Axis(dim_, input.size());
    if (index.size() != input.size()) {
      Fail(Concat("the index ", ShapeToString(index), " must have the input's rank (input ",
                  ShapeToString(input), ")"));
    }
    for (size_t d = 0; d < input.size(); ++d) {
      if (d != axis && index[d] > input[d]) {
        Fail(Concat("the index ", ShapeToString(index), " is larger than the input ",
                    ShapeToString(input), " in dim ", d));
      }
    }
    if (input[axis] > kMaxExactIndex) {
      Fail(Concat("extent ", input[axis], " along dim ", dim_,
                  " is above 2^24: its positions are not exact as float32 index values"));
    }
    return {index};
  }

  // Computes the strides.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& /*output_shapes*/,
                                      const PrepareContext& /*context*/) const override {
    auto state = std::make_unique<GatherState>();
    state->input_strides = StorageStrides(input_shapes[0]);
    state->index_strides = StorageStrides(input_shapes[1]);
    state->extent = input_shapes[0][Axis(dim_, input_shapes[0].size())];
    return state;
  }

  // Reads every element the index points at.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override {
    const GatherState& state = context.state_as<GatherState>();
    const size_t axis = Axis(dim_, inputs[0]->rank());
    const float* input = inputs[0]->data();
    const float* index = inputs[1]->data();
    float* output = outputs[0]->data();
    ForEachCoordinate(inputs[1]->shape(), [&](const Coordinates& coordinates) {
      const size_t at = StorageOffsetOf(coordinates, state.index_strides);
      Coordinates source = coordinates;
      source[axis] = CheckedPosition(index[at], state.extent);
      output[at] = input[StorageOffsetOf(source, state.input_strides)];
    });
  }

 private:
  // The index value as a position in [0, extent); throws lumen::Error naming the layer otherwise.
  size_t CheckedPosition(float value, size_t extent) const {
    size_t position = 0;
    if (value < 0 || !ResolveIndexValue(value, extent, &position)) {
      Fail(Concat("index ", value, " is out of bounds for dim ", dim_, " of extent ", extent));
    }
    return position;
  }

  int dim_;
};

LUMEN_REGISTER_LAYER(Gather, "torch.gather", "Tensor.gather");

}  // namespace lumen
