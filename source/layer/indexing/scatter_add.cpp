// torch.scatter_add(input, dim, index, src): a copy of input to which src[i][j] is added at
// [index[i][j]][j] (for dim 0; likewise for any rank and dim). Repeated positions add up.
#include <algorithm>
#include <vector>

#include "layer/indexing/index_along_dim.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {

// The index walks over its own shape, which must be no larger than src's in any dimension and no
// larger than the input's outside dim, all of one rank (PyTorch's rules). Additions run in the
// index's row-major order, one thread, so that repeated positions sum in a fixed order.
class ScatterAdd : public IndexAlongDim {
 public:
  // Reads dim.
  explicit ScatterAdd(const LayerConfig& config) : IndexAlongDim(config) {}

  // The input's shape.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 3);
    const Shape& input = input_shapes[0];
    const Shape& index = input_shapes[1];
    const Shape& source = input_shapes[2];
    const size_t axis = CheckedAxis(input);
    if (index.size() != input.size() || source.size() != input.size()) {
      Fail(Concat("input ", ShapeToString(input), ", index ", ShapeToString(index), " and src ",
                  ShapeToString(source), " must have the same rank"));
    }
    for (size_t d = 0; d < input.size(); ++d) {
      if (index[d] > source[d] || (d != axis && index[d] > input[d])) {
        Fail(Concat("the index ", ShapeToString(index), " must be no larger than src ",
                    ShapeToString(source), " in any dim, nor than the input ", ShapeToString(input),
                    " outside dim ", dim()));
      }
    }
    return {input};
  }

  // Copies the input, then adds every src element at its indexed position.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const IndexAlongDimState& state = context.state_as<IndexAlongDimState>();
    const std::vector<size_t>& output_strides = state.strides[0];  // the input's shape
    const std::vector<size_t>& index_strides = state.strides[1];
    const std::vector<size_t>& source_strides = state.strides[2];
    const size_t axis = Axis(dim(), inputs[0]->rank());
    const float* index = inputs[1]->data();
    const float* source = inputs[2]->data();
    float* output = outputs[0]->data();
    std::copy(inputs[0]->data(), inputs[0]->data() + inputs[0]->size(), output);
    ForEachCoordinate(inputs[1]->shape(), [&](const Coordinates& coordinates) {
      Coordinates target = coordinates;
      target[axis] =
          CheckedPosition(index[StorageOffsetOf(coordinates, index_strides)], state.extent);
      output[StorageOffsetOf(target, output_strides)] +=
          source[StorageOffsetOf(coordinates, source_strides)];
    });
  }
};

LUMEN_REGISTER_LAYER(ScatterAdd, "torch.scatter_add", "Tensor.scatter_add");

}  // namespace lumen
