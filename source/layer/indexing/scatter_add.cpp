// torch.scatter_add(input, dim, index, src): a copy of input to which src[i][j] is added at
// [index[i][j]][j] (for dim 0; likewise for any rank and dim). Repeated positions add up.
#include <algorithm>
#include <memory>
#include <vector>

#include "layer/indexing/coordinates.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// Per session: the storage strides of the output (the input's shape), the index and src.
struct ScatterAddState : LayerState {
  std::vector<size_t> output_strides;
  std::vector<size_t> index_strides;
  std::vector<size_t> source_strides;
  size_t extent = 0;  // the input's extent along dim
};

}  // namespace

// The index walks over its own shape, which must be no larger than src's in any dimension and no
// larger than the input's outside dim, all of one rank (PyTorch's rules). Additions run in the
// index's row-major order, one thread, so that repeated positions sum in a fixed order.
class ScatterAdd : public Layer {
 public:
  // Reads dim.
  explicit ScatterAdd(const LayerConfig& config) : Layer(config), dim_(config.IntParam("dim")) {}

  // The input's shape.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override {
    CheckInputCount(input_shapes, 3);
    const Shape& input = input_shapes[0];
    const Shape& index = input_shapes[1];
    const Shape& source = input_shapes[2];
    const size_t axis = Axis(dim_, input.size());
    if (index.size() != input.size() || source.size() != input.size()) {
      Fail(Concat("input ", ShapeToString(input), ", index ", ShapeToString(index), " and src ",
                  ShapeToString(source), " must have the same rank"));
    }
    for (size_t d = 0; d < input.size(); ++d) {
      if (index[d] > source[d] || (d != axis && index[d] > input[d])) {
        Fail(Concat("the index ", ShapeToString(index), " must be no larger than src ",
                    ShapeToString(source), " in any dim, nor than the input ", ShapeToString(input),
                    " outside dim ", dim_));
      }
    }
    if (input[axis] > kMaxExactIndex) {
      Fail(Concat("extent ", input[axis], " along dim ", dim_,
                  " is above 2^24: its positions are not exact as float32 index values"));
    }
    return {input};
  }

  // Computes the strides.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& /*output_shapes*/,
                                      const PrepareContext& /*context*/) const override {
    auto state = std::make_unique<ScatterAddState>();
    state->output_strides = StorageStrides(input_shapes[0]);
    state->index_strides = StorageStrides(input_shapes[1]);
    state->source_strides = StorageStrides(input_shapes[2]);
    state->extent = input_shapes[0][Axis(dim_, input_shapes[0].size())];
    return state;
  }

  // Copies the input, then adds every src element at its indexed position.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override {
    const ScatterAddState& state = context.state_as<ScatterAddState>();
    const size_t axis = Axis(dim_, inputs[0]->rank());
    const float* index = inputs[1]->data();
    const float* source = inputs[2]->data();
    float* output = outputs[0]->data();
    std::copy(inputs[0]->data(), inputs[0]->data() + inputs[0]->size(), output);
    ForEachCoordinate(inputs[1]->shape(), [&](const Coordinates& coordinates) {
      const float value = index[StorageOffsetOf(coordinates, state.index_strides)];
      size_t position = 0;
      if (value < 0 || !ResolveIndexValue(value, state.extent, &position)) {
        Fail(Concat("index ", value, " is out of bounds for dim ", dim_, " of extent ",
                    state.extent));
      }
      Coordinates target = coordinates;
      target[axis] = position;
      output[StorageOffsetOf(target, state.output_strides)] +=
          source[StorageOffsetOf(coordinates, state.source_strides)];
    });
  }

 private:
  int dim_;
};

LUMEN_REGISTER_LAYER(ScatterAdd, "torch.scatter_add", "Tensor.scatter_add");

}  // namespace lumen
