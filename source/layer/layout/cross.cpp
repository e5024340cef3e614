// torch.cross: the cross product of 3-vectors laid along one dimension of two tensors.
#include <memory>
#include <vector>

#include "layer/indexing/coordinates.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/broadcast.hpp"

namespace lumen {
namespace {

// Per session: the dimension holding the vectors and each operand's strides over the output.
struct CrossState : LayerState {
  size_t axis = 0;
  std::vector<size_t> strides[3];  // input, other, output
};

}  // namespace

// The inputs broadcast against each other; component c of the result is
// a[c+1] * b[c+2] - a[c+2] * b[c+1] (indices mod 3) along dim. Without dim, PyTorch's torch.cross
// takes the first dimension of extent 3 (of the broadcast shape); that dimension must have
// extent 3.
class Cross : public Layer {
 public:
  // Reads dim (None or an int).
  explicit Cross(const LayerConfig& config) : Layer(config) {
    if (config.HasParam("dim") && !config.Param("dim").IsNone()) {
      has_dim_ = true;
      dim_ = config.IntParam("dim");
    }
  }

  // The broadcast shape of the two inputs.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 2);
    if (input_shapes[0].size() != input_shapes[1].size()) {
      Fail(Concat("the inputs must have the same rank, got ", ShapeToString(input_shapes[0]),
                  " and ", ShapeToString(input_shapes[1])));
    }
    const Shape output = BroadcastShapes(input_shapes[0], input_shapes[1]);
    VectorAxis(output);
    return {output};
  }

  // Finds the vector dimension and the strides.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                       const PrepareContext& /*context*/) const override {
    const Shape& output = output_shapes[0];
    auto state = std::make_unique<CrossState>();
    state->axis = VectorAxis(output);
    state->strides[0] = BroadcastStrides(input_shapes[0], output);
    state->strides[1] = BroadcastStrides(input_shapes[1], output);
    state->strides[2] = StorageStrides(output);
    return state;
  }

  // Computes every component of every vector.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const CrossState& state = context.state_as<CrossState>();
    const float* a = inputs[0]->data();
    const float* b = inputs[1]->data();
    float* result = outputs[0]->data();
    const size_t axis = state.axis;
    const size_t a_step = state.strides[0][axis];
    const size_t b_step = state.strides[1][axis];
    ForEachCoordinate(outputs[0]->shape(), [&](const Coordinates& coordinates) {
      const size_t c = coordinates[axis];
      Coordinates first = coordinates;
      first[axis] = 0;
      const size_t a0 = StorageOffsetOf(first, state.strides[0]);
      const size_t b0 = StorageOffsetOf(first, state.strides[1]);
      const size_t next = (c + 1) % 3;
      const size_t after = (c + 2) % 3;
      result[StorageOffsetOf(coordinates, state.strides[2])] =
          a[a0 + next * a_step] * b[b0 + after * b_step] -
          a[a0 + after * a_step] * b[b0 + next * b_step];
    });
  }

 private:
  // The dimension holding the vectors in the broadcast shape `output`.
  size_t VectorAxis(const Shape& output) const {
    if (has_dim_) {
      const size_t axis = Axis(dim_, output.size());
      if (output[axis] != 3) {
        Fail(Concat("dim ", dim_, " of ", ShapeToString(output), " must have extent 3, got ",
                    output[axis]));
      }
      return axis;
    }
    for (size_t d = 0; d < output.size(); ++d) {
      if (output[d] == 3) return d;
    }
    Fail(Concat("no dimension of extent 3 in ", ShapeToString(output)));
  }

  bool has_dim_ = false;
  int dim_ = -1;
};

LUMEN_REGISTER_LAYER(Cross, "torch.cross", "Tensor.cross");

}  // namespace lumen
