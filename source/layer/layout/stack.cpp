// torch.stack: joins tensors of one shape along a new dimension.
#include <limits>
#include <memory>
#include <vector>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// Per session: one copy per input, into its place along the new dimension.
struct StackState : LayerState {
  std::vector<StridedCopy> copies;
};

}  // namespace

// Output index i along the new dimension `dim` is input i. Because the last two dimensions are
// swapped in memory, stacking near the end changes the layout of every input: each input is a
// strided copy into the output, not a block copy.
class Stack : public Layer {
 public:
  // Reads dim (in [-(rank+1), rank]: the new dimension may follow the last one).
  explicit Stack(const LayerConfig& config) : Layer(config), dim_(config.IntParam("dim", 0)) {
    if (config.input_count() == 0) Fail("expected one or more inputs, got 0");
  }

  // The common input shape with the count of inputs inserted at dim.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    if (input_shapes.empty()) Fail("expected one or more inputs, got 0");
    const Shape& first = input_shapes[0];
    for (size_t i = 1; i < input_shapes.size(); ++i) {
      if (input_shapes[i] != first) {
        Fail(Concat("every input must have the same shape: input 0 is ", ShapeToString(first),
                    ", input ", i, " is ", ShapeToString(input_shapes[i])));
      }
    }
    if (input_shapes.size() > std::numeric_limits<uint32_t>::max()) Fail("too many inputs");
    Shape output = first;
    output.insert(output.begin() + static_cast<std::ptrdiff_t>(Axis(dim_, first.size() + 1)),
                  static_cast<uint32_t>(input_shapes.size()));
    return {output};
  }

  // Plans the copy of each input into the output.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                       const PrepareContext& /*context*/) const override {
    const Shape& input = input_shapes[0];
    const size_t axis = Axis(dim_, input.size() + 1);
    const std::vector<size_t> input_strides = StorageStrides(input);
    const std::vector<size_t> output_strides = StorageStrides(output_shapes[0]);
    auto state = std::make_unique<StackState>();
    for (size_t i = 0; i < input_shapes.size(); ++i) {
      StridedCopy copy;
      copy.extents.assign(input.begin(), input.end());
      for (size_t d = 0; d < input.size(); ++d) {
        copy.source_strides.push_back(static_cast<std::ptrdiff_t>(input_strides[d]));
        // Output dimensions at and after the new one are shifted by one.
        copy.target_strides.push_back(
            static_cast<std::ptrdiff_t>(output_strides[d < axis ? d : d + 1]));
      }
      copy.target_offset = static_cast<std::ptrdiff_t>(i * output_strides[axis]);
      state->copies.push_back(MakeStridedCopy(copy));
    }
    return state;
  }

  // Copies every input into its place.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const StackState& state = context.state_as<StackState>();
    for (size_t i = 0; i < inputs.size(); ++i) {
      RunStridedCopy(state.copies[i], inputs[i]->data(), outputs[0]->data(), context.compute.pool);
    }
  }

 private:
  int dim_;
};

LUMEN_REGISTER_LAYER(Stack, "torch.stack");

}  // namespace lumen
