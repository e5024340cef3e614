// Tensor.slice: x[..., start:end:step, ..., index, ...] along one or several dimensions.
// lumen.Slice (ONNX's Slice with bounds computed from shapes): the same, its starts, ends, axes
// and steps read from inputs 1 to 4, whose values a session knows when it plans.
#include <memory>
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/layout/slice_plan.hpp"
#include "lumen/error.hpp"
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
                       const PrepareContext& context) const override {
    SlicePlan plan = PlanFor(input_shapes, context.input_values, nullptr);
    auto state = std::make_unique<SliceState>();
    state->offset = plan.offset;
    state->strides = std::move(plan.strides);
    return state;
  }

  // A slice of its input.
  bool IsView() const override { return true; }
  // The slice of `view`.
  bool ViewThrough(const Shapes& input_shapes, const InputTensors& input_values,
                   StorageView* view) const override {
    *view = PlanFor(input_shapes, input_values, view);
    return true;
  }

  // Gathers the slice.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const SliceState& state = context.state_as<SliceState>();
    GatherStrided(*inputs[0], state.offset, state.strides, outputs[0], context.compute.pool);
  }

 protected:
  // For a layer whose bounds are operands.
  Slice(const LayerConfig& config, SliceBounds bounds) : SlicingLayer(config, std::move(bounds)) {}
  // The slice of input 0 for these inputs (`values`: those known when planning), as
  // `input_view` lays input 0 out (null: its own storage).
  virtual SlicePlan PlanFor(const Shapes& input_shapes, const InputTensors& /*values*/,
                            const StorageView* input_view) const {
    return MakePlan(input_shapes[0], bounds(), input_view);
  }
};

// ONNX's Slice: inputs data, starts, ends and optionally axes (default 0, 1, ...) and steps
// (default 1s). ONNX's negative steps are refused (a positive step is what PyTorch writes).
class OperandSlice : public Slice {
 public:
  // Takes no parameters: the bounds are inputs.
  explicit OperandSlice(const LayerConfig& config) : Slice(config, SliceBounds{}) {}

  // The bounds are values, not known here.
  Shapes OutputShapes(const Shapes& /*input_shapes*/) const override { FailWithoutValues(); }
  // starts, ends, axes, steps.
  std::vector<size_t> ShapeValueInputs() const override { return {1, 2, 3, 4}; }
  // The slice's shape for these bounds.
  Shapes OutputShapesFromValues(const Shapes& input_shapes,
                                const InputTensors& input_values) const override {
    return {PlanFor(input_shapes, input_values, nullptr).shape};
  }

 protected:
  // The bounds the inputs hold.
  SlicePlan PlanFor(const Shapes& input_shapes, const InputTensors& values,
                    const StorageView* input_view) const override {
    if (input_shapes.size() < 3 || input_shapes.size() > 5) {
      Fail(Concat("expected 3 to 5 inputs (data, starts, ends, axes, steps), got ",
                  input_shapes.size()));
    }
    SliceBounds bounds;
    bounds.starts = IntegerValues(*values.at(1), "starts (input 1)");
    bounds.ends = IntegerValues(*values.at(2), "ends (input 2)");
    const size_t count = bounds.starts.size();
    if (input_shapes.size() > 3) {
      bounds.dims = IntegerValues(*values.at(3), "axes (input 3)");
    } else {
      for (size_t i = 0; i < count; ++i) bounds.dims.push_back(static_cast<int64_t>(i));
    }
    bounds.steps = input_shapes.size() > 4 ? IntegerValues(*values.at(4), "steps (input 4)")
                                           : std::vector<int64_t>(count, 1);
    bounds.selects.assign(bounds.dims.size(), SliceBounds::kNoSelect);
    return MakePlan(input_shapes[0], bounds, input_view);
  }
};

LUMEN_REGISTER_LAYER(Slice, "Tensor.slice");
LUMEN_REGISTER_LAYER(OperandSlice, "lumen.Slice");

}  // namespace lumen
