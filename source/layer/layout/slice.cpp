// Tensor.slice: x[..., start:end:step, ..., index, ...] along one or several dimensions.
#include <memory>
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/layout/slice_plan.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// Per session: the gather for this input shape.
struct SliceState : LayerState {
  std::ptrdiff_t offset = 0;
  std::vector<std::ptrdiff_t> strides;
};

}  // namespace

// Gathers the slice (SlicingLayer reads the parameters and resolves them) into its own tensor.
class Slice : public SlicingLayer {
 public:
  // Reads the slice parameters.
  explicit Slice(const LayerConfig& config) : SlicingLayer(config) {}

  // The input's shape with each sliced dimension's extent, selected dimensions removed.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    return {MakePlan(input_shapes[0]).shape};
  }

  // Computes where the first element is and the step of each dimension in the input's memory.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& /*output_shapes*/,
                       const PrepareContext& /*context*/) const override {
    SlicePlan plan = MakePlan(input_shapes[0]);
    auto state = std::make_unique<SliceState>();
    state->offset = plan.offset;
    state->strides = std::move(plan.strides);
    return state;
  }

  // Gathers the slice.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const SliceState& state = context.state_as<SliceState>();
    GatherStrided(*inputs[0], state.offset, state.strides, outputs[0], context.compute.pool);
  }
};

LUMEN_REGISTER_LAYER(Slice, "Tensor.slice");

}  // namespace lumen
