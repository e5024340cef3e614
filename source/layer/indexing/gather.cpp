// torch.gather(input, dim, index): out[i][j][k] = input[i][index[i][j][k]][k] for dim 1 (and so
// on for any rank and dim): the output has the index's shape.
#include <vector>

#include "layer/indexing/index_along_dim.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {

// As PyTorch requires, the index has the input's rank and no larger extent outside dim; its
// values are positions in [0, extent) along dim (a negative one is an error, as in PyTorch),
// checked at run time since they are data.
class Gather : public IndexAlongDim {
 public:
  // Reads dim.
  explicit Gather(const LayerConfig& config) : IndexAlongDim(config) {}

  // The index's shape.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 2);
    const Shape& input = input_shapes[0];
    const Shape& index = input_shapes[1];
    const size_t axis = CheckedAxis(input);
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
    return {index};
  }

  // Reads every element the index points at.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const IndexAlongDimState& state = context.state_as<IndexAlongDimState>();
    const std::vector<size_t>& input_strides = state.strides[0];
    const std::vector<size_t>& index_strides = state.strides[1];
    const size_t axis = Axis(dim(), inputs[0]->rank());
    const float* input = inputs[0]->data();
    const float* index = inputs[1]->data();
    float* output = outputs[0]->data();
    ForEachCoordinate(inputs[1]->shape(), [&](const Coordinates& coordinates) {
      const size_t at = StorageOffsetOf(coordinates, index_strides);
      Coordinates source = coordinates;
      source[axis] = CheckedPosition(index[at], state.extent);
      output[at] = input[StorageOffsetOf(source, input_strides)];
    });
  }
};

LUMEN_REGISTER_LAYER(Gather, "torch.gather", "Tensor.gather");

}  // namespace lumen
