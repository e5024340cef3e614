// Tensor.select: x.select(dim, index), the slice at one index with that dimension removed.
#include <memory>
#include <vector>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// Per session: where the selected slice starts in the input and how to step through it.
struct SelectState : LayerState {
  std::ptrdiff_t offset = 0;
  std::vector<std::ptrdiff_t> strides;
};

}  // namespace

// Selects one index along one dimension of any tensor (the batch included); negative dims and
// indices count from the end, as in PyTorch.
class Select : public Layer {
 public:
  // Reads dim and index.
  explicit Select(const LayerConfig& config)
      : Layer(config), dim_(config.IntParam("dim")), index_(config.IntParam("index")) {}

  // The input's shape without dim.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& input = input_shapes[0];
    const size_t axis = Axis(dim_, input.size());
    ResolvedIndex(input, axis);
    Shape output = input;
    output.erase(output.begin() + static_cast<std::ptrdiff_t>(axis));
    return {output};
  }

  // Computes the slice's offset and the strides of the dimensions left.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& /*output_shapes*/,
                                      const PrepareContext& /*context*/) const override {
    const Shape& input = input_shapes[0];
    const size_t axis = Axis(dim_, input.size());
    const std::vector<size_t> strides = StorageStrides(input);
    auto state = std::make_unique<SelectState>();
    state->offset = static_cast<std::ptrdiff_t>(ResolvedIndex(input, axis) * strides[axis]);
    for (size_t d = 0; d < input.size(); ++d) {
      if (d != axis) state->strides.push_back(static_cast<std::ptrdiff_t>(strides[d]));
    }
    return state;
  }

  // Gathers the slice.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override {
    const SelectState& state = context.state_as<SelectState>();
    GatherStrided(*inputs[0], state.offset, state.strides, outputs[0], context.compute.pool);
  }

 private:
  // The index as a position in [0, extent); throws lumen::Error naming the layer when it is out
  // of range, as PyTorch does.
  size_t ResolvedIndex(const Shape& input, size_t axis) const {
    const int64_t extent = input[axis];
    const int64_t index = index_ < 0 ? index_ + extent : index_;
    if (index < 0 || index >= extent) {
      Fail(Concat("index ", index_, " is out of range for dim ", dim_, " of extent ", extent,
                  " (input ", ShapeToString(input), ")"));
    }
    return static_cast<size_t>(index);
  }

  int dim_;
  int index_;
};

LUMEN_REGISTER_LAYER(Select, "Tensor.select");

}  // namespace lumen
