// torch.unbind: every slice along one dimension, that dimension removed (one output per index).
// pnnx also writes consecutive Tensor.select calls covering a whole dimension as torch.unbind.
#include <memory>
#include <vector>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// Per session: the memory step between neighbouring slices and the strides of the dims left.
struct UnbindState : LayerState {
  std::ptrdiff_t slice_step = 0;
  std::vector<std::ptrdiff_t> strides;
};

}  // namespace

// Output k is x.select(dim, k). The input's extent along dim must equal the operator's number of
// outputs (PyTorch gives one output per index; a graph fixes how many it reads).
class Unbind : public Layer {
 public:
  // Reads dim (default 0).
  explicit Unbind(const LayerConfig& config)
      : Layer(config), dim_(config.IntParam("dim", 0)), output_count_(config.output_count()) {}

  // One shape per index: the input's without dim.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& input = input_shapes[0];
    const size_t axis = Axis(dim_, input.size());
    if (input[axis] != output_count_) {
      Fail(Concat("input ", ShapeToString(input), " has ", input[axis], " slice(s) along dim ",
                  dim_, " but the operator has ", output_count_, " output(s)"));
    }
    Shape output = input;
    output.erase(output.begin() + static_cast<std::ptrdiff_t>(axis));
    return std::vector<Shape>(output_count_, output);
  }

  // Computes the slice step and the strides of the dims left.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& /*output_shapes*/,
                                      const PrepareContext& /*context*/) const override {
    const Shape& input = input_shapes[0];
    const size_t axis = Axis(dim_, input.size());
    const std::vector<size_t> strides = StorageStrides(input);
    auto state = std::make_unique<UnbindState>();
    state->slice_step = static_cast<std::ptrdiff_t>(strides[axis]);
    for (size_t d = 0; d < input.size(); ++d) {
      if (d != axis) state->strides.push_back(static_cast<std::ptrdiff_t>(strides[d]));
    }
    return state;
  }

  // Gathers every slice.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override {
    const UnbindState& state = context.state_as<UnbindState>();
    for (size_t k = 0; k < outputs.size(); ++k) {
      GatherStrided(*inputs[0], static_cast<std::ptrdiff_t>(k) * state.slice_step, state.strides,
                    outputs[k], context.compute.pool);
    }
  }

 private:
  int dim_;
  size_t output_count_;
};

LUMEN_REGISTER_LAYER(Unbind, "torch.unbind", "Tensor.unbind");

}  // namespace lumen
