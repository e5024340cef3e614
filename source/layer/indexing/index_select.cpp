// torch.index_select: x.index_select(dim, index), the slices of x at the listed positions along
// dim, in the listed order (repeats allowed). The index is an operand (a vector, or a rank-0 tensor
// for one position), known only at run time, so its range is checked in Forward: an index outside
// [0, extent) is an error naming the layer, the index and the extent, as PyTorch's IndexError is
// (PyTorch's index_select does not count negative indices from the end, and neither does this).
// ONNX's Gather with a list of indices maps here too.
#include <cmath>
#include <memory>
#include <vector>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// Per session: how to copy one slice (the input and output at one position along dim), and the
// memory distance between neighbouring positions along dim in each.
struct IndexSelectState : LayerState {
  StridedCopy slice;
  size_t input_step = 0;
  size_t output_step = 0;
  size_t extent = 1;  // the input's extent along dim
};

}  // namespace

// Copies the selected slices one by one; each is a strided copy of the input's slice at the
// index into the output's slice at its position.
class IndexSelect : public Layer {
 public:
  // Reads dim.
  explicit IndexSelect(const LayerConfig& config) : Layer(config), dim_(config.IntParam("dim")) {}

  // The input with dim's extent replaced by the number of indices.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 2);
    const Shape& input = input_shapes[0];
    const Shape& index = input_shapes[1];
    if (index.size() > 1) {
      Fail(Concat("the index must be a vector or a rank-0 tensor, got shape ",
                  ShapeToString(index)));
    }
    const size_t count = ShapeElementCount(index);
    if (input.empty()) {  // a rank-0 input is one element along dim 0 or -1, as in PyTorch
      Axis(dim_, 1);
      if (count != 1) Fail(Concat("a rank-0 input takes exactly one index, got ", count));
      return {Shape{}};
    }
    Shape output = input;
    output[Axis(dim_, input.size())] = static_cast<uint32_t>(count);
    return {output};
  }

  // Describes the copy of one slice: every dimension but dim, in both layouts.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                       const PrepareContext& /*context*/) const override {
    auto state = std::make_unique<IndexSelectState>();
    const Shape& input = input_shapes[0];
    if (input.empty()) return state;  // one element: an empty copy of a single value
    const Shape& output = output_shapes[0];
    const size_t axis = Axis(dim_, input.size());
    const std::vector<size_t> input_strides = StorageStrides(input);
    const std::vector<size_t> output_strides = StorageStrides(output);
    StridedCopy slice;
    for (size_t d = 0; d < input.size(); ++d) {
      if (d == axis) continue;
      slice.extents.push_back(input[d]);
      slice.source_strides.push_back(static_cast<std::ptrdiff_t>(input_strides[d]));
      slice.target_strides.push_back(static_cast<std::ptrdiff_t>(output_strides[d]));
    }
    state->slice = MakeStridedCopy(slice);
    state->input_step = input_strides[axis];
    state->output_step = output_strides[axis];
    state->extent = input[axis];
    return state;
  }

  // Checks every index, then copies the slices.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const IndexSelectState& state = context.state_as<IndexSelectState>();
    const Tensor& index = *inputs[1];
    // A vector's storage order is its logical order, so index.data() lists the positions.
    for (size_t i = 0; i < index.size(); ++i) CheckedPosition(index.data()[i], state.extent);
    const float* source = inputs[0]->data();
    float* target = outputs[0]->data();
    if (inputs[0]->rank() == 0) {
      target[0] = source[0];
      return;
    }
    for (size_t i = 0; i < index.size(); ++i) {
      const size_t position = CheckedPosition(index.data()[i], state.extent);
      RunStridedCopy(state.slice, source + position * state.input_step,
                     target + i * state.output_step, context.compute.pool);
    }
  }

 private:
  // The index as a position in [0, extent); throws lumen::Error naming the layer when it is not
  // a whole number in that range.
  size_t CheckedPosition(float value, size_t extent) const {
    if (!(value >= 0.0f && value < static_cast<float>(extent)) || value != std::floor(value)) {
      Fail(Concat("index ", value, " is out of range for dim ", dim_, " of extent ", extent,
                  " (indices must be whole numbers in [0, ", extent, "))"));
    }
    return static_cast<size_t>(value);
  }

  int dim_;
};

LUMEN_REGISTER_LAYER(IndexSelect, "torch.index_select");

}  // namespace lumen
